"""`nastui fans [--json]`: what the fans do now, read only (it was "invalid choice").

On the demo's boxes (a dead fan in `hot-bay`), on a fake /sys with a Super I/O chip whose pwm2
the BIOS or a fand holds (tests/fandbox.py's box), and on a box with no fans. Every text line
fits 80 columns and is ASCII on a serial console; the tree is byte for byte the same after.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from nastui.collectors.procs import fand_pids, is_fand
from nastui.fans.logic.curve import curve_duty
from nastui.fans.logic.owner import Controller, FanSetup, control_of
from nastui.model import FanCurve
from nastui.model.fanzone import DEFAULT_CURVE
from tests.cli.test_demo_footprint import WRITE_CALLS, written
from tests.cli.test_export_cli import nastui
from tests.conftest import require_tool
from tests.fakehwmon import add_chip
from tests.fakesys import SATA_PARENT, FakeDisk, build
from tests.fandbox import Box, make_box

SCENARIOS = ("healthy-24-bay", "hot-bay", "mixed", "datacenter-102")
FAND_ARGV = "/usr/bin/python3\0/usr/local/bin/nastui\0fand\0"


def fans(*argv: str, env: dict[str, str] | None = None) -> str:
    done = nastui(*argv, env={"TERM": "vt100", **(env or {})})
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    return done.stdout


def fans_json(*argv: str) -> dict[str, Any]:
    data = json.loads(fans(*argv, "--json"))
    assert isinstance(data, dict)
    return data


def assert_console(text: str) -> None:
    too_wide = [line for line in text.splitlines() if len(line) > 80]
    assert not too_wide, too_wide
    assert text.isascii(), [line for line in text.splitlines() if not line.isascii()]


def checksums(root: Path) -> dict[str, str]:
    """Every file and link under `root` with its content's digest (links: their target)."""
    sums = {}
    for path in sorted(root.rglob("*")):
        if path.is_symlink():
            sums[str(path)] = f"-> {path.readlink()}"
        elif path.is_file():
            sums[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return sums


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_every_demo_fan_with_its_zone(scenario: str) -> None:
    # No state directory: the demo's clock stands at SIM_EPOCH, so the three runs read the same
    # RPMs (with one, each runs at the wall clock's second, and the fans drift between them).
    env = {"NASTUI_STATE_DIR": "", "XDG_STATE_HOME": "", "HOME": ""}
    text = fans("--scenario", scenario, "fans", env=env)
    assert_console(text)
    data = json.loads(fans("--scenario", scenario, "fans", "--json", env=env))
    status = json.loads(nastui("--scenario", scenario, "status", "--json", env=env).stdout)
    assert [f["name"] for f in data["fans"]] == [f["name"] for f in status["fans"]]
    lines = text.splitlines()
    assert lines[0].endswith("; simulated (nastui fand --demo only prints)")
    for fan in data["fans"]:
        row = next(line for line in lines if line.split()[:1] == [fan["name"]])
        duty = f"{fan['duty_percent']:.0f}%"
        assert row.split()[1:5] == [fan["zone"], str(fan["rpm"]), duty, "simulator"]
        assert fan["controller"] == "simulator"
    for zone in data["zones"]:
        assert not zone["configured"]  # the demo has no [[zone]]: drafts, as the fans screen
        assert f"zone {zone['name']}: hottest-drive, the default curve" in text
        assert zone["temperature_from"].startswith("hottest drive ")
        assert f"the curve gives {zone['duty_percent']:.0f}% now" in text
    stalled = [f["name"] for f in data["fans"] if f["stalled"]]
    assert stalled == (["fan-wall-2"] if scenario == "hot-bay" else [])
    assert ("STALLED: 0 RPM at 45% duty" in text) == (scenario == "hot-bay")


def test_hot_bay_zone_follows_the_hot_drive() -> None:
    """The zone's duty is the default curve's at its hottest drive (the fans screen's draft),
    high above the 45 % the simulated fans run at."""
    data = fans_json("--scenario", "hot-bay", "fans")
    drives = next(z for z in data["zones"] if z["name"] == "drives")
    temp = drives["temperature_c"]
    assert temp >= 45 and drives["duty_percent"] == curve_duty(FanCurve(DEFAULT_CURVE), temp)
    assert drives["fans"] == ["fan-wall-1", "fan-wall-2", "fan-wall-3"]


def test_ascii_flag_in_a_utf8_terminal() -> None:
    done = nastui("--scenario", "hot-bay", "--ascii", "fans", env={"TERM": "xterm-256color"})
    assert done.returncode == 0 and done.stdout.isascii()
    unicode = nastui("--scenario", "hot-bay", "fans", env={"TERM": "xterm-256color"}).stdout
    assert "°C" in unicode  # the glyph set decides: UTF-8 gets the degree sign


def _box(tmp_path: Path, enable: int, proc: str | None) -> Box:
    box = make_box(tmp_path)
    (box.hwmon / "pwm2_enable").write_text(f"{enable}\n")
    if proc is not None:
        (box.root / "proc/812").mkdir(parents=True)
        (box.root / "proc/812/cmdline").write_text(proc)
        (box.root / "proc/1").mkdir()
        (box.root / "proc/1/cmdline").write_text("/sbin/init\0")
    return box


@pytest.mark.parametrize(
    ("enable", "proc", "by", "detail"),
    [
        (5, None, "BIOS/BMC", "pwm2_enable=5: the chip's automatic mode (BIOS)"),
        (5, FAND_ARGV, "BIOS/BMC", "taken back from nastui fand (pid 812)"),
        (1, FAND_ARGV, "fand", "nastui fand (pid 812), pwm2_enable=1 (manual)"),
        (1, "/usr/sbin/fancontrol\0", "unknown", "but no nastui fand runs"),
        (1, None, "unknown", "pwm2_enable=1 (manual): fand or another tool"),
        (0, None, "BIOS/BMC", "pwm2_enable=0: no control, full speed"),
    ],
)
def test_who_drives_a_hwmon_fan(
    tmp_path: Path, enable: int, proc: str | None, by: str, detail: str
) -> None:
    """A machine tree: the fan's `pwmN_enable` and the processes say who has it, as fand tells
    a BIOS taking the fan back; nothing under the tree changes."""
    box = _box(tmp_path, enable, proc)
    before = checksums(tmp_path)
    argv = ("--root", str(box.root), "--config", str(box.config), "fans")
    text = fans(*argv, env={"NASTUI_STATE_DIR": str(tmp_path / "state")})
    assert_console(text)
    row = next(line for line in text.splitlines() if line.startswith("front "))
    assert row.split() == ["front", "drives", "1100", "39%", by]
    assert detail in " ".join(text.split())
    assert "zone drives: hottest-drive, curve" in text
    assert "hottest drive sdb 38 C: the curve gives 44% now; its fans run at 39%" in text
    data = fans_json(*argv)
    assert data["fans"][0]["pwm_enable"] == enable
    assert data["fand_pids"] == ([812] if proc == FAND_ARGV else [] if proc else None)
    assert checksums(tmp_path) == before  # the state dir is made under tmp_path only if used
    assert not (tmp_path / "state").exists()


def test_a_stalled_hwmon_fan_and_one_in_no_zone(tmp_path: Path) -> None:
    box = make_box(tmp_path)
    (box.hwmon / "fan2_input").write_text("0\n")
    add_chip(box.root, "it8728", device="devices/platform/it87.2608", index=14, fans={3: 700})
    argv = ("--root", str(box.root), "--config", str(box.config), "fans")
    text = fans(*argv)
    assert_console(text)
    assert "    ! STALLED: 0 RPM at 39% duty: dead or unplugged" in text.splitlines()
    row = next(line for line in text.splitlines() if line.startswith("it8728 fan3"))
    assert row.split()[2:] == ["-", "700", "?", "unknown"]
    data = fans_json(*argv)
    free = next(f for f in data["fans"] if f["name"] == "it8728 fan3")
    assert free["zone"] is None and free["controller"] == "unknown"
    assert data["zones"][0]["fans"] == ["front"]


def test_a_blind_zone_is_fail_safe(tmp_path: Path) -> None:
    """An awake drive without a temperature: the zone's curve gives 100 %, and says why."""
    box = make_box(tmp_path)
    for temp in box.temps:
        temp.unlink()
    text = fans("--root", str(box.root), "--config", str(box.config), "fans")
    assert "    FAIL-SAFE 100%: sda: no temperature; its fans run at 39%" in text.splitlines()


def test_no_fans_is_one_line(tmp_path: Path) -> None:
    root = build(tmp_path / "root", [FakeDisk("sda", SATA_PARENT.format(n=0))])
    config = tmp_path / "config.toml"
    config.write_text("")
    argv = ("--root", str(root), "--config", str(config), "fans")
    assert fans(*argv) == (
        "no fans found: add [[fan]] and [[zone]] tables, as `nastui config init -` shows\n"
    )
    data = fans_json(*argv)
    assert (data["fans"], data["zones"], data["errors"]) == ([], [], [])


def test_a_configured_chip_not_found(tmp_path: Path) -> None:
    """The fan still shows (unknown RPM and duty), with the collector's one line why."""
    box = make_box(tmp_path)
    box.config.write_text(box.config.read_text().replace("nct6779", "nct6798"))
    text = fans("--root", str(box.root), "--config", str(box.config), "fans")
    assert_console(text)
    row = next(line for line in text.splitlines() if line.startswith("front "))
    assert row.split() == ["front", "drives", "?", "?", "unknown"]
    assert "fan:front: fan front: no hwmon chip nct6798 at /sys/devices/platform/" in text


def test_fand_argument_lists() -> None:
    assert is_fand(["/usr/bin/python3", "/usr/local/bin/nastui", "fand"])
    assert is_fand(["python3", "-m", "nastui", "--root", "/x", "fand", "--once"])
    assert not is_fand(["python3", "-m", "nastui", "fand", "--full-speed"])
    assert not is_fand(["nastui", "fans"])
    assert not is_fand(["nastui", "--config", "fand", "status"])
    assert not is_fand(["vim", "fand"])


def test_fand_pids_of_a_tree(tmp_path: Path) -> None:
    assert fand_pids(tmp_path) is None  # no process directories: cannot tell
    for pid, argv in ((7, FAND_ARGV), (9, "bash\0"), (12, FAND_ARGV)):
        (tmp_path / f"proc/{pid}").mkdir(parents=True)
        (tmp_path / f"proc/{pid}/cmdline").write_text(argv)
    os.mkfifo(tmp_path / "proc/12/cmdline.fifo")
    (tmp_path / "proc/13").mkdir()
    os.mkfifo(tmp_path / "proc/13/cmdline")  # never opened for a blocking read
    assert fand_pids(tmp_path) == (7, 12)


@pytest.mark.parametrize(
    ("setup", "pids", "by"),
    [
        (FanSetup("ipmi-supermicro", True), (5,), Controller.FAND),
        (FanSetup("ipmi-supermicro", True), (), Controller.BIOS),
        (FanSetup("ipmi-dell", True), None, Controller.UNKNOWN),
        (FanSetup("ipmi", False), (5,), Controller.BIOS),
        (FanSetup("command", True), (), Controller.UNKNOWN),
        (FanSetup("command", True), (5,), Controller.FAND),
        (FanSetup("hwmon", False), (5,), Controller.UNKNOWN),
        (FanSetup("hwmon", True, 2, None), (5,), Controller.UNKNOWN),
        (FanSetup("hwmon", True, 2, 2), (5,), Controller.BIOS),
        (FanSetup("sim", True), None, Controller.SIMULATOR),
    ],
)
def test_who_drives_other_fans(
    setup: FanSetup, pids: tuple[int, ...] | None, by: Controller
) -> None:
    assert control_of(setup, pids).by is by


@pytest.mark.integration
@pytest.mark.subprocess
def test_a_machine_run_writes_nothing(tmp_path: Path) -> None:
    """Traced by strace: no path opened for writing, made, renamed or removed (the fan files
    are read, never written, whoever holds the fan)."""
    strace = require_tool("strace", "strace")
    box = _box(tmp_path, 1, FAND_ARGV)
    log = tmp_path / "trace"
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "NASTUI_STATE_DIR": str(tmp_path / "s")}
    argv = ["--root", str(box.root), "--config", str(box.config), "fans"]
    traced = [strace, "-f", "-qq", "-e", f"trace={WRITE_CALLS}", "-o", str(log)]
    for extra in ([], ["--json"]):
        done = subprocess.run(
            [*traced, sys.executable, "-m", "nastui", *argv, *extra],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert "fand" in done.stdout
        assert written(log.read_text()) == set()
