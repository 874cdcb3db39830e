"""`nastui scrub start --wait`: follow the scrub just started to its end with a progress bar.

Each poll reads the pool afresh (the same collectors as `nastui pools`). The scan the pool showed
before the start is remembered, so an old finished scrub is never taken for the new one. On a
terminal a rich progress bar shows percent, rate and ETA (as `bench run` does); otherwise one
line per tenth. The simulator's clock is advanced between polls so `--demo` finishes.

Exit codes: 0 finished with no errors; 1 finished with errors found; 69 it stopped before the
end (cancelled or paused by someone) or never showed up; 130 Ctrl-C (the scrub goes on).
"""

from __future__ import annotations

import asyncio
import sys
from dataclasses import dataclass
from typing import TextIO

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn

from nastui import exits
from nastui.core import units
from nastui.core.scanning.words import eta_text, find_pool
from nastui.model import ScanKind, ScanProgress, ScanState
from nastui.session import Session
from nastui.sim.clock import FakeClock

SCRUB_KINDS = (ScanKind.SCRUB, ScanKind.CHECK, ScanKind.REPAIR)
POLL_S = 2.0
APPEAR_S = 30.0  # how long the new scrub may take to show up (at least 3 pool refreshes)
SIM_STEP_S = 600.0  # simulated seconds per poll in the demo


@dataclass(frozen=True, slots=True)
class Waited:
    """How the wait ended: the last scan seen (None: it never showed up)."""

    scan: ScanProgress | None


def is_new(scan: ScanProgress | None, before: ScanProgress | None) -> bool:
    """Whether `scan` is the scrub just started rather than the one the pool showed before."""
    if scan is None or scan.kind not in SCRUB_KINDS:
        return False
    if scan.state in (ScanState.RUNNING, ScanState.PENDING):
        return True
    if before is None:
        return True
    return (scan.started_at, scan.ended_at, scan.state) != (
        before.started_at,
        before.ended_at,
        before.state,
    )


def figures(scan: ScanProgress) -> str:
    """ "1.2 GiB/s  ETA 5m00s  0 errors"."""
    running = scan.state is ScanState.RUNNING
    rate = units.rate(scan.rate_bytes_per_s) if scan.rate_bytes_per_s and running else ""
    eta = eta_text(scan) if running else ""
    errors = f"{scan.errors} errors" if scan.errors is not None else ""
    return "  ".join(p for p in (rate, eta, errors) if p)


def outcome(pool: str, waited: Waited) -> tuple[str, int]:
    """The closing line and exit code."""
    scan = waited.scan
    if scan is None:
        return f"the scrub of {pool} never showed up: see `nastui pools`", exits.EX_UNAVAILABLE
    took = f" in {units.duration(scan.duration)}" if scan.duration is not None else ""
    if scan.state is ScanState.FINISHED:
        errors = scan.errors or 0
        repaired = f", {units.size(scan.repaired_bytes)} repaired" if scan.repaired_bytes else ""
        line = f"{scan.kind.value} of {pool} finished{took}: {errors} errors{repaired}"
        return line, exits.OK if errors == 0 else exits.WARNING
    return f"{scan.kind.value} of {pool} {scan.state.value} before the end", exits.EX_UNAVAILABLE


class _Bar:
    """A rich bar on a terminal, else one plain line per tenth."""

    def __init__(self, out: TextIO, label: str) -> None:
        self.out = out
        self.tty = out.isatty()
        self.shown = -1
        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            TaskProgressColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.fields[figures]}"),
            console=Console(file=out, emoji=False),  # a pool named "a:x:b" stays so
            disable=not self.tty,
        )
        self.task = self.progress.add_task(label, total=100.0, figures="waiting")
        self.label = label

    def show(self, scan: ScanProgress) -> None:
        percent = scan.percent or 0.0
        self.progress.update(self.task, completed=percent, figures=figures(scan))
        if not self.tty and int(percent // 10) > self.shown:
            self.shown = int(percent // 10)
            self.out.write(f"{self.label} {percent:.0f}%  {figures(scan)}\n")
            self.out.flush()


async def follow(
    session: Session, pool: str, before: ScanProgress | None, out: TextIO, poll_s: float
) -> Waited:
    """Poll until the new scrub is no longer running; the last scan seen."""
    bar = _Bar(out, f"scrub {pool}")
    seen: ScanProgress | None = None
    polls = 0
    # Pools are re-read at most every poll.pools_s, however often the session polls.
    appear_polls = max(APPEAR_S, 3 * session.config.poll.pools_s) / poll_s
    with bar.progress:
        while True:
            if isinstance(session.clock, FakeClock):
                session.clock.advance(SIM_STEP_S)
            snapshot = await session.poll()
            found = find_pool(snapshot.pools, pool)
            scan = found.scan if found is not None else None
            polls += 1
            if is_new(scan, before) and scan is not None:
                seen = scan
                bar.show(scan)
                if scan.state not in (ScanState.RUNNING, ScanState.PENDING):
                    return Waited(scan)
            elif seen is None and polls >= appear_polls:
                return Waited(None)
            await asyncio.sleep(poll_s)


def wait_for_scrub(
    session: Session, pool: str, before: ScanProgress | None, out: TextIO, poll_s: float = POLL_S
) -> int:
    """Follow the scrub to its end, print the closing line; the exit code."""
    try:
        waited = asyncio.run(follow(session, pool, before, out, poll_s))
    except KeyboardInterrupt:
        print(f"nastui: stopped waiting; the scrub of {pool} goes on", file=sys.stderr)
        return exits.INTERRUPTED
    line, code = outcome(pool, waited)
    print(line, file=out if code in (exits.OK, exits.WARNING) else sys.stderr)
    return code
