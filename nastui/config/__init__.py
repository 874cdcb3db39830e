"""The configuration: the schema, chassis presets and the TOML loader.

`load_config(find_config_path(os.environ))` is how a front end gets its `Config`; a
`ConfigError` says in one line which key on which line is wrong.
"""

from __future__ import annotations

from nastui.config.loader import ConfigError, find_config_path, load_config, parse_config
from nastui.config.presets import PRESETS, preset
from nastui.config.schema import (
    AlertsConfig,
    ChassisConfig,
    Config,
    EmailConfig,
    FanConfig,
    FanDriver,
    FanZoneConfig,
    HostConfig,
    PollConfig,
    Security,
    SnmpProfile,
    UiConfig,
)
from nastui.model import ZoneMode

__all__ = [
    "PRESETS",
    "AlertsConfig",
    "ChassisConfig",
    "Config",
    "ConfigError",
    "EmailConfig",
    "FanConfig",
    "FanDriver",
    "FanZoneConfig",
    "HostConfig",
    "PollConfig",
    "Security",
    "SnmpProfile",
    "UiConfig",
    "ZoneMode",
    "find_config_path",
    "load_config",
    "parse_config",
    "preset",
]
