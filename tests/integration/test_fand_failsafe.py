"""`nastui fand` as a real process on a fake hwmon tree, the way systemd runs it: a drive
temperature that disappears sends the fan to full speed within one period; SIGTERM and SIGINT
give the fan back as it was found; SIGHUP with a broken file keeps the running configuration;
after a SIGKILL the unit's `ExecStopPost` (`fand --full-speed`) leaves the fan at 255."""

from __future__ import annotations

import signal
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

PERIOD = 0.5
SLACK = 0.3  # scheduling and one collection of a tiny tree; measured 10-40 ms


@pytest.fixture
def box(tmp_path: Path) -> Box:
    return make_box(tmp_path)


@pytest.fixture
def daemon(box: Box) -> Iterator[subprocess.Popen[bytes]]:
    with running(box, fand_argv(box, "--period", str(PERIOD))) as proc:
        yield proc


def test_a_vanished_temperature_is_full_speed_within_one_period(
    box: Box, daemon: subprocess.Popen[bytes]
) -> None:
    wait_for(lambda: in_control(box))
    box.temps[1].unlink()  # sdb's drivetemp reading is gone
    took = wait_for(lambda: box.state()[1] == "255")
    assert took <= PERIOD + SLACK, f"full speed after {took:.2f} s, period {PERIOD} s"
    wait_for(lambda: "FAIL-SAFE 100 %: sdb: no temperature" in box.text())
    daemon.send_signal(signal.SIGTERM)
    assert daemon.wait(timeout=10) == 0
    assert box.state() == ORIGINAL


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_stop_signal_gives_the_fan_back(
    box: Box, daemon: subprocess.Popen[bytes], sig: signal.Signals
) -> None:
    wait_for(lambda: in_control(box))
    daemon.send_signal(sig)
    assert daemon.wait(timeout=10) == 0
    assert box.state() == ORIGINAL
    text = box.text()
    assert f"{sig.name}: giving the fans back and stopping" in text
    assert f"fan front: restored [{box.hwmon.resolve()}/pwm2 = 100; " in text
    assert text.endswith("fand: stopped (exit 0)\n")


def test_sighup_with_a_broken_file_keeps_the_running_configuration(
    box: Box, daemon: subprocess.Popen[bytes]
) -> None:
    wait_for(lambda: in_control(box))
    box.config.write_text(CONFIG.replace("[40, 50]", "[40, 'fifty']"))
    daemon.send_signal(signal.SIGHUP)
    wait_for(lambda: "configuration not reloaded" in box.text())
    refusals = [line for line in box.text().splitlines() if "not reloaded" in line]
    assert len(refusals) == 1  # one line, not one per period
    assert refusals[0].startswith("configuration not reloaded, keeping the running one: ")
    assert daemon.poll() is None and in_control(box)
    box.config.write_text(CONFIG.replace("[40, 50]", "[40, 60]"))  # fixed: picked up by itself
    wait_for(lambda: box.state() == ("1", "133"))  # 38 C is now 52 %
    assert "configuration reloaded from" in box.text()


def test_after_sigkill_the_units_stop_post_forces_full_speed(
    box: Box, daemon: subprocess.Popen[bytes]
) -> None:
    wait_for(lambda: in_control(box))
    daemon.kill()
    daemon.wait(timeout=10)
    assert box.state() == ("1", "112")  # killed: nothing could give it back
    result = full_speed(box)
    assert result.returncode == 0, result.stderr
    assert box.state() == ("1", "255")
