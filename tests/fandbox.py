"""A box for `nastui fand` as a real process: a fake /sys with two SATA drives (drivetemp)
and a Super I/O chip whose pwm2 drives the fan wall, a configuration file, and the daemon
started the way systemd starts it (stdout to a log file)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.fakehwmon import add_chip, read
from tests.fakesys import SATA_PARENT, FakeDisk, build

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
    """The fake tree, the configuration and the daemon's log."""

    root: Path
    config: Path
    hwmon: Path
    temps: list[Path]
    log: Path

    def state(self) -> tuple[str, str]:
        """(pwm2_enable, pwm2) as the daemon left them."""
        return read(self.hwmon / "pwm2_enable"), read(self.hwmon / "pwm2")

    def text(self) -> str:
        """The daemon's log so far."""
        return self.log.read_text()


def make_box(tmp_path: Path, config: str = CONFIG, temps_c: tuple[int, int] = (36, 38)) -> Box:
    """Two drives at `temps_c` and the chip; `config` written to config.toml."""
    root = tmp_path / "root"
    disks = [
        FakeDisk(f"sd{letter}", SATA_PARENT.format(n=n), temp_millic=temp * 1000)
        for n, (letter, temp) in enumerate(zip("ab", temps_c, strict=True))
    ]
    build(root, disks)
    hwmon = add_chip(root, fans={2: 1100}, pwms={2: (100, 5)})
    temps = sorted(root.glob("sys/devices/**/hwmon/hwmon[01]/temp1_input"))
    assert len(temps) == 2
    path = tmp_path / "config.toml"
    path.write_text(config)
    return Box(root, path, hwmon, temps, tmp_path / "fand.log")


def fand_argv(box: Box, *extra: str) -> list[str]:
    """`nastui fand` on the box."""
    return [
        sys.executable, "-m", "nastui", "fand",
        "--root", str(box.root), "--config", str(box.config), *extra,
    ]  # fmt: skip


def clean_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment without a configuration of the machine's own."""
    env = {k: v for k, v in os.environ.items() if k not in {"NASTUI_CONFIG", "NOTIFY_SOCKET"}}
    return {**env, **(extra or {})}


@contextmanager
def running(
    box: Box, argv: list[str], env: Mapping[str, str] | None = None
) -> Iterator[subprocess.Popen[bytes]]:
    """The daemon as a child process, killed if a test leaves it running."""
    with box.log.open("wb") as log:
        proc = subprocess.Popen(
            argv, stdout=log, stderr=subprocess.STDOUT, cwd=REPO, env=clean_env(env)
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
    """The daemon drives pwm2 on the curve: hottest 38 C is 44 %."""
    return box.state() == ("1", "112")
