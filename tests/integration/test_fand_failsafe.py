"""`nastui fand` as a real process on a fake hwmon tree, the way systemd runs it: a drive
temperature that disappears sends the fan to full speed within one period; SIGTERM and SIGINT
give the fan back as it was found; SIGHUP with a broken file keeps the running configuration;
after a SIGKILL the unit's `ExecStopPost` (`fand --full-speed`) leaves the fan at 255."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.fakehwmon import add_chip, read
from tests.fakesys import SATA_PARENT, FakeDisk, build

pytestmark = pytest.mark.integration

PERIOD = 0.5
SLACK = 0.3  # scheduling and one collection of a tiny tree; measured 10-40 ms
ORIGINAL = ("5", "100")  # pwm2_enable (SmartFan IV), pwm2

CONFIG = """\
# test box: fan wall on the Super I/O's second header
[[zone]]
name = "drives"  # follows the hottest drive
curve = [[30, 20], [40, 50], [45, 100]]

[[fan]]
name = "front"
driver = "hwmon"
zone = "drives"
hwmon_name = "nct6779"
hwmon_device = "/sys/devices/platform/nct6775.656"
pwm = 2
"""


@dataclass
class Box:
    root: Path
    config: Path
    hwmon: Path
    temps: list[Path]
    log: Path

    def state(self) -> tuple[str, str]:
        return read(self.hwmon / "pwm2_enable"), read(self.hwmon / "pwm2")

    def text(self) -> str:
        return self.log.read_text()


@pytest.fixture
def box(tmp_path: Path) -> Box:
    root = tmp_path / "root"
    disks = [
        FakeDisk("sda", SATA_PARENT.format(n=0), temp_millic=36000),
        FakeDisk("sdb", SATA_PARENT.format(n=1), temp_millic=38000),
    ]
    build(root, disks)
    hwmon = add_chip(root, fans={2: 1100}, pwms={2: (100, 5)})
    temps = sorted(root.glob("sys/devices/**/hwmon/hwmon[01]/temp1_input"))
    assert len(temps) == 2
    config = tmp_path / "config.toml"
    config.write_text(CONFIG)
    return Box(root, config, hwmon, temps, tmp_path / "fand.log")


def fand_argv(box: Box, *extra: str) -> list[str]:
    return [
        sys.executable, "-m", "nastui", "fand",
        "--root", str(box.root), "--config", str(box.config), *extra,
    ]  # fmt: skip


@pytest.fixture
def daemon(box: Box) -> Iterator[subprocess.Popen[bytes]]:
    env = {k: v for k, v in os.environ.items() if k != "NASTUI_CONFIG"}
    with box.log.open("wb") as log:
        proc = subprocess.Popen(
            fand_argv(box, "--period", str(PERIOD)),
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=REPO,
            env=env,
        )
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=10)


def wait_for(what: Callable[[], bool], timeout: float = 10.0, step: float = 0.01) -> float:
    """Seconds until `what()` held; fails after `timeout`."""
    start = time.monotonic()
    while not what():
        if time.monotonic() - start > timeout:
            pytest.fail(f"timed out after {timeout} s")
        time.sleep(step)
    return time.monotonic() - start


def in_control(box: Box) -> bool:
    return box.state() == ("1", "112")  # hottest 38 C on the curve: 44 %


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
    env = {k: v for k, v in os.environ.items() if k != "NASTUI_CONFIG"}
    result = subprocess.run(
        fand_argv(box, "--full-speed"),
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert box.state() == ("1", "255")
