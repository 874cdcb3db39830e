"""Every key of the configuration file, table by table: the one registry.

Validation checks each table against its keys here (an unknown key is reported with the nearest
known one); `config.example.toml` must document every one of them (`undocumented`, which its
test asks, and `nastui config init` too before it writes the example out). A key added to a
validator without being added here is an unknown key; one added here without its line in the
example fails the test and `config init`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

TOP_KEYS = (
    "hostname",
    "chassis",
    "thresholds",
    "poll",
    "zone",
    "fan",
    "alerts",
    "host",
    "ups",
    "ui",
    "collectors",
    "pools",
    "selftest",
)

# [chassis], its [[chassis.face]]s and [[chassis.bay]]s.
CHASSIS_KEYS = (
    "preset",
    "name",
    "side",
    "rows",
    "columns",
    "first",
    "order",
    "origin",
    "holes",
    "face",
    "empty",
    "bay",
)
FACE_KEYS = ("side", "rows", "columns", "first", "order", "origin", "holes")
GRID_KEYS = ("side", "rows", "columns", "holes")  # what a preset fixes
MATCHERS = ("serial", "by_id", "by_path", "enclosure")  # a bay binding names exactly one
BAY_KEYS = ("bay", *MATCHERS)

# [thresholds], its [thresholds.hdd|ssd|nvme], [[thresholds.temperature]] overrides and
# [[thresholds.attribute]]s.
THRESHOLD_KEYS = (
    "hdd",
    "ssd",
    "nvme",
    "attribute",
    "stale_after",
    "scrub_max_age_days",
    "nvme_percent_used_warning",
    "temperature",
    "ssd_retired_normalized_warning",
    "selftest_recent_hours",
    "unc_recent_hours",
)
LEVELS = ("warning", "critical")
OVERRIDE_KEYS = ("model", "bay", *LEVELS)
ATTRIBUTE_KEYS = ("id", *LEVELS)

# [poll]: TOML key -> PollConfig field. [ui].
POLL_KEYS = {
    "temperature": "temperature_s",
    "smart": "smart_s",
    "pools": "pools_s",
    "io": "io_s",
    "fans": "fans_s",
    "fleet": "fleet_s",
    "command_timeout": "command_timeout_s",
}
UI_KEYS = ("ascii", "colors")

# [[zone]] and [[fan]].
ZONE_KEYS = (
    "name",
    "source",
    "mode",
    "curve",
    "curve_kind",
    "hysteresis",
    "min_duty",
    "max_duty",
    "setpoint",
    "kp",
    "ki",
    "kd",
    "stale_periods",
    "trust_after",
)
FAN_KEYS = (
    "name",
    "driver",
    "zone",
    "hwmon_name",
    "hwmon_device",
    "pwm",
    "ipmi_zone",
    "set_command",
    "min_duty",
    "max_duty",
    "start_duty",
)

# [alerts], [alerts.email], [[alerts.apprise]] ("url" and "password", `REFUSED_KEYS`, are
# refused with the reason: a secret does not belong in the file; an unknown key's message never
# offers them).
ALERT_KEYS = ("repeat_interval", "exec", "webhook", "email", "apprise")
APPRISE_KEYS = ("name", "url_file", "url_env")
EMAIL_KEYS = (
    "to",
    "from",
    "host",
    "port",
    "security",
    "username",
    "password_file",
    "password_env",
)
REFUSED_KEYS = {"alerts.apprise": ("url",), "alerts.email": ("password",)}

# [[host]] (SNMP) and [[ups]] (NUT).
PASSWORDS = ("auth_password", "priv_password")
HOST_KEYS = (
    "name",
    "address",
    "port",
    "profile",
    "version",
    "community",
    "user",
    "auth_protocol",
    "auth_password",
    "priv_protocol",
    "priv_password",
    "auth_password_file",
    "auth_password_env",
    "priv_password_file",
    "priv_password_env",
    "timeout",
    "retries",
)
V3_KEYS = (  # the SNMPv3 ones, refused under version "2c"
    "user",
    "auth_protocol",
    "priv_protocol",
    *(f"{p}{suffix}" for p in PASSWORDS for suffix in ("", "_file", "_env")),
)
UPS_KEYS = ("target", "name", "timeout")

# [collectors], its [[collectors.ignore]]; [pools] and its [[pools.pool]]; [selftest].
COLLECTOR_KEYS = ("zfs", "md", "btrfs", "ignore")
IGNORE_KEYS = ("serial", "model", "bay", "findings")
POOLS_KEYS = ("capacity_warning", "capacity_critical", "pool")
POOL_KEYS = ("name", *POOLS_KEYS[:2])
SELFTEST_KEYS = ("enabled", "short", "long", "max_at_once", "skip_models", "skip_bays", "hours")

TABLES: Mapping[str, tuple[str, ...]] = {
    "": TOP_KEYS,
    "chassis": CHASSIS_KEYS,
    "chassis.face": FACE_KEYS,
    "chassis.bay": BAY_KEYS,
    "thresholds": THRESHOLD_KEYS,
    "thresholds.hdd": LEVELS,
    "thresholds.ssd": LEVELS,
    "thresholds.nvme": LEVELS,
    "thresholds.temperature": OVERRIDE_KEYS,
    "thresholds.attribute": ATTRIBUTE_KEYS,
    "poll": tuple(POLL_KEYS),
    "ui": UI_KEYS,
    "zone": ZONE_KEYS,
    "fan": FAN_KEYS,
    "alerts": ALERT_KEYS,
    "alerts.email": EMAIL_KEYS,
    "alerts.apprise": APPRISE_KEYS,
    "host": HOST_KEYS,
    "ups": UPS_KEYS,
    "collectors": COLLECTOR_KEYS,
    "collectors.ignore": IGNORE_KEYS,
    "pools": POOLS_KEYS,
    "pools.pool": POOL_KEYS,
    "selftest": SELFTEST_KEYS,
}
"""Each table (dotted; "" the top level) and the keys it takes."""

# `key =`, `#key =`, a [header] naming it, or an entry `#   key   what it does`
_WRITTEN = r"(?m)^#?\s*(?:{0}\s*=|\[+[^\]\n]*\b{0}\b|{0}\s{{2,}}\S)"


def undocumented(text: str) -> list[str]:
    """The keys of `TABLES` that the example configuration `text` does not mention ("table.key";
    empty when it documents them all)."""
    missing = []
    for table, keys in TABLES.items():
        for key in keys:
            if not re.search(_WRITTEN.format(re.escape(key)), text):
                missing.append(f"{table}.{key}" if table else key)
    return missing
