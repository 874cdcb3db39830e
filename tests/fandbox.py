"""A box for `nastui fand` as a real process: a fake /sys with two SATA drives (drivetemp)
and a Super I/O chip whose pwm2 drives the fan wall, a configuration file, and the daemon
started the way systemd starts it (stdout to a log file)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests import waiting
from tests.conftest import REPO
from tests.fakehwmon import add_chip, read
from tests.fakesys import SATA_PARENT, FakeDisk, build
from tests.waiting import DEADLINE_S

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


def full_speed(box: Box, env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`nastui fand --full-speed` on the box, as the unit's ExecStopPost runs it."""
    return subprocess.run(
        fand_argv(box, "--full-speed"),
        capture_output=True,
        text=True,
        env=clean_env(env),
        timeout=60,
        check=False,
    )


@contextmanager
def running(
    box: Box, argv: list[str], env: Mapping[str, str] | None = None, repo: Path = REPO
) -> Iterator[subprocess.Popen[bytes]]:
    """The daemon as a child process (nastui from `repo`: another checkout for before-and-
    after figures), killed if a test leaves it running."""
    with box.log.open("wb") as log:
        proc = subprocess.Popen(
            argv, stdout=log, stderr=subprocess.STDOUT, cwd=repo, env=clean_env(env)
        )
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=10)


def wait_for(what: Callable[[], bool], timeout: float = DEADLINE_S, step: float = 0.01) -> float:
    """Seconds until `what()` held (`tests.waiting.wait_for`: a generous deadline, the daemon
    starts in seconds on a loaded machine); fails after `timeout`."""
    start = time.monotonic()
    waiting.wait_for(what, timeout=timeout, step=step)
    return time.monotonic() - start


def in_control(box: Box) -> bool:
    """The daemon drives pwm2 on the curve: hottest 38 C is 44 %."""
    return box.state() == ("1", "112")


State = tuple[str, str]


class Sampler:
    """(pwm2_enable, pwm2) read every `step` seconds on a thread while inside `with`: how long
    the fan spent in a state, measured from outside the daemon."""

    def __init__(self, box: Box, step: float = 0.01) -> None:
        self.box = box
        self.step = step
        self.samples: list[tuple[float, State]] = []
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, name="sampler", daemon=True)

    def _run(self) -> None:
        while not self._done.is_set():
            with contextlib.suppress(OSError):
                self.samples.append((time.monotonic(), self.box.state()))
            self._done.wait(self.step)

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._done.set()
        self._thread.join(timeout=5)

    @property
    def span(self) -> float:
        """Seconds from the first sample to the last."""
        return self.samples[-1][0] - self.samples[0][0] if self.samples else 0.0

    def seconds(self, held: Callable[[State], bool]) -> float:
        """Seconds during which `held(state)` was true (each sample counts until the next)."""
        pairs = zip(self.samples, self.samples[1:], strict=False)
        return sum(b[0] - a[0] for a, b in pairs if held(a[1]))

    def longest(self, held: Callable[[State], bool]) -> float:
        """The longest unbroken stretch, in seconds, during which `held(state)` was true."""
        best, start = 0.0, None
        for at, state in self.samples:
            if held(state):
                start = at if start is None else start
                best = max(best, at - start)
            else:
                start = None
        return best


@contextmanager
def rewriting(write: Callable[[int], None], every: float) -> Iterator[list[int]]:
    """`write(i)` at once and then every `every` seconds on a thread (i = 0, 1, ...): a BIOS
    taking a fan back, a flapping sensor. Yields the list of `i` done so far."""
    done: list[int] = []
    stop = threading.Event()

    def run() -> None:
        while not stop.is_set():
            with contextlib.suppress(OSError):
                write(len(done))
            done.append(len(done))
            stop.wait(every)

    thread = threading.Thread(target=run, name="rewriting", daemon=True)
    thread.start()
    try:
        yield done
    finally:
        stop.set()
        thread.join(timeout=5)


def bios(box: Box) -> Callable[[int], None]:
    """A BIOS taking pwm2 back: SmartFan mode 5, duty 60 (23 %)."""

    def take_back(_: int) -> None:
        (box.hwmon / "pwm2_enable").write_text("5\n")
        (box.hwmon / "pwm2").write_text("60\n")

    return take_back
