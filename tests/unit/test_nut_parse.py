"""The NUT protocol parser, the ups.status mapping and the `[[ups]]` configuration."""

from __future__ import annotations

from pathlib import Path

import pytest

from nastui.collectors.nut_parse import (
    NutError,
    nut_error,
    parse_list_var,
    status_of,
    ups_from_vars,
)
from nastui.config import ConfigError, parse_config
from nastui.config.remote import UpsConfig
from nastui.config.validate_ups import parse_target
from nastui.model import UpsStatus

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures/nut/list_var_dummy.txt"
WHERE = "dummy@127.0.0.1:3493"


def test_parses_a_real_list_var_answer() -> None:
    values, skipped = parse_list_var(FIXTURE.read_text().splitlines(), "dummy", WHERE)
    assert skipped == 0
    assert values["ups.status"] == "OL"
    assert values["battery.runtime"] == "2520"
    assert len(values) == 17
    ups = ups_from_vars("rack", values, None)
    assert ups.status is UpsStatus.ONLINE
    assert (ups.charge_percent, ups.runtime_s, ups.load_percent) == (100.0, 2520.0, 23.0)
    assert ups.input_voltage == 230.0
    assert ups.model == "Dummy Manufacturer Dummy UPS"
    assert ups.on_battery_s is None and not ups.battery_replace


def test_escapes_odd_lines_and_other_upses() -> None:
    lines = [
        "BEGIN LIST VAR u",
        r'VAR u ups.model "Back-UPS \"XS\" 700 \\ test"',
        'VAR other battery.charge "5"',
        "garbage",
        'VAR u battery.charge "n/a"',
        "END LIST VAR u",
    ]
    values, skipped = parse_list_var(lines, "u", WHERE)
    assert values == {"ups.model": 'Back-UPS "XS" 700 \\ test', "battery.charge": "n/a"}
    assert skipped == 2
    assert ups_from_vars("u", values, None).charge_percent is None  # odd value: None


@pytest.mark.parametrize(
    ("line", "fragment"),
    [
        ("ERR UNKNOWN-UPS", "upsd answered UNKNOWN-UPS: upsd has no UPS of that name"),
        ("ERR ACCESS-DENIED", "allow it in upsd.conf"),
        ("ERR DATA-STALE", "no fresh data"),
        ("ERR SOMETHING-NEW extra", "SOMETHING-NEW"),
    ],
)
def test_err_lines_are_one_line_errors(line: str, fragment: str) -> None:
    with pytest.raises(NutError, match=fragment) as caught:
        parse_list_var([line], "dummy", WHERE)
    assert str(caught.value).startswith(WHERE + ": ")
    assert nut_error("OK Goodbye", WHERE) is None


def test_a_cut_short_answer_is_an_error() -> None:
    with pytest.raises(NutError, match="cut short"):
        parse_list_var(["BEGIN LIST VAR dummy", 'VAR dummy ups.status "OL"'], "dummy", WHERE)
    with pytest.raises(NutError, match="cut short"):
        parse_list_var(["SSH-2.0-OpenSSH_9.2"], "dummy", WHERE)


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        ("OL", UpsStatus.ONLINE),
        ("OL CHRG", UpsStatus.ONLINE),
        ("OB DISCHRG", UpsStatus.ON_BATTERY),
        ("OB LB", UpsStatus.BATTERY_LOW),
        ("OL LB", UpsStatus.ONLINE),
        ("OB LB FSD", UpsStatus.BATTERY_LOW),
        ("OL FSD", UpsStatus.BATTERY_LOW),
        ("OFF", UpsStatus.OFF),
        ("OL BYPASS", UpsStatus.BYPASS),
        ("", UpsStatus.UNKNOWN),
        ("WAIT", UpsStatus.UNKNOWN),
    ],
)
def test_status_flags(status: str, expected: UpsStatus) -> None:
    assert status_of(status.split()) is expected


def test_on_battery_time_and_replace_battery() -> None:
    values = {"ups.status": "OB DISCHRG RB", "device.mfr": "APC", "device.model": "APC Smart"}
    ups = ups_from_vars("u", values, 90.0)
    assert (ups.status, ups.on_battery_s, ups.battery_replace) == (
        UpsStatus.ON_BATTERY,
        90.0,
        True,
    )
    assert ups.model == "APC Smart"  # the maker is not repeated
    assert ups_from_vars("u", {"ups.status": "OL"}, 90.0).on_battery_s is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ups@127.0.0.1", ("ups", "127.0.0.1", 3493)),
        ("rack-ups.1@nas.example.org:3500", ("rack-ups.1", "nas.example.org", 3500)),
        ("u@[2001:db8::1]:3493", ("u", "2001:db8::1", 3493)),
        ("ups", None),
        ("ups@", None),
        ("ups@host:0", None),
        ("ups@host:70000", None),
        ("u p s@host", None),
        ("ups@host\nLIST UPS", None),
        ("ups@-rf", None),
    ],
)
def test_targets_are_allowlisted(text: str, expected: tuple[str, str, int] | None) -> None:
    assert parse_target(text) == expected


def test_ups_tables(tmp_path: Path) -> None:
    text = (
        '[[ups]]\ntarget = "dummy@127.0.0.1:3500"\n\n'
        '[[ups]]\ntarget = "b@nut"\nname = "B"\ntimeout = 5\n'
    )
    config = parse_config(text, tmp_path / "c.toml")
    assert config.ups == (
        UpsConfig("dummy", "dummy", "127.0.0.1", 3500, 2.0),
        UpsConfig("B", "b", "nut", 3493, 5.0),
    )
    with pytest.raises(ConfigError, match=r"upsname@host"):
        parse_config('[[ups]]\ntarget = "127.0.0.1"\n', tmp_path / "c.toml")
    with pytest.raises(ConfigError, match="password"):
        parse_config('[[ups]]\ntarget = "a@b"\npassword = "x"\n', tmp_path / "c.toml")
