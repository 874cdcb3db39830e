"""Bytes on the line, per screen: every main screen of `nastui --demo` in an 80x24 pty, beside
htop and Glances when they are installed.

Each program is started in a pseudo-terminal, driven to its screen with keys, left to settle
(`SETTLE` s after the last key), then watched for `PERF_SECONDS` (default 60): steady bytes/s
written to the terminal and CPU % of one core over that window only (utime + stime of the
process from /proc, so start-up is excluded).

    python -m tests.perf.screens_perf
"""

from __future__ import annotations

import os
import pty
import select
import shutil
import struct
import sys
import termios
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fcntl import ioctl
from pathlib import Path

from tests.perf.harness import quit_pty

WINDOW = float(os.environ.get("PERF_SECONDS", "60"))
SETTLE = 4.0
NASTUI = [sys.executable, "-m", "nastui"]
FLEET_50 = [sys.executable, "-m", "tests.perf.fleet_app", "--hosts", "50", "--every", "10"]
Row = Callable[..., None]
Keys = Sequence[tuple[float, bytes]]


@dataclass(frozen=True)
class Case:
    """One screen: its label, the command, the keys (seconds after start, bytes) to reach it."""

    label: str
    cmd: list[str]
    keys: Keys = ()
    target: str = "<= 300 B/s"


CASES = (
    Case("dashboard, healthy-24-bay", [*NASTUI, "--demo"]),
    Case("dashboard, failing-drive", [*NASTUI, "--scenario", "failing-drive"]),
    Case("pools, scrubbing", [*NASTUI, "--scenario", "scrubbing"], ((2.0, b"p"),)),
    Case("bays, healthy-24-bay", [*NASTUI, "--demo"], ((2.0, b"b"),)),
    Case(
        "bays I/O view, scrubbing",
        [*NASTUI, "--scenario", "scrubbing"],
        ((2.0, b"b"), (2.5, b"v"), (2.7, b"v"), (2.9, b"v"), (3.1, b"v"), (3.3, b"v")),
        "<= 1 KB/s",
    ),
    Case("drive detail, failing-drive", [*NASTUI, "--scenario", "failing-drive"], ((2.0, b"\r"),)),
    Case("bays, datacenter-102", [*NASTUI, "--scenario", "datacenter-102"], ((2.0, b"b"),)),
    Case("fleet", [*NASTUI, "--demo"], ((2.0, b"H"),)),
    Case("fleet, 50 hosts polled every 10 s", FLEET_50, ((2.0, b"H"),)),
    Case("dashboard, 50-host fleet polled behind it", FLEET_50),
    Case("bench running", [*NASTUI, "--demo"], ((1.5, b"n"), (4.0, b"r")), "<= 1 KB/s"),
)


@dataclass(frozen=True)
class Figures:
    """What one case wrote and used."""

    first_bytes: int
    steady_bytes_per_s: float
    cpu_pct: float


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of `pid` (and its waited-for children) from /proc."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    ticks = sum(int(v) for v in fields[11:15])  # utime stime cutime cstime
    return ticks / os.sysconf("SC_CLK_TCK")


def measure(cmd: list[str], keys: Keys, window: float, term: str = "xterm-256color") -> Figures:
    """Run `cmd` in an 80x24 pty, press `keys`, settle, then count bytes and CPU for `window` s."""
    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover - the child
        os.execvpe(cmd[0], cmd, {**os.environ, "TERM": term, "LANG": "C.UTF-8"})
    ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    pending = list(keys)
    watch_from = (keys[-1][0] if keys else 0.0) + SETTLE
    started, total, first, cpu0 = time.monotonic(), 0, -1, 0.0
    try:
        while (now := time.monotonic() - started) < watch_from + window:
            if pending and now >= pending[0][0]:
                os.write(fd, pending.pop(0)[1])
            if first < 0 and now >= watch_from:
                first, cpu0 = total, _cpu_seconds(pid)
            ready, _, _ = select.select([fd], [], [], 0.05)
            if ready:
                try:
                    total += len(os.read(fd, 65536))
                except OSError:
                    break
        cpu = _cpu_seconds(pid) - cpu0
    finally:
        quit_pty(pid, fd)
    return Figures(first, (total - first) / window, 100.0 * cpu / window)


def _others() -> list[Case]:
    """htop and Glances, when installed (Glances from PATH or GLANCES=/path/to/glances)."""
    found = []
    if htop := shutil.which("htop"):
        found.append(Case("htop (for comparison)", [htop], target=""))
    if glances := os.environ.get("GLANCES") or shutil.which("glances"):
        found.append(Case("Glances (for comparison)", [glances], target=""))
    return found


def report(row: Row, cases: Sequence[Case] = CASES) -> None:
    """Measure every screen, then htop and Glances, and print one row each."""
    print(f"Screens in an 80x24 pty ({WINDOW:.0f} s steady window after {SETTLE:.0f} s settling)")
    row("screen", "steady B/s", "target", "CPU % of a core (steady); bytes before the window")
    for case in [*cases, *_others()]:
        got = measure(case.cmd, case.keys, WINDOW)
        row(
            case.label,
            f"{got.steady_bytes_per_s:,.0f} B/s",
            case.target,
            f"{got.cpu_pct:.2f} %; {got.first_bytes:,} B",
        )


def main() -> None:
    """Run alone: `python -m tests.perf.screens_perf [label substring...]`."""

    def row(label: str, value: str, target: str = "", note: str = "") -> None:
        print(f"  {label:<44} {value:>14}  {target:<14} {note}", flush=True)

    wanted = sys.argv[1:]
    cases = [c for c in CASES if not wanted or any(w in c.label for w in wanted)]
    report(row, cases)


if __name__ == "__main__":
    main()
