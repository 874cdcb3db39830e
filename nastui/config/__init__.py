"""The configuration: the schema, chassis presets and the TOML loader.

`load_config(find_config_path(os.environ))` is how a front end gets its `Config`; a
`ConfigError` says in one line which key on which line is wrong. The optional tables are
imported from their modules: `fancontrol` (fans and zones), `alerting` (mail, apprise) and
`remote` (SNMP hosts, NUT UPSes).
"""

from __future__ import annotations

from nastui.config.loader import ConfigError, find_config_path, load_config, parse_config
from nastui.config.presets import PRESETS, preset
from nastui.config.schema import AlertsConfig, ChassisConfig, Config, PollConfig, UiConfig

__all__ = [
    "PRESETS",
    "AlertsConfig",
    "ChassisConfig",
    "Config",
    "ConfigError",
    "PollConfig",
    "UiConfig",
    "find_config_path",
    "load_config",
    "parse_config",
    "preset",
]
