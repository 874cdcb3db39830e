"""Measuring terminal programs in an 80x24 pseudo-terminal: bytes written, CPU, first frame.

`ptybytes` runs a program in a pty for a number of seconds and reports the first frame's bytes
(what it wrote until its output had been quiet for 0.5 s, or 5 s had passed), the steady
bytes/s over the rest of the window, and the CPU seconds of the program and the children it
waited for (the whole run, start-up included). Steady-state CPU is derived from two runs of
different length: (cpu_long - cpu_short) / (long - short).
"""

from __future__ import annotations

import contextlib
import os
import pty
import select
import signal
import statistics
import struct
import subprocess
import termios
import time
from dataclasses import dataclass
from fcntl import ioctl
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
QUIET_S = 0.5  # the first frame ends when the output has been quiet this long...
FIRST_FRAME_MAX_S = 5.0  # ...or this long after the first byte


@dataclass(frozen=True)
class PtyFigures:
    """What one run in the pty showed."""

    first_output_s: float
    first_frame_bytes: int
    steady_bytes_per_s: float
    cpu_s: float
    cpu_pct: float
    seconds: float


def ptybytes(cmd: list[str], *, seconds: float, term: str = "xterm-256color") -> PtyFigures:
    """Run `cmd` in an 80x24 pty for `seconds`, press q, and count what it wrote."""
    env = {**os.environ, "TERM": term, "LANG": os.environ.get("LANG", "C.UTF-8")}
    started = time.monotonic()
    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover - the child
        os.execvpe(cmd[0], cmd, env)
    ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    total, first, last, frame = 0, None, None, None
    while (now := time.monotonic()) - started < seconds:
        quiet = last is not None and now - last >= QUIET_S
        if first is not None and frame is None and (quiet or now - first >= FIRST_FRAME_MAX_S):
            frame = (total, now)
        if not select.select([fd], [], [], 0.05)[0]:
            continue
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        total += len(chunk)
        first = first if first is not None else time.monotonic()
        last = time.monotonic()
    cpu_s = _quit_and_reap(pid, fd)
    if first is None:
        raise SystemExit(f"perf: {cmd} wrote nothing in {seconds:.0f} s")
    frame_bytes, frame_at = frame if frame is not None else (total, time.monotonic())
    window = max(0.001, started + seconds - frame_at)
    return PtyFigures(
        first_output_s=first - started,
        first_frame_bytes=frame_bytes,
        steady_bytes_per_s=(total - frame_bytes) / window,
        cpu_s=cpu_s,
        cpu_pct=100.0 * cpu_s / seconds,
        seconds=seconds,
    )


def _quit_and_reap(pid: int, fd: int) -> float:
    """Press q, wait up to 5 s (SIGKILL after), close `fd`; the CPU seconds the program used."""
    with contextlib.suppress(OSError):
        os.write(fd, b"q")
    deadline = time.monotonic() + 5
    usage = None
    while usage is None and time.monotonic() < deadline:
        with contextlib.suppress(OSError):
            if select.select([fd], [], [], 0.1)[0]:
                os.read(fd, 65536)
        done, _, rusage = os.wait4(pid, os.WNOHANG)
        usage = rusage if done else None
    if usage is None:
        os.kill(pid, signal.SIGKILL)
        usage = os.wait4(pid, 0)[2]
    os.close(fd)
    return usage.ru_utime + usage.ru_stime


def steady_cpu_percent(short: PtyFigures, long: PtyFigures) -> float:
    """CPU % of one core once started: the difference of two runs over their length difference."""
    return 100.0 * max(0.0, long.cpu_s - short.cpu_s) / (long.seconds - short.seconds)


def time_to_full_frame(
    cmd: list[str], *, term: str = "xterm-256color", timeout: float = 10
) -> float:
    """Seconds from exec until the bottom row (24) of the first frame has been written."""
    env = {**os.environ, "TERM": term, "LANG": "C.UTF-8"}
    started = time.monotonic()
    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover - the child
        os.execvpe(cmd[0], cmd, env)
    ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    seen = bytearray()
    result = float("nan")
    try:
        while time.monotonic() - started < timeout:
            ready, _, _ = select.select([fd], [], [], 0.05)
            if not ready:
                continue
            try:
                seen += os.read(fd, 65536)
            except OSError:
                break
            if b"\x1b[24;1H" in seen:
                result = time.monotonic() - started
                break
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(fd)
    return result


def quit_pty(pid: int, fd: int) -> None:
    """Press `q` in the program's pty, read what it writes while it exits; SIGKILL if it is
    still running after 5 s. Closes `fd`."""
    with contextlib.suppress(OSError):
        os.write(fd, b"q")
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and os.waitpid(pid, os.WNOHANG)[0] == 0:
        with contextlib.suppress(OSError):
            if select.select([fd], [], [], 0.1)[0]:
                os.read(fd, 65536)
    with contextlib.suppress(ProcessLookupError, ChildProcessError):
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    os.close(fd)


def _once(cmd: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(cmd, capture_output=True, check=False)
    return time.perf_counter() - started


def wall_time(cmd: list[str], runs: int = 5) -> float:
    """Median wall seconds of `cmd` over `runs` runs (its output discarded)."""
    return statistics.median(_once(cmd) for _ in range(runs))


def wall_ratios(cmd: list[str], base: list[str], runs: int = 21) -> tuple[float, float, float]:
    """`cmd`'s wall time against `base`'s, the two run alternately `runs` times each, so a
    neighbour's load falls on both: (median of `base`, median of `cmd`, the ratio of their
    fastest runs, the least disturbed)."""
    bases, took = [], []
    for _ in range(runs):
        bases.append(_once(base))
        took.append(_once(cmd))
    return statistics.median(bases), statistics.median(took), min(took) / min(bases)
