"""Huge and deep values never hang or crash the loader: each is one `ConfigError`.

A reload that hangs stops the fan loop, and one that raises anything else kills the daemon, so
every size the configuration names is bounded (bays, rows, columns, periods, stale periods,
tables, curve points, the file itself) and nesting is refused before anything recurses on it.
The command line turns each into one line and exit 78.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest
import tomlkit
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nastui import exits
from nastui.config import Config, ConfigError, load_config, parse_config
from nastui.config.loader import MAX_DEPTH, MAX_FILE_BYTES
from nastui.config.validate_chassis import MAX_FACE_BAYS
from nastui.config.validate_fans import MAX_STALE_PERIODS, MAX_TRUST_AFTER
from nastui.config.validate_settings import POLL_MAX, POLL_MIN
from tests.conftest import REPO
from tests.inproc import run_nastui

HUGE = st.one_of(
    st.integers(min_value=-(10**30), max_value=10**30),
    st.sampled_from([0, 1, 10**5, 10**9, 10**22, -(10**22), 2**63, 2**64 + 1]),
    st.sampled_from([1e-300, -1e-300, 5e-324, 1e22, 1e300, -1e300, 0.0]),
    st.floats(allow_nan=False, allow_infinity=False),
)
CHASSIS_KEYS = ("rows", "columns", "first")
ZONE_NUMBERS = ("stale_periods", "trust_after", "hysteresis", "kp", "ki", "kd", "setpoint")
POLL_KEYS = ("temperature", "smart", "pools", "io", "fans", "fleet", "command_timeout")


def _zone(values: dict[str, int | float]) -> dict[str, object]:
    return {"name": "drives", "curve": [[30, 20], [45, 100]], **values}


DOCUMENTS = st.fixed_dictionaries(
    {},
    optional={
        "chassis": st.dictionaries(st.sampled_from(CHASSIS_KEYS), HUGE, min_size=1),
        "poll": st.dictionaries(st.sampled_from(POLL_KEYS), HUGE, min_size=1),
        "zone": st.lists(
            st.dictionaries(st.sampled_from(ZONE_NUMBERS), HUGE).map(_zone),
            min_size=1,
            max_size=2,
        ),
    },
)


def _check(config: Config) -> None:
    """What a loaded configuration may hold: nothing the loop would hang or stall on."""
    for face in config.chassis.layout.faces:
        assert face.rows * face.columns <= MAX_FACE_BAYS
    for seconds in dataclasses.astuple(config.poll):
        assert POLL_MIN <= seconds <= POLL_MAX
    assert config.poll.fans_s <= 3600
    for zone in config.zones:
        assert 1 <= zone.stale_periods <= MAX_STALE_PERIODS
        assert 1 <= zone.trust_after <= MAX_TRUST_AFTER


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(DOCUMENTS)
def test_huge_values_load_bounded_or_raise_one_config_error(document: dict[str, object]) -> None:
    text = tomlkit.dumps(document)
    try:
        config = parse_config(text, Path("config.toml"))
    except ConfigError as error:
        assert "\n" not in str(error)
        assert str(error).startswith("config.toml")
    else:
        _check(config)


def _nested(kind: str, depth: int) -> str:
    if kind == "array":
        return "[" * depth + "1" + "]" * depth
    return "{a = " * depth + "1" + "}" * depth


PLACES = st.sampled_from(
    [
        ("", "hostname"),
        ("[chassis]\n", "rows"),
        ("[chassis]\n", "holes"),
        ("[poll]\n", "fans"),
        ('[[zone]]\nname = "z"\n', "curve"),
        ('[[zone]]\nname = "z"\n', "stale_periods"),
        ('[[fan]]\nname = "f"\n', "set_command"),
        ("[ui]\n", "colors"),
    ]
)


@settings(max_examples=150, deadline=None)
@given(PLACES, st.sampled_from(["array", "inline table"]), st.integers(0, 3000))
def test_nesting_anywhere_loads_or_raises_one_config_error(
    place: tuple[str, str], kind: str, depth: int
) -> None:
    header, key = place
    text = f"{header}{key} = {_nested(kind, depth)}\n"
    try:
        parse_config(text, Path("config.toml"))
    except ConfigError as error:
        assert "\n" not in str(error) and str(error).startswith("config.toml")


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 50, 400, 5000, 100_000])
@pytest.mark.parametrize("kind", ["array", "inline table"])
def test_deep_nesting_is_one_config_error(depth: int, kind: str) -> None:
    if kind == "array":
        text = "x = " + "[" * depth + "]" * depth + "\n"
    else:
        text = "x = " + "{a = " * depth + "1" + "}" * depth + "\n"
    with pytest.raises(ConfigError) as info:
        parse_config(text, Path("config.toml"))
    assert "nested more than 8 deep" in str(info.value)


def test_the_deepest_real_key_is_within_the_limit() -> None:
    text = "[chassis]\nrows = 2\ncolumns = 2\nholes = [[0, 1]]\n"
    assert parse_config(text, Path("config.toml")).chassis.layout.faces[0].holes == {(0, 1)}


def test_a_huge_grid_is_refused_at_once() -> None:
    with pytest.raises(ConfigError) as info:
        parse_config("[chassis]\nrows = 100000\ncolumns = 100000\n", Path("config.toml"))
    assert str(info.value) == (
        "config.toml:2: chassis.rows must be an integer from 1 to 128, got 100000"
    )
    with pytest.raises(ConfigError) as info:
        parse_config("[chassis]\nrows = 128\ncolumns = 128\n", Path("config.toml"))
    assert "128 x 128 = 16384 bays; a face holds at most 1024" in str(info.value)


def test_repeated_faces_are_not_built() -> None:
    face = "[[chassis.face]]\nrows = 32\ncolumns = 32\n"
    with pytest.raises(ConfigError) as info:
        parse_config(face * 2000, Path("config.toml"))
    assert "is already the front face" in str(info.value)


def test_a_file_over_256_kib_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("# " + "x" * MAX_FILE_BYTES + "\n")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    expected = f"config.toml: {path} is larger than 256 KiB: not read"
    assert str(info.value) == expected


@pytest.mark.parametrize(
    "text",
    [
        "x = " + "[" * 3000 + "]" * 3000 + "\n",
        "[chassis]\nrows = 100000\ncolumns = 100000\n",
        "[[zone]]\nname = 'a'\ncurve = [[30, 20]]\nstale_periods = 10000000000000000000000\n",
        "[poll]\nfans = 1e-300\n",
    ],
    ids=["deep", "huge grid", "huge stale periods", "tiny period"],
)
def test_the_command_line_says_one_line_per_problem_and_exits_78(tmp_path: Path, text: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(text)
    env = {k: v for k, v in os.environ.items() if k != "NASTUI_CONFIG"}
    result = run_nastui(["config", "check", "--config", str(path)], cwd=REPO, env=env)
    assert result.returncode == exits.EX_CONFIG, result.stderr
    lines = result.stderr.splitlines()  # `config check` lists every problem, one line each
    assert lines and all(line.startswith("nastui: config.toml") for line in lines)
    assert len(lines) == (2 if "rows" in text else 1)
