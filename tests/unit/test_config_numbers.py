"""Every numeric key of the configuration, fed huge, tiny, infinite and not-a-number values:
`config check` and `status` answer with one line (exit 78, or UNKNOWN for `status`) or use
the value; never an internal error (exit 70, a traceback).

Before: `[thresholds] stale_after = 1` followed by 400 zeros was `OverflowError`, exit 70 in
`config check` and in `status`.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nastui import exits
from nastui.config import ConfigError, parse_config
from nastui.entry import main

# Each numeric key in the smallest document that reaches it; {v} is the value.
TEMPLATES: dict[str, str] = {
    "chassis.rows": "[chassis]\nrows = {v}\ncolumns = 4\n",
    "chassis.columns": "[chassis]\nrows = 2\ncolumns = {v}\n",
    "chassis.first": '[chassis]\npreset = "desktop-4"\nfirst = {v}\n',
    "chassis.empty": '[chassis]\npreset = "desktop-4"\nempty = [{v}]\n',
    "chassis.holes": "[chassis]\nrows = 2\ncolumns = 4\nholes = [[{v}, 1]]\n",
    "chassis.bay.bay": (
        '[chassis]\npreset = "desktop-4"\n[[chassis.bay]]\nbay = {v}\nserial = "S"\n'
    ),
    "chassis.face.rows": '[[chassis.face]]\nname = "f"\nrows = {v}\ncolumns = 4\n',
    "chassis.face.first": '[[chassis.face]]\nname = "f"\nrows = 1\ncolumns = 4\nfirst = {v}\n',
    "thresholds.stale_after": "[thresholds]\nstale_after = {v}\n",
    "thresholds.scrub_max_age_days": "[thresholds]\nscrub_max_age_days = {v}\n",
    "thresholds.nvme_percent_used_warning": "[thresholds]\nnvme_percent_used_warning = {v}\n",
    "thresholds.ssd_retired_normalized_warning": (
        "[thresholds]\nssd_retired_normalized_warning = {v}\n"
    ),
    "thresholds.selftest_recent_hours": "[thresholds]\nselftest_recent_hours = {v}\n",
    "thresholds.unc_recent_hours": "[thresholds]\nunc_recent_hours = {v}\n",
    "thresholds.hdd.warning": "[thresholds.hdd]\nwarning = {v}\n",
    "thresholds.nvme.critical": "[thresholds.nvme]\ncritical = {v}\n",
    "thresholds.temperature.bay": (
        "[[thresholds.temperature]]\nbay = {v}\nwarning = 40\ncritical = 50\n"
    ),
    "thresholds.temperature.warning": (
        '[[thresholds.temperature]]\nmodel = "X*"\nwarning = {v}\ncritical = 50\n'
    ),
    "thresholds.attribute.id": "[[thresholds.attribute]]\nid = {v}\nwarning = 1\n",
    "thresholds.attribute.warning": "[[thresholds.attribute]]\nid = 197\nwarning = {v}\n",
    "thresholds.attribute.critical": "[[thresholds.attribute]]\nid = 5\ncritical = {v}\n",
    "collectors.ignore.bay": "[[collectors.ignore]]\nbay = {v}\n",
    "pools.capacity_warning": "[pools]\ncapacity_warning = {v}\n",
    "pools.pool.capacity_critical": ('[[pools.pool]]\nname = "tank"\ncapacity_critical = {v}\n'),
    "selftest.short": "[selftest]\nshort = {v}\n",
    "selftest.long": "[selftest]\nlong = {v}\n",
    "selftest.max_at_once": "[selftest]\nmax_at_once = {v}\n",
    "selftest.skip_bays": "[selftest]\nskip_bays = [{v}]\n",
    **{
        f"poll.{k}": f"[poll]\n{k} = {{v}}\n"
        for k in ("temperature", "smart", "pools", "io", "fans", "fleet", "command_timeout")
    },
    **{
        f"zone.{k}": f'[[zone]]\nname = "z"\n{k} = {{v}}\n'
        for k in ("hysteresis", "min_duty", "max_duty", "stale_periods", "trust_after")
    },
    **{
        f"zone.pid.{k}": f'[[zone]]\nname = "z"\nmode = "pid"\n{k} = {{v}}\n'
        for k in ("setpoint", "kp", "ki", "kd")
    },
    "zone.curve": '[[zone]]\nname = "z"\ncurve = [[30, 20], [{v}, 100]]\n',
    **{
        f"fan.{k}": (
            '[[zone]]\nname = "z"\n[[fan]]\nname = "f"\ndriver = "hwmon"\nzone = "z"\n'
            f'hwmon_name = "nct6775"\npwm = 2\n{k} = {{v}}\n'
        )
        for k in ("min_duty", "max_duty", "start_duty")
    },
    "fan.pwm": (
        '[[zone]]\nname = "z"\n[[fan]]\nname = "f"\ndriver = "hwmon"\nzone = "z"\n'
        'hwmon_name = "nct6775"\npwm = {v}\n'
    ),
    "fan.ipmi_zone": (
        '[[zone]]\nname = "z"\n[[fan]]\nname = "f"\ndriver = "ipmi-supermicro"\nzone = "z"\n'
        "ipmi_zone = {v}\n"
    ),
    "alerts.repeat_interval": "[alerts]\nrepeat_interval = {v}\n",
    "alerts.email.port": (
        '[alerts.email]\nto = "a@example.org"\nfrom = "b@example.org"\nhost = "127.0.0.1"\n'
        "port = {v}\n"
    ),
    **{
        f"host.{k}": (f'[[host]]\nname = "h"\naddress = "127.0.0.1"\nport = 9\n{k} = {{v}}\n')
        for k in ("timeout", "retries")
    },
    "host.port": '[[host]]\nname = "h"\naddress = "127.0.0.1"\nport = {v}\n',
    "ups.timeout": '[[ups]]\ntarget = "ups@127.0.0.1:9"\ntimeout = {v}\n',
    "ui.colors": "[ui]\ncolors = {v}\n",
}

NUMBERS = st.one_of(
    st.sampled_from(
        [
            10**400,
            -(10**400),
            10**30,
            2**63,
            2**64 + 1,
            -(2**63) - 1,
            10**19,
            10**15,
            0,
            -1,
            1,
            math.inf,
            -math.inf,
            math.nan,
            5e-324,
            -5e-324,
            1e-300,
            1e300,
            1.7976931348623157e308,
            0.0,
            -0.0,
            0.5,
        ]
    ),
    st.integers(min_value=-(10**400), max_value=10**400),
    st.floats(allow_nan=True, allow_infinity=True),
)


def toml_number(value: int | float) -> str:
    """`value` as TOML writes it (inf, -inf, nan; floats with an exponent or a point)."""
    if isinstance(value, int):
        return str(value)
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    text = repr(value)
    return text if any(c in text for c in ".en") else text + ".0"


def document(key: str, value: int | float) -> str:
    return TEMPLATES[key].format(v=toml_number(value))


@settings(max_examples=400, deadline=None, derandomize=True)
@given(key=st.sampled_from(sorted(TEMPLATES)), value=NUMBERS)
def test_every_numeric_key_loads_or_is_one_config_error(key: str, value: int | float) -> None:
    try:
        parse_config(document(key, value), Path("config.toml"))
    except ConfigError as exc:
        text = str(exc)
        assert "\n" not in text and len(text) < 300, text


@settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(key=st.sampled_from(sorted(TEMPLATES)), value=NUMBERS)
def test_config_check_and_status_never_an_internal_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], key: str, value: int | float
) -> None:
    config = tmp_path / "config.toml"
    config.write_text(document(key, value))
    checked = main(["--demo", "config", "check", str(config)])
    status = main(["--demo", "--config", str(config), "status"])
    err = capsys.readouterr().err
    assert checked in (exits.OK, exits.EX_CONFIG), err
    assert status in (exits.OK, exits.WARNING, exits.CRITICAL, exits.UNKNOWN), err
    assert "internal error" not in err and "Traceback" not in err, err


@pytest.mark.parametrize("command", [["config", "check"], ["status"]])
def test_stale_after_of_four_hundred_digits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    config = tmp_path / "config.toml"
    config.write_text("[thresholds]\nstale_after = 1" + "0" * 400 + "\n")
    argv = (
        [*command, str(config)]
        if command[0] == "config"
        else ["--demo", "--config", str(config), *command]
    )
    code = main(argv)
    captured = capsys.readouterr()
    text = captured.err + captured.out
    assert "thresholds.stale_after must be a positive number of seconds up to" in text
    assert "an integer of about 401 digits" in text
    assert code == (exits.EX_CONFIG if command[0] == "config" else exits.UNKNOWN)


def test_a_number_past_pythons_digit_limit_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"config.toml:2: a number of thousands of digits"):
        parse_config("[poll]\nio = 1" + "0" * 5000 + "\n", tmp_path / "config.toml")
