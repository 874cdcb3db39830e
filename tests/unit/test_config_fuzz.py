"""Any document built from the configuration's own keys loads or fails with one ConfigError.

Values are random (wrong types, out of range, empty, nested), so every validator meets input it
does not expect; none may raise anything but `ConfigError`, and the error must point inside the
file.
"""

from __future__ import annotations

from pathlib import Path

import tomlkit
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nastui.config import Config, ConfigError, loader, parse_config, validate_ups
from nastui.config import validate_alerts as alerts
from nastui.config import validate_chassis as chassis
from nastui.config import validate_collectors as collectors_
from nastui.config import validate_fans as fans
from nastui.config import validate_hosts as hosts
from nastui.config import validate_settings as settings_
from nastui.config import validate_thresholds as thresholds

WORDS = st.sampled_from(
    [
        "",
        " ",
        "x",
        "rv-4324",
        "front",
        "rear",
        "rows",
        "top-left",
        "hwmon",
        "ipmi-dell",
        "command",
        "curve",
        "pid",
        "max",
        "cpu",
        "hottest-drive",
        "{duty}",
        "a@example.org",
        "https://h/x",
        "0:1",
        "/dev/disk/by-id/x",
        "/dev/sda",
        "3",
        "2c",
        "SHA",
        "tls",
        "256",
        "~/pw",
        "auto",
        "attr:199",
        "ST*",
    ]
)
SCALARS = st.one_of(
    st.integers(-3, 300),
    st.floats(allow_nan=True, allow_infinity=True, width=32),
    st.booleans(),
    WORDS,
)
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3), max_leaves=6)


def table(keys: tuple[str, ...] | list[str]) -> st.SearchStrategy[dict[str, object]]:
    return st.dictionaries(st.sampled_from([*keys, "bogus"]), VALUES, max_size=5)


def tables(keys: tuple[str, ...] | list[str]) -> st.SearchStrategy[list[dict[str, object]]]:
    return st.lists(table(keys), max_size=3)


def with_tables(
    base: st.SearchStrategy[dict[str, object]], **subs: st.SearchStrategy[object]
) -> st.SearchStrategy[dict[str, object]]:
    return st.builds(lambda b, s: {**b, **s}, base, st.fixed_dictionaries({}, optional=subs))


SECTIONS: dict[str, st.SearchStrategy[object]] = {
    "hostname": VALUES,
    "chassis": with_tables(
        table(chassis.CHASSIS_KEYS),
        face=tables(chassis.FACE_KEYS),
        bay=tables(chassis.BAY_KEYS),
    ),
    "thresholds": with_tables(
        table(thresholds.THRESHOLD_KEYS),
        hdd=table(thresholds.LEVELS),
        attribute=tables(thresholds.ATTRIBUTE_KEYS),
    ),
    "poll": table(list(settings_.POLL_KEYS)),
    "zone": tables(fans.ZONE_KEYS),
    "fan": tables(fans.FAN_KEYS),
    "alerts": with_tables(
        table(alerts.ALERT_KEYS),
        email=table(alerts.EMAIL_KEYS),
        apprise=tables(alerts.APPRISE_KEYS),
    ),
    "host": tables(hosts.HOST_KEYS),
    "ups": tables(validate_ups.UPS_KEYS),
    "ui": table(settings_.UI_KEYS),
    "collectors": with_tables(
        table(collectors_.COLLECTOR_KEYS[:-1]), ignore=tables(collectors_.IGNORE_KEYS)
    ),
    "pools": with_tables(table(collectors_.POOLS_KEYS[:-1]), pool=tables(collectors_.POOL_KEYS)),
    "bogus": VALUES,
}
DOCUMENTS = st.fixed_dictionaries({}, optional=SECTIONS)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(DOCUMENTS)
def test_any_document_loads_or_raises_one_config_error(document: dict[str, object]) -> None:
    text = tomlkit.dumps(document)
    try:
        config = parse_config(text, Path("config.toml"))
    except ConfigError as error:
        assert error.message
        assert error.line is None or 1 <= error.line <= max(1, text.count("\n"))
        assert str(error).startswith("config.toml")
    else:
        assert isinstance(config, Config)


def test_fuzz_covers_every_top_level_key() -> None:
    assert set(loader.TOP_KEYS) <= set(SECTIONS)
