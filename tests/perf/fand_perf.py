"""Fan daemon hazards of issue 20, measured on a fake hwmon tree against the real `nastui fand`
(period 0.5 s): printed, never asserted. `python -m tests.perf.fand_perf [REPO]` runs the
daemon from REPO (default: this checkout), so the same script gives the before figures when
pointed at an older checkout.

1. A "BIOS" setting `pwm2_enable=5, pwm2=60` every 3 s for 20 s during a fail-safe at 100 %:
   seconds under its control, the state at the end, log lines about it.
2. A drive reading that jumps 60 -> 5 C and sticks (average zone at 100 %): seconds below full
   and the lowest duty in the 7 s after the jump.
3. A drive reading alternating every period between 38 C and garbage, empty and `nan`:
   seconds below full in the 12 s after the first bad reading, lowest duty.
4. A FIFO in place of the configuration: SIGHUP (does the loop run on? SIGTERM's exit),
   `fand --full-speed` (time to full speed, exit), a stuck loop (time the watchdog takes to
   full speed). Each is given up after 30 s.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.conftest import REPO
from tests.fandbox import (
    CONFIG,
    Box,
    Sampler,
    State,
    bios,
    clean_env,
    fand_argv,
    in_control,
    make_box,
    rewriting,
    running,
)

PERIOD = "0.5"
GIVE_UP = 30.0
FULL = ("1", "255")
AVERAGE = CONFIG.replace("# follows the hottest drive", '\nsource = "average-drives"')
QUICK = CONFIG + "\n[poll]\ncommand_timeout = 1\n"


def _until(what: Callable[[], bool], timeout: float = GIVE_UP) -> float | None:
    """Seconds until `what()` held; None if it did not within `timeout`."""
    start = time.monotonic()
    while not what():
        if time.monotonic() - start > timeout:
            return None
        time.sleep(0.01)
    return time.monotonic() - start


def _shown(seconds: float | None) -> str:
    return f"{seconds:.2f} s" if seconds is not None else f"never (given up after {GIVE_UP:g} s)"


def _duty(state: State) -> str:
    value = state[1]
    return f"{round(int(value) * 100 / 255)} %" if value.isdigit() else repr(value)


def _lowest(sampler: Sampler) -> str:
    values = [int(s[1]) for _, s in sampler.samples if s[1].isdigit()]
    return f"{round(min(values) * 100 / 255)} %" if values else "-"


@contextmanager
def _box(config: str = CONFIG, temps: tuple[int, int] = (36, 38)) -> Iterator[Box]:
    with tempfile.TemporaryDirectory(prefix="fand-perf-") as tmp:
        yield make_box(Path(tmp), config, temps)


def _stop(daemon: subprocess.Popen[bytes]) -> str:
    daemon.send_signal(signal.SIGTERM)
    try:
        return f"exit {daemon.wait(timeout=10)}"
    except subprocess.TimeoutExpired:
        return "SIGTERM ignored for 10 s (killed)"


def bios_case(repo: Path) -> None:
    with _box() as box, running(box, fand_argv(box, "--period", PERIOD), repo=repo) as daemon:
        _until(lambda: in_control(box))
        box.temps[1].unlink()  # a fail-safe at 100 %
        _until(lambda: box.state() == FULL)
        with Sampler(box) as sampler, rewriting(bios(box), every=3.0):
            time.sleep(20.0)
        end = box.state()
        _stop(daemon)
        told = sum("taken back" in line for line in box.text().splitlines())
    under = sampler.seconds(lambda s: s != FULL)
    print(
        f"  BIOS every 3 s during a fail-safe: under its control {under:.1f} of "
        f"{sampler.span:.1f} s (at most {sampler.longest(lambda s: s != FULL):.2f} s at a time), "
        f"{_duty(end)} at the end, {told} log lines about it"
    )


def jump_case(repo: Path) -> None:
    with (
        _box(AVERAGE, (60, 60)) as box,
        running(box, fand_argv(box, "--period", PERIOD), repo=repo) as daemon,
    ):
        _until(lambda: box.state() == FULL)
        with Sampler(box) as sampler:
            box.temps[1].write_text("5000\n")
            time.sleep(7.0)
        _stop(daemon)
    below = sampler.seconds(lambda s: s != FULL)
    print(
        f"  60 -> 5 C and stuck: {below:.1f} of {sampler.span:.1f} s below full, "
        f"lowest {_lowest(sampler)}"
    )


def flap_case(repo: Path, bad: str) -> None:
    with _box() as box, running(box, fand_argv(box, "--period", PERIOD), repo=repo) as daemon:
        _until(lambda: in_control(box))
        values = ["38000", bad]

        def flap(i: int) -> None:
            box.temps[1].write_text(f"{values[i % 2]}\n")

        with rewriting(flap, every=float(PERIOD)):
            _until(lambda: box.state() == FULL)  # the first bad reading
            with Sampler(box) as sampler:
                time.sleep(12.0)
        _stop(daemon)
    below = sampler.seconds(lambda s: s != FULL)
    print(
        f"  38 C alternating with {bad or 'empty'!r}: {below:.1f} of {sampler.span:.1f} s "
        f"below full, lowest {_lowest(sampler)}"
    )


@contextmanager
def _fifo(path: Path) -> Iterator[None]:
    path.unlink()
    os.mkfifo(path)
    try:
        yield
    finally:
        try:  # answer a reader still waiting, if any
            fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
            os.close(fd)
        except OSError:
            pass


def fifo_cases(repo: Path) -> None:
    with _box(QUICK) as box, running(box, fand_argv(box, "--period", PERIOD), repo=repo) as daemon:
        _until(lambda: in_control(box))
        with _fifo(box.config):
            daemon.send_signal(signal.SIGHUP)
            time.sleep(1.0)
            box.temps[1].unlink()  # does the loop still answer a lost sensor?
            took = _until(lambda: box.state() == FULL, timeout=GIVE_UP)
            print(f"  FIFO configuration, SIGHUP: a lost sensor at full speed after {_shown(took)}")
            print(f"  ... then SIGTERM: {_stop(daemon)}, fan at {_duty(box.state())}")
    with _box(QUICK) as box, _fifo(box.config):
        start = time.monotonic()
        proc = subprocess.Popen(
            fand_argv(box, "--full-speed"),
            cwd=repo,
            env=clean_env(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        took = _until(lambda: box.state() == FULL)
        try:
            code = f"exit {proc.wait(timeout=max(0.1, GIVE_UP - (time.monotonic() - start)))}"
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            code = "killed, never exited"
        print(f"  FIFO configuration, fand --full-speed: full speed after {_shown(took)}, {code}")
    with _box(QUICK) as box:
        stick = box.root.parent / "stick"
        argv = [sys.executable, "-m", "tests.stuckfand", str(stick), *fand_argv(box)[3:]]
        with running(box, [*argv, "--period", PERIOD], repo=repo) as daemon:
            _until(lambda: in_control(box))
            with _fifo(box.config):
                stick.touch()
                took = _until(lambda: box.state() == FULL)
                try:
                    end = f"exit {daemon.wait(timeout=5)}"
                except subprocess.TimeoutExpired:
                    end = "still running"
        print(f"  FIFO configuration, stuck loop: the watchdog's full speed after {_shown(took)}")
        print(f"  ... and the daemon: {end}")


def main(repo: Path) -> None:
    print(f"fand hazards (issue 20), nastui from {repo}, period {PERIOD} s")
    bios_case(repo)
    jump_case(repo)
    for bad in ("garbage", "", "nan"):
        flap_case(repo, bad)
    fifo_cases(repo)


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else REPO)
