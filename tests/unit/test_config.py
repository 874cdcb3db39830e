"""The configuration loader: finding and reading the file, what sections become, the example."""

from __future__ import annotations

import io
import os
import pickle
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from nastui.config import PRESETS, Config, ConfigError, find_config_path, load_config, parse_config
from nastui.config.alerting import Security
from nastui.config.fancontrol import FanDriver
from nastui.config.keys import undocumented
from nastui.config.remote import SnmpProfile
from nastui.model import (
    AttributeLimit,
    CurveKind,
    CurvePoint,
    DriveClass,
    FanSource,
    Order,
    Origin,
    Side,
    TempLimits,
    Thresholds,
    ZoneMode,
)
from nastui.model.fanzone import DEFAULT_CURVE
from tests.conftest import REPO

CONFIG = Path("/etc/nastui/config.toml")
EXAMPLE = REPO / "config.example.toml"


def parse(text: str) -> Config:
    return parse_config(text, CONFIG)


# ---------------------------------------------------------------- the example


def test_example_loads() -> None:
    config = load_config(EXAMPLE)
    assert config.path == EXAMPLE
    assert config.chassis.configured
    assert config.chassis.layout == PRESETS["rv-4324"]
    assert config.chassis.empty == frozenset({22, 23})
    assert config.chassis.bindings == ()  # commented until chosen: each would be CRITICAL
    assert config.thresholds == Thresholds()
    assert config.poll == Config().poll
    assert config.alerts == Config().alerts


def test_example_with_every_setting_uncommented_loads() -> None:
    # `#key = value` lines are settings left off; prose comments are `# text`.
    text = re.sub(r"(?m)^#(?=[\[A-Za-z_\"'])", "", EXAMPLE.read_text(encoding="utf-8"))
    config = parse(text)
    assert config.hostname == "nano"
    assert [b.bay for b in config.chassis.bindings] == [1, 2, 3, 4]
    assert [z.name for z in config.zones] == ["drives", "cpu"]
    assert [f.name for f in config.fans] == ["front-wall", "cpu-and-rear", "external-blower"]
    assert config.alerts.email is not None
    assert [h.name for h in config.hosts] == ["backup-nas", "ups"]
    assert config.ui.colors == "256"


def test_example_documents_every_key() -> None:
    """Every key of the registry (every table's: the [[alerts.apprise]], [[ups]], overrides and
    grid keys the old hand-made list missed) has its line in config.example.toml."""
    assert undocumented(EXAMPLE.read_text(encoding="utf-8")) == []


# ---------------------------------------------------------------- defaults and files


def test_no_path_gives_defaults() -> None:
    assert load_config(None) == Config()


def test_empty_file_gives_defaults_with_its_path() -> None:
    config = parse("")
    assert config == Config(path=CONFIG)
    assert not config.chassis.configured


def test_load_reads_the_file(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('hostname = "nano"\n', encoding="utf-8")
    assert load_config(path).hostname == "nano"


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path / "config.toml")
    # the whole path: which config.toml (/etc/nastui's, the user's, one --config named)
    where = tmp_path / "config.toml"
    assert str(info.value) == f"config.toml: cannot read {where}: No such file or directory"
    assert info.value.line is None
    assert info.value.key == ""


@pytest.mark.parametrize(
    ("make", "what"),
    [
        (lambda p: p.mkdir(), "a directory"),
        (os.mkfifo, "a FIFO"),  # opened without blocking: refused at once, no writer needed
        (lambda p: p.symlink_to("/dev/zero"), "a character device"),  # never read without end
    ],
    ids=["directory", "FIFO", "/dev/zero"],
)
def test_only_a_regular_file_is_read(
    tmp_path: Path, make: Callable[[Path], None], what: str
) -> None:
    path = tmp_path / "config.toml"
    make(path)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(info.value) == f"config.toml: {path} is {what}, not a regular file"


def test_file_that_is_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(b'hostname = "\xff"\n')
    with pytest.raises(ConfigError, match="not UTF-8 text"):
        load_config(path)


def test_config_error_attributes_and_str() -> None:
    error = ConfigError(Path("/a/b/nas.toml"), 12, "chassis.rows", "chassis.rows is wrong")
    assert str(error) == "nas.toml:12: chassis.rows is wrong"
    assert (error.path, error.line, error.key) == (Path("/a/b/nas.toml"), 12, "chassis.rows")
    assert error.message == "chassis.rows is wrong"
    assert str(ConfigError(Path("x.toml"), None, "", "gone")) == "x.toml: gone"
    copy = pickle.loads(pickle.dumps(error))
    assert str(copy) == str(error)


def test_find_prefers_nastui_config(tmp_path: Path) -> None:
    named = tmp_path / "named.toml"
    assert find_config_path({"NASTUI_CONFIG": str(named)}, root=tmp_path) == named


def test_find_returns_a_named_file_even_when_missing(tmp_path: Path) -> None:
    named = tmp_path / "missing.toml"
    assert find_config_path({"NASTUI_CONFIG": str(named)}, root=tmp_path) == named


def _touch(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("", encoding="utf-8")
    return path


def test_find_etc_before_user_config(tmp_path: Path) -> None:
    etc = _touch(tmp_path / "etc" / "nastui" / "config.toml")
    _touch(tmp_path / "home" / ".config" / "nastui" / "config.toml")
    env = {"HOME": str(tmp_path / "home")}
    assert find_config_path(env, root=tmp_path) == etc


def test_find_xdg_config_home(tmp_path: Path) -> None:
    xdg = _touch(tmp_path / "xdg" / "nastui" / "config.toml")
    _touch(tmp_path / "home" / ".config" / "nastui" / "config.toml")
    env = {"XDG_CONFIG_HOME": str(tmp_path / "xdg"), "HOME": str(tmp_path / "home")}
    assert find_config_path(env, root=tmp_path) == xdg


def test_find_home_config_when_xdg_unset_or_relative(tmp_path: Path) -> None:
    home = _touch(tmp_path / "home" / ".config" / "nastui" / "config.toml")
    assert find_config_path({"HOME": str(tmp_path / "home")}, root=tmp_path) == home
    env = {"HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": "relative"}
    assert find_config_path(env, root=tmp_path) == home


def test_find_nothing(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path / "home"), "NASTUI_CONFIG": ""}
    assert find_config_path(env, root=tmp_path) is None


# ---------------------------------------------------------------- chassis


def test_preset_is_case_insensitive_and_renumbered() -> None:
    config = parse('[chassis]\npreset = " RV-4324 "\norder = "columns"\norigin = "bottom-right"\n')
    face = config.chassis.layout.faces[0]
    assert config.chassis.layout.preset == "rv-4324"
    assert (face.order, face.origin, face.first) == (Order.COLUMNS, Origin.BOTTOM_RIGHT, 0)


def test_preset_first_numbers_later_faces_on() -> None:
    config = parse('[chassis]\npreset = "supermicro-cse-847"\nfirst = 1\nname = "Big box"\n')
    layout = config.chassis.layout
    assert [f.first for f in layout.faces] == [1, 25]
    assert layout.name == "Big box"


def test_custom_shorthand() -> None:
    config = parse('[chassis]\nname = "Mini"\nrows = 2\ncolumns = 3\nholes = [[1, 2]]\nfirst = 1\n')
    layout = config.chassis.layout
    assert (layout.name, layout.preset, layout.bay_count) == ("Mini", "custom", 5)
    assert layout.faces[0].holes == frozenset({(1, 2)})
    assert layout.faces[0].first == 1


def test_custom_faces_follow_on_and_are_ordered_front_first() -> None:
    config = parse(
        "[chassis]\n"
        '[[chassis.face]]\nside = "top"\nrows = 1\ncolumns = 4\n'
        '[[chassis.face]]\nside = "front"\nrows = 2\ncolumns = 2\norder = "columns"\n'
        '[[chassis.face]]\nside = "rear"\nrows = 1\ncolumns = 2\nfirst = 100\n'
    )
    faces = config.chassis.layout.faces
    assert [(f.side, f.first) for f in faces] == [(Side.FRONT, 4), (Side.REAR, 100), (Side.TOP, 0)]
    assert faces[0].order is Order.COLUMNS


def test_bindings_record_their_lines() -> None:
    config = parse(
        '[chassis]\npreset = "rv-4324"\nempty = [0]\n\n'
        '[[chassis.bay]]\nbay = 5\nserial = "PK1"\n\n'
        '[[chassis.bay]]\nbay = 6\nby_id = "/dev/disk/by-id/ata-X"\n'
    )
    first, second = config.chassis.bindings
    assert (first.bay, first.serial, first.line) == (5, "PK1", 5)
    assert (second.bay, second.by_id, second.line) == (6, "/dev/disk/by-id/ata-X", 9)
    assert config.chassis.empty == frozenset({0})


def test_bindings_as_inline_tables() -> None:
    config = parse(
        '[chassis]\npreset = "desktop-4"\nbay = [\n  { bay = 0, enclosure = "0:1" },\n'
        '  { bay = 1, by_path = "pci-0000:00:17.0-ata-2" },\n]\n'
    )
    assert [(b.bay, b.line) for b in config.chassis.bindings] == [(0, 4), (1, 5)]


# ---------------------------------------------------------------- thresholds


def test_thresholds_merge_with_defaults() -> None:
    config = parse(
        "[thresholds]\nstale_after = 600\n[thresholds.ssd]\nwarning = 55\n"
        "[[thresholds.attribute]]\nid = 5\ncritical = false\n"
        "[[thresholds.attribute]]\nid = 199\nwarning = 1\n"
    )
    t = config.thresholds
    assert t.temps[DriveClass.SSD] == TempLimits(55.0, 70.0)
    assert t.temps[DriveClass.HDD] == TempLimits(50.0, 55.0)
    assert t.stale_after_s == 600.0
    assert t.attribute(5) == AttributeLimit(5, 1, None)
    assert t.attribute(199) == AttributeLimit(199, 1, None)
    assert t.attribute(197) == AttributeLimit(197, 1, 50)
    assert [a.attr_id for a in t.attributes] == sorted(a.attr_id for a in t.attributes)


# ---------------------------------------------------------------- poll, ui, hostname


def test_poll_maps_to_fields() -> None:
    config = parse("[poll]\ntemperature = 15\nio = 0.5\ncommand_timeout = 60\n")
    assert (config.poll.temperature_s, config.poll.io_s) == (15.0, 0.5)
    assert config.poll.command_timeout_s == 60.0
    assert config.poll.smart_s == 300.0


@pytest.mark.parametrize(("value", "expected"), [('"truecolor"', "truecolor"), ("256", "256")])
def test_ui_colors(value: str, expected: str) -> None:
    config = parse(f"hostname = 'nas1'\n[ui]\nascii = true\ncolors = {value}\n")
    assert (config.hostname, config.ui.ascii, config.ui.colors) == ("nas1", True, expected)


# ---------------------------------------------------------------- fans and zones


def test_zones_and_fans() -> None:
    config = parse(
        '[[zone]]\nname = "drives"\ncurve = [[30, 20], [45, 100]]\ncurve_kind = "step"\n'
        "hysteresis = 3\nmin_duty = 25\n"
        '[[zone]]\nname = "cpu"\nsource = ["max", "cpu", "average-drives", "cpu"]\nmode = "pid"\n'
        "setpoint = 45\nkp = 2\n"
        '[[fan]]\nname = "f1"\ndriver = "hwmon"\nzone = "drives"\nhwmon_name = "nct6775"\npwm = 1\n'
        '[[fan]]\nname = "f2"\ndriver = "command"\nzone = "cpu"\nset_command = ["x", "{duty}"]\n'
    )
    drives, cpu = config.zones
    assert drives.sources == (FanSource.HOTTEST_DRIVE,)
    assert drives.curve.points == (CurvePoint(30.0, 20.0), CurvePoint(45.0, 100.0))
    assert (drives.curve.kind, drives.curve.hysteresis_c, drives.curve.min_duty) == (
        CurveKind.STEP,
        3.0,
        25.0,
    )
    assert cpu.sources == (FanSource.CPU, FanSource.AVERAGE_DRIVES)
    assert (cpu.mode, cpu.setpoint_c, cpu.kp, cpu.curve.points) == (
        ZoneMode.PID,
        45.0,
        2.0,
        DEFAULT_CURVE,
    )
    f1, f2 = config.fans
    assert (f1.driver, f1.pwm, f1.zone) == (FanDriver.HWMON, 1, "drives")
    assert (f2.driver, f2.set_command) == (FanDriver.COMMAND, ("x", "{duty}"))


# ---------------------------------------------------------------- alerts and hosts


def test_alerts() -> None:
    config = parse(
        '[alerts]\nrepeat_interval = 3600\nexec = ["/bin/notify"]\nwebhook = "https://h/x"\n'
        '[alerts.email]\nto = "a@example.org"\nfrom = "NAS <n@example.org>"\nhost = "smtp"\n'
        'security = "tls"\nusername = "n"\npassword_file = "secret"\n'
    )
    alerts = config.alerts
    assert (alerts.repeat_interval_s, alerts.exec_hook, alerts.webhook) == (
        3600.0,
        ("/bin/notify",),
        "https://h/x",
    )
    assert alerts.email is not None
    assert alerts.email.to == ("a@example.org",)
    assert (alerts.email.security, alerts.email.port) == (Security.TLS, 465)
    assert alerts.email.password_file == Path("/etc/nastui/secret")


def test_hosts() -> None:
    config = parse(
        '[[host]]\nname = "a"\naddress = "10.0.0.2"\nprofile = "synology"\ncommunity = "c"\n'
        '[[host]]\nname = "ups"\naddress = "u"\nversion = "3"\nuser = "me"\n'
        'auth_protocol = "sha-256"\nauth_password = "12345678"\npriv_password = "abcdefgh"\n'
        "timeout = 2.5\nretries = 0\n"
    )
    a, ups = config.hosts
    assert (a.profile, a.community, a.version) == (SnmpProfile.SYNOLOGY, "c", "2c")
    assert (ups.version, ups.user, ups.auth_protocol) == ("3", "me", "SHA-256")
    assert (ups.timeout_s, ups.retries) == (2.5, 0)


def test_host_passwords_from_files_and_variables() -> None:
    config = parse(
        '[[host]]\nname = "ups"\naddress = "u"\nversion = "3"\nuser = "me"\n'
        'auth_password_file = "ups-auth"\npriv_password_env = "UPS_PRIV"\n'
    )
    (ups,) = config.hosts
    assert (ups.auth_password_file, ups.priv_password_env) == (
        Path("/etc/nastui/ups-auth"),
        "UPS_PRIV",
    )
    with pytest.raises(ConfigError, match="sets both auth_password and auth_password_env"):
        parse(
            '[[host]]\nname = "u"\naddress = "u"\nversion = "3"\nuser = "me"\n'
            'auth_password = "12345678"\nauth_password_env = "X"\n'
        )


# ---------------------------------------------------------------- which problem is reported


def test_the_problem_nearest_the_top_is_reported() -> None:
    # Sections are checked in a fixed order (chassis before poll); the report follows the file.
    with pytest.raises(ConfigError) as info:
        parse('[poll]\nio = -1\n[chassis]\npreset = "nope"\n')
    assert info.value.line == 2
    assert info.value.key == "poll.io"


def test_a_broken_layout_does_not_add_bay_errors() -> None:
    with pytest.raises(ConfigError) as info:
        parse('[chassis]\nrows = 0\ncolumns = 2\n[[chassis.bay]]\nbay = 9\nserial = "x"\n')
    assert str(info.value) == "config.toml:2: chassis.rows must be an integer from 1 to 128, got 0"


def test_config_check_lists_every_problem_in_the_files_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`config check` names every problem, not the first only (issue 23 §1)."""
    from nastui import exits
    from nastui.cli.configcheck import config_check

    path = tmp_path / "config.toml"
    path.write_text('[poll]\nsmart = -1\n\n[ui]\ncolors = "many"\nascii = 3\n\n[bogus]\n')
    code = config_check(path, {}, io.StringIO())
    lines = capsys.readouterr().err.splitlines()
    assert code == exits.EX_CONFIG
    assert [line.split(": ")[1] for line in lines] == [
        "config.toml:2",
        "config.toml:5",
        "config.toml:6",
        "config.toml:8",
    ]
    with pytest.raises(ConfigError) as raised:
        load_config(path)
    assert str(raised.value) == lines[0].removeprefix("nastui: ")  # the others: the first only
