"""`nastui fand` as a real process against what cooks drives: `--full-speed` after a crash with
a broken configuration on disk, a FIFO where a sensor belongs (refused at once), a sensor read
that never returns (a SMART read of a drive that stopped answering), temperatures no sensor
could give, and reloads of huge or deeply nested files."""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fandbox import (
    CONFIG,
    ORIGINAL,
    Box,
    fand_argv,
    full_speed,
    in_control,
    make_box,
    running,
    wait_for,
)

pytestmark = pytest.mark.integration

PERIOD = "0.5"
QUICK = CONFIG + "\n[poll]\ncommand_timeout = 1  # reads stalled after 1.5 s\n"
AVERAGE = QUICK.replace("# follows the hottest drive", '\nsource = "average-drives"')

BROKEN = {
    "typo the daemon refused": CONFIG.replace("[40, 50]", "[40, 'fifty']"),
    "truncated save": CONFIG[: CONFIG.index("hwmon_name")] + "hwmon_na",
    "deep nesting": CONFIG + "x = " + "[" * 5000 + "]" * 5000 + "\n",
    "huge chassis": CONFIG + "[chassis]\nrows = 100000\ncolumns = 100000\n",
    "not UTF-8": CONFIG.replace("test box", "test b\udcffx"),
}


@pytest.fixture
def box(tmp_path: Path) -> Box:
    return make_box(tmp_path, QUICK)


@pytest.fixture
def daemon(box: Box) -> Iterator[subprocess.Popen[bytes]]:
    with running(box, fand_argv(box, "--period", PERIOD)) as proc:
        yield proc


@pytest.mark.parametrize("text", BROKEN.values(), ids=BROKEN.keys())
def test_full_speed_after_a_crash_with_a_broken_file(
    box: Box, daemon: subprocess.Popen[bytes], text: str
) -> None:
    wait_for(lambda: in_control(box))
    daemon.kill()
    daemon.wait(timeout=10)
    box.config.write_bytes(text.encode("utf-8", errors="surrogateescape"))
    result = full_speed(box)
    assert result.returncode == 0, result.stdout + result.stderr
    assert box.state() == ("1", "255")
    lines = result.stdout.splitlines()
    pwm2 = box.hwmon.resolve() / "pwm2"  # full speed first, the file read only after it
    assert lines[0] == f"hwmon nct6779 pwm2: full speed [{pwm2}_enable = 1; {pwm2} = 255]"
    assert lines[1].startswith("fand --full-speed: configuration invalid (config.toml")


def test_full_speed_runs_the_ipmi_commands_of_a_broken_file(box: Box, tmp_path: Path) -> None:
    calls = tmp_path / "ipmitool.calls"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "ipmitool"  # `ipmitool raw` prints nothing when the BMC accepts
    fake.write_text(f'#!/bin/sh\necho "$*" >> {calls}\n')
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    box.config.write_text(
        BROKEN["typo the daemon refused"]
        + '[[fan]]\nname = "bmc"\ndriver = "ipmi-supermicro"\nzone = "drives"\nipmi_zone = 1\n'
        + '[[fan]]\nname = "idrac"\ndriver = "ipmi-dell"\nzone = "drives"\nipmi_zone = 0\n'
        + '[[fan]]\nname = "script"\ndriver = "command"\nzone = "drives"\n'
        + 'set_command = ["/bin/touch", "/tmp/never-{duty}"]\n'
    )
    result = full_speed(box, {"PATH": f"{bin_dir}:{os.environ['PATH']}"})
    assert result.returncode == 0, result.stdout + result.stderr
    assert calls.read_text().splitlines() == [
        "raw 0x30 0x45 0x01 0x01",  # Supermicro fan mode Full
        "raw 0x30 0x30 0x01 0x00",  # Dell manual mode
        "raw 0x30 0x30 0x02 0xff 0x64",  # Dell every fan at 100 %
    ]
    skipped = "fand --full-speed: fan script: its command is not run from an invalid configuration"
    assert skipped in result.stdout
    assert "fan bmc: full speed [ipmitool raw 0x30 0x45 0x01 0x01]" in result.stdout
    assert not Path("/tmp/never-100").exists()
    assert box.state() == ("1", "255")


def test_a_fifo_for_a_sensor_is_a_lost_sensor_at_once_and_sigterm_still_restores(
    box: Box, daemon: subprocess.Popen[bytes]
) -> None:
    """A FIFO where drivetemp's reading belongs is refused without waiting (sysfs reads go
    through nastui.safeio: regular files only, opened non-blocking): the sensor is lost at once,
    never a read that blocks the loop."""
    wait_for(lambda: in_control(box))
    fifo = box.temps[1]
    fifo.unlink()
    os.mkfifo(fifo)
    wait_for(lambda: box.state() == ("1", "255"))
    wait_for(lambda: "zone drives: FAIL-SAFE 100 %: sdb: no temperature" in box.text())
    daemon.send_signal(signal.SIGTERM)
    assert daemon.wait(timeout=10) == 0
    assert box.state() == ORIGINAL
    assert box.text().endswith("fand: stopped (exit 0)\n")


def hanging_smartctl(tmp_path: Path) -> tuple[dict[str, str], Path, Path]:
    """A `smartctl` first on PATH that hangs (a read that never returns: a drive that stopped
    answering) once the trigger file exists; (environment, trigger, the file it touches when
    it hangs)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    trigger, hung = tmp_path / "hang", tmp_path / "hung"
    fake = bin_dir / "smartctl"
    fake.write_text(
        f"#!/bin/sh\nif [ -e {trigger} ]; then echo $$ >> {hung}; exec sleep 600; fi\nexit 2\n"
    )
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    env = {"PATH": f"{bin_dir}:{os.environ['PATH']}", "NASTUI_ROOT_TOOLS": "path"}
    return env, trigger, hung  # NASTUI_ROOT_TOOLS: the fake answers for the fake --root tree


def test_sigterm_during_a_stalled_read_does_not_wait_for_the_deadline(tmp_path: Path) -> None:
    config = CONFIG + "\n[poll]\ncommand_timeout = 600\nsmart = 1\n"  # deadline 600.5 s
    box = make_box(tmp_path, config)
    env, trigger, hung = hanging_smartctl(tmp_path)
    try:
        with running(box, fand_argv(box, "--period", PERIOD), env=env) as daemon:
            wait_for(lambda: in_control(box))
            trigger.touch()
            wait_for(hung.exists)  # the reader thread waits on a SMART read that never returns
            daemon.send_signal(signal.SIGTERM)
            assert daemon.wait(timeout=20) == 0
    finally:  # the hanging fakes outlive the daemon (their own sessions): end them
        for pid in hung.read_text().split() if hung.exists() else []:
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(pid), signal.SIGKILL)
    assert box.state() == ORIGINAL
    assert "sensor reads stalled" in box.text()  # the interrupted wait counted as lost


@pytest.mark.parametrize(
    ("millidegrees", "why"),
    [
        ("0", "implausible temperature 0 C (outside 1..110 C)"),
        ("-40000", "implausible temperature -40 C"),
        ("-100000000000000000000000", "implausible temperature -1e+20 C"),
        ("127000", "implausible temperature 127 C"),
        ("2000", "implausible temperature jump 44 -> 2 C in "),  # lost for 37 s at least
    ],
)
def test_an_implausible_temperature_is_a_lost_sensor(
    tmp_path: Path, millidegrees: str, why: str
) -> None:
    box = make_box(tmp_path, AVERAGE, temps_c=(44, 44))
    with running(box, fand_argv(box, "--period", PERIOD)) as daemon:
        wait_for(lambda: box.state() == ("1", "230"))  # average 44 C: 90 %
        box.temps[1].write_text(f"{millidegrees}\n")
        wait_for(lambda: box.state() == ("1", "255"))
        wait_for(lambda: f"zone drives: FAIL-SAFE 100 %: sdb: {why}" in box.text())
        daemon.send_signal(signal.SIGTERM)
        assert daemon.wait(timeout=10) == 0
    if "jump" not in why:  # out of range for good: never believed (before: 20 %)
        assert "zone drives: 20 %" not in box.text()


RELOADS = {
    "huge chassis": "[chassis]\nrows = 100000\ncolumns = 100000\n",
    "many faces": "[[chassis.face]]\nrows = 32\ncolumns = 32\n" * 3000,
    "deep array": "x = " + "[" * 100_000 + "]" * 100_000 + "\n",
    "deep table": "x = " + "{a = " * 3000 + "1" + "}" * 3000 + "\n",
    "stale periods 1e22": "",
    "period 1e-300": "",
    "emptied": "",
    "saved half-way": "",
}


@pytest.mark.parametrize("name", RELOADS)
@pytest.mark.parametrize("how", ["saved", "SIGHUP"])
def test_a_huge_or_deep_reload_is_refused_and_the_loop_runs_on(
    box: Box, daemon: subprocess.Popen[bytes], name: str, how: str
) -> None:
    wait_for(lambda: in_control(box))
    text = QUICK + RELOADS[name]
    if name == "stale periods 1e22":
        text = text.replace("[[fan]]", "stale_periods = 10000000000000000000000\n\n[[fan]]")
    if name == "period 1e-300":
        text = text.replace("[poll]\n", "[poll]\nfans = 1e-300\n")
    if name == "emptied":
        text = ""
    if name == "saved half-way":  # valid TOML: the zone, not yet its fan
        text = QUICK[: QUICK.index("[[fan]]")]
    box.config.write_text(text)
    if how == "SIGHUP":
        daemon.send_signal(signal.SIGHUP)
    wait_for(lambda: "configuration not reloaded, keeping the running one: " in box.text())
    refusal = next(line for line in box.text().splitlines() if "not reloaded" in line)
    assert refusal.startswith("configuration not reloaded, keeping the running one: config.toml")
    box.temps[1].write_text("43000\n")  # the loop still runs the old curve: 43 C is 80 %
    wait_for(lambda: box.state() == ("1", "204"))
    assert daemon.poll() is None
    daemon.send_signal(signal.SIGTERM)
    assert daemon.wait(timeout=10) == 0
    assert box.state() == ORIGINAL
