"""Start-up and weight (issue 23 §3): nastui beside Glances and htop, measured in the same run.

1. First frame: each program is started in an 80x24 pty; the first frame is on screen when
   its first burst of output ends (the last byte before `QUIET_S` of silence). Median of
   `ROUNDS` runs each; ratio nastui / Glances (target <= 1.0).
2. Memory high-water: VmHWM of the program (from /proc, read after `HOLD_S` s running, before
   it is asked to quit); target <= 40 MB.
3. `python -X importtime -c 'import nastui.ui.app'`: nastui's own import cost, and Textual's
   (`textual.app` and `textual.widgets`) within it; and the RSS of that import alone.
4. `nastui status --demo` wall time against `python -c pass` (target <= 10x).
5. The store's trend samples once its rings are full (a day of running): bytes held, against
   the same samples as a `deque` of tuples (what the store kept before), in this run.
6. Steady CPU % of one core of the bench screen while a run streams (<= 1 %) and of the
   102-bay dashboard (<= 0.6 %), over `PERF_SECONDS` (default 60) after settling.

nastui runs from bytecode, as an installed copy does (pip compiles it): its modules are
compiled first (`compileall`, into the tree's ignored `__pycache__`), even where
PYTHONDONTWRITEBYTECODE is set; the standard library's and Textual's are compiled already.

Printed, never asserted:

    python -m tests.perf.startup_perf          # everything
    python -m tests.perf.startup_perf quick    # 1-5 only (no steady-state windows)
"""

from __future__ import annotations

import os
import pty
import re
import select
import shutil
import statistics
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Callable
from dataclasses import dataclass
from fcntl import ioctl
from pathlib import Path

from tests.heldbytes import held_bytes
from tests.perf import screens_perf
from tests.perf.harness import REPO, quit_pty, wall_ratios

QUIET_S = 0.3  # the first frame has ended when the program has been quiet this long
FRAME_TEXT = 40  # a frame has begun once this many visible characters have been written
HOLD_S = 3.0  # how long each program runs before its memory high-water mark is read
ROUNDS = int(os.environ.get("PERF_ROUNDS", "3"))
# Terminal control: CSI and OSC sequences, charset selections, keypad modes.
_ESCAPES = re.compile(rb"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][0-9A-B]|[=>78])")
PY = sys.executable
NASTUI = [PY, "-m", "nastui"]
# Textual's part of the interface's imports: the app and the widgets the dashboard shows.
TEXTUAL = "textual.app, textual.containers, textual.screen, textual.widgets"
Row = Callable[..., None]


@dataclass(frozen=True)
class Start:
    """One start in the pty: when the first frame was on screen, and the memory high-water."""

    first_frame_s: float
    hwm_kb: int


def _hwm_kb(pid: int) -> int:
    """VmHWM of `pid` in KiB (0 if it cannot be read)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    found = re.search(r"^VmHWM:\s+(\d+) kB", status, re.MULTILINE)
    return int(found.group(1)) if found else 0


def start(cmd: list[str]) -> Start:
    """Run `cmd` in an 80x24 pty for `HOLD_S` s: first frame time and VmHWM. The first frame
    ends with the last byte before `QUIET_S` of silence, once visible text has been written
    (a program's terminal set-up before it alone is not a frame)."""
    env = {**os.environ, "TERM": "xterm-256color", "LANG": "C.UTF-8"}
    started = time.monotonic()
    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover - the child
        os.execvpe(cmd[0], cmd, env)
    ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    last: float | None = None  # the last byte of the first frame so far
    frame: float | None = None
    text = 0  # visible characters written so far
    try:
        while (now := time.monotonic()) - started < HOLD_S:
            if frame is None and last is not None and now - last >= QUIET_S:
                frame = last - started
            if not select.select([fd], [], [], 0.01)[0]:
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            text += len(_ESCAPES.sub(b"", chunk).strip())
            if frame is None and text >= FRAME_TEXT:
                last = time.monotonic()
        hwm = _hwm_kb(pid)
    finally:
        quit_pty(pid, fd)
    if frame is None:
        frame = (last - started) if last is not None else float("nan")
    return Start(frame, hwm)


def starts(cmd: list[str], rounds: int = ROUNDS) -> Start:
    """The median first frame and high-water mark over `rounds` starts."""
    runs = [start(cmd) for _ in range(rounds)]
    return Start(
        statistics.median(r.first_frame_s for r in runs),
        int(statistics.median(r.hwm_kb for r in runs)),
    )


def _importtime_total(statement: str) -> float:
    """Seconds `python -X importtime -c statement` reports: the sum of the cumulative times of
    the top-level imports."""
    done = subprocess.run(
        [PY, "-X", "importtime", "-c", statement], capture_output=True, text=True, check=True
    )
    total = 0
    for line in done.stderr.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[1].strip().isdigit() and not parts[2].startswith("  "):
            total += int(parts[1])
    return total / 1e6


def import_seconds(statement: str) -> float:
    """What `statement` (an import) adds to a bare interpreter's start, by -X importtime."""
    return _importtime_total(statement) - _importtime_total("pass")


def _self_rss_kb(module: str) -> int:
    probe = f"import resource, {module}; print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"
    out = subprocess.run([PY, "-c", probe], capture_output=True, text=True, check=True)
    return int(out.stdout.strip())


def _peers() -> list[tuple[str, list[str]]]:
    found = []
    if glances := os.environ.get("GLANCES") or shutil.which("glances"):
        found.append(("Glances", [glances]))
    if htop := shutil.which("htop"):
        found.append(("htop", [htop]))
    return found


def first_frames(row: Row) -> None:
    """First frame and memory high-water of nastui --demo, Glances and htop."""
    print(f"First frame in an 80x24 pty (median of {ROUNDS}) and memory high-water (VmHWM)")
    ours = starts([*NASTUI, "--demo"])
    peers = {name: starts(cmd) for name, cmd in _peers()}
    glances = peers.get("Glances")
    ratio = f"{ours.first_frame_s / glances.first_frame_s:.2f}x Glances" if glances else ""
    row("nastui --demo, first frame", f"{ours.first_frame_s:.2f} s", "<= Glances", ratio)
    row("nastui --demo, memory high-water", f"{ours.hwm_kb / 1024:.1f} MB", "<= 40 MB")
    for name, got in peers.items():
        row(f"{name} (for comparison), first frame", f"{got.first_frame_s:.2f} s")
        row(f"{name} (for comparison), memory high-water", f"{got.hwm_kb / 1024:.1f} MB")
    if not peers:
        row("Glances, htop", "not installed", "", "apt-get install glances htop")


def imports(row: Row) -> None:
    """What importing the interface costs, and how much of it is Textual's."""
    print("import nastui.ui.app (python -X importtime, one run; RSS of that import alone)")
    ours = import_seconds("import nastui.ui.app")
    textual = import_seconds(f"import {TEXTUAL}")
    rss, textual_rss = _self_rss_kb("nastui.ui.app"), _self_rss_kb(TEXTUAL)
    row("import nastui.ui.app", f"{ours:.2f} s", "", f"RSS {rss / 1024:.0f} MB")
    row(
        "  Textual alone (textual.app + its widgets)",
        f"{textual:.2f} s",
        "",
        f"RSS {textual_rss / 1024:.0f} MB",
    )
    row(
        "  nastui's own share",
        f"{ours - textual:.2f} s",
        "",
        f"RSS {(rss - textual_rss) / 1024:.0f} MB",
    )


def status(row: Row) -> None:
    """`nastui status --demo` against a bare interpreter."""
    base, took, fastest = wall_ratios([*NASTUI, "status", "--demo"], [PY, "-c", "pass"])
    print("CLI wall time (median of 21, the two run alternately)")
    row("python -c pass", f"{base * 1000:.1f} ms")
    row(
        "nastui status --demo",
        f"{took * 1000:.0f} ms",
        "<= 10x",
        f"{took / base:.1f}x the bare interpreter ({fastest:.1f}x fastest against fastest)",
    )


def _full_rings(scenario: str) -> tuple[int, int, int]:
    """(metrics, bytes the store's full rings hold, bytes a deque of tuples held for the same
    samples) for one snapshot's metrics, each ring filled with `DEFAULT_HISTORY` samples."""
    import asyncio
    from collections import deque

    from nastui.core.store import DEFAULT_HISTORY, SnapshotStore, metrics_of
    from nastui.session import Source, open_or_exit

    source = Source(demo=True, scenario=scenario, history=False, fleet=False)
    snapshot = asyncio.run(open_or_exit(source, os.environ).poll())
    names = [name for name, _, _ in metrics_of(snapshot)]
    day = [(snapshot.taken_at - 2.0 * i, 30.0 + (i % 9) * 0.5) for i in range(DEFAULT_HISTORY)]

    def store() -> SnapshotStore:
        rings = SnapshotStore()
        for name in names:
            rings.seed(snapshot.host, name, day)
        return rings

    def deques() -> dict[str, deque[tuple[float, float]]]:
        return {
            name: deque(((t + 0.0, v + 0.0) for t, v in day), DEFAULT_HISTORY) for name in names
        }

    return len(names), held_bytes(store), held_bytes(deques)


def rings(row: Row) -> None:
    """What the store's trend samples hold once a day has filled them."""
    print("Trend samples held once the rings are full (tracemalloc; baseline: deque of tuples)")
    for scenario in ("healthy-24-bay", "datacenter-102"):
        count, ours, before = _full_rings(scenario)
        row(
            f"{scenario}: {count} metrics x 2,880",
            f"{ours / 1e6:.1f} MB",
            "",
            f"deque of tuples {before / 1e6:.1f} MB ({before / ours:.1f}x)",
        )


def steady(row: Row) -> None:
    """Steady CPU of the bench screen while a run streams, and of the 102-bay dashboard."""
    window = screens_perf.WINDOW
    print(f"Steady CPU % of one core ({window:.0f} s window after settling)")
    cases = (
        (
            "bench screen while a run streams",
            [*NASTUI, "--demo"],
            ((1.5, b"n"), (4.0, b"r")),
            "<= 1 %",
        ),
        ("dashboard, datacenter-102", [*NASTUI, "--scenario", "datacenter-102"], (), "<= 0.6 %"),
    )
    for label, cmd, keys, target in cases:
        got = screens_perf.measure(cmd, keys, window)
        row(label, f"{got.cpu_pct:.2f} %", target, f"{got.steady_bytes_per_s:,.0f} B/s")


def compiled() -> None:
    """Compile nastui's modules, so that each start reads bytecode, as an installed copy does,
    instead of compiling every module it imports again."""
    subprocess.run([PY, "-m", "compileall", "-q", str(REPO / "nastui")], check=True)


def report(row: Row, *, quick: bool = False) -> None:
    """Every start-up figure (and, unless `quick`, the steady-state ones)."""
    compiled()
    first_frames(row)
    imports(row)
    status(row)
    rings(row)
    if not quick:
        steady(row)


def main() -> None:
    """Run alone: `python -m tests.perf.startup_perf [quick]`."""

    def row(label: str, value: str, target: str = "", note: str = "") -> None:
        print(f"  {label:<44} {value:>14}  {target:<14} {note}", flush=True)

    report(row, quick="quick" in sys.argv[1:])


if __name__ == "__main__":
    main()
