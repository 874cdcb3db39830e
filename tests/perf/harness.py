"""Measuring terminal programs: the workplace's ptybytes harness, and a first-frame timer.

`ptybytes` is `../shared/tools/ptybytes.py`: it runs a program in an 80x24 pty and reports
first-frame bytes, steady bytes/s and CPU (of the whole run, start-up included). Steady-state CPU
is derived from two runs of different length: (cpu_long - cpu_short) / (long - short).
"""

from __future__ import annotations

import contextlib
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from dataclasses import dataclass
from fcntl import ioctl
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PTYBYTES = REPO.parent / "shared" / "tools" / "ptybytes.py"
_FIELD = re.compile(r"(\w+)=([\d.]+)")


@dataclass(frozen=True)
class PtyFigures:
    """What ptybytes printed for one run."""

    first_output_s: float
    first_frame_bytes: int
    steady_bytes_per_s: float
    cpu_s: float
    cpu_pct: float
    seconds: float


def ptybytes(cmd: list[str], *, seconds: float, term: str = "xterm-256color") -> PtyFigures:
    """Run `cmd` under ptybytes for `seconds` and parse its figures."""
    if not PTYBYTES.exists():
        raise SystemExit(f"perf: {PTYBYTES} not found (the workplace's pty harness)")
    out = subprocess.run(
        [sys.executable, str(PTYBYTES), "--seconds", str(seconds), "--term", term, "--", *cmd],
        capture_output=True,
        text=True,
        check=False,
        cwd=REPO,
        timeout=seconds + 60,
    )
    fields = dict(_FIELD.findall(out.stdout))
    if "first_frame_bytes" not in fields:
        raise SystemExit(f"perf: ptybytes gave no figures for {cmd}: {out.stdout} {out.stderr}")
    return PtyFigures(
        first_output_s=float(fields["time_to_first_output_s"]),
        first_frame_bytes=int(float(fields["first_frame_bytes"])),
        steady_bytes_per_s=float(fields["steady_bytes_per_s"]),
        cpu_s=float(fields["cpu_s"]),
        cpu_pct=float(fields["cpu_pct"]),
        seconds=seconds,
    )


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
