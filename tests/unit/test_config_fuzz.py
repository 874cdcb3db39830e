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

from nastui.config import Config, ConfigError, keys, parse_config

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
        table(keys.CHASSIS_KEYS),
        face=tables(keys.FACE_KEYS),
        bay=tables(keys.BAY_KEYS),
    ),
    "thresholds": with_tables(
        table(keys.THRESHOLD_KEYS),
        hdd=table(keys.LEVELS),
        attribute=tables(keys.ATTRIBUTE_KEYS),
    ),
    "poll": table(list(keys.POLL_KEYS)),
    "zone": tables(keys.ZONE_KEYS),
    "fan": tables(keys.FAN_KEYS),
    "alerts": with_tables(
        table(keys.ALERT_KEYS),
        email=table(keys.EMAIL_KEYS),
        apprise=tables(keys.APPRISE_KEYS),
    ),
    "host": tables(keys.HOST_KEYS),
    "ups": tables(keys.UPS_KEYS),
    "ui": table(keys.UI_KEYS),
    "collectors": with_tables(table(keys.COLLECTOR_KEYS[:-1]), ignore=tables(keys.IGNORE_KEYS)),
    "pools": with_tables(table(keys.POOLS_KEYS[:-1]), pool=tables(keys.POOL_KEYS)),
    "selftest": table(keys.SELFTEST_KEYS),
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
    assert set(keys.TOP_KEYS) <= set(SECTIONS)
