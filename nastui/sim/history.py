"""A history file for the demo: the day before the session starts, as `nastui daemon` would
have kept it, so the demo and the screenshots draw real trend lines from simulated data.

    history = demo_history("failing-drive", seed=0, host="nano", end=clock.now())

The scenario's simulator runs over the 24 hours before `end` on its own `FakeClock`, and every
snapshot goes through `History.record`, the daemon's own path: temperatures thinned the same
way, SMART counter changes (the failing drive's pending sectors growing), finished scans. A
step of 10 minutes is the daemon's own floor (it keeps a sample at least that often) and keeps
the build near a third of a second for a 24-bay box. The simulator has a day of history but
not months of it, so the scrubs before each pool's last one are made up here: one a month,
each a little shorter than the next (the pool was emptier), seeded like everything else.
The same (scenario, seed, host, end) always gives the same rows.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import sqlite3

from nastui.core.timeshift import shift_snapshot
from nastui.history.db import History, HistoryError
from nastui.model import HostSnapshot, Pool, ScanProgress, ScanState
from nastui.sim.backend import SimBackend
from nastui.sim.clock import FakeClock
from nastui.sim.grid import DAY_S, rng_for

SPAN_S = float(DAY_S)
STEP_S = 600.0
DRIVES_PER_STEP = 24
EARLIER_SCRUBS = 4


def _earlier(pool: Pool, seed: int, scenario: str) -> tuple[ScanProgress, ...]:
    """Made-up monthly scrubs before the pool's last one, oldest first."""
    last = pool.last_scrub
    if last is None or last.started_at is None or last.duration is None:
        return ()
    rng = rng_for(seed, scenario, "history", pool.name)
    scans: list[ScanProgress] = []
    start, duration = last.started_at, last.duration
    for _ in range(EARLIER_SCRUBS):
        start -= rng.uniform(28.0, 33.0) * DAY_S
        duration *= rng.uniform(0.91, 0.98)
        done = (
            None if last.bytes_done is None else round(last.bytes_done * duration / last.duration)
        )
        scans.append(
            dataclasses.replace(
                last,
                state=ScanState.FINISHED,
                started_at=start,
                ended_at=start + duration,
                bytes_done=done,
                errors=0,
                repaired_bytes=0,
            )
        )
    return tuple(reversed(scans))


def _scan_snapshots(first: HostSnapshot, seed: int, scenario: str) -> list[HostSnapshot]:
    """Snapshots holding only a pool with one earlier scrub each, in time order (its usage
    left out: it is not known for those times)."""
    found = [(scan, pool) for pool in first.pools for scan in _earlier(pool, seed, scenario)]
    found.sort(key=lambda pair: pair[0].ended_at or 0.0)
    return [
        HostSnapshot(
            host=first.host,
            taken_at=scan.ended_at or first.taken_at,
            pools=(dataclasses.replace(pool, scan=None, last_scrub=scan, allocated_bytes=None),),
            source=first.source,
        )
        for scan, pool in found
    ]


def step_for(first: HostSnapshot) -> float:
    """Seconds between recorded snapshots: `STEP_S`, longer for boxes of more than 24 drives,
    so a 102-bay demo starts about as fast as a 24-bay one."""
    return STEP_S * max(1, math.ceil(len(first.drives) / DRIVES_PER_STEP))


def record_day(
    history: History,
    scenario: str,
    *,
    seed: int,
    host: str | None,
    end: float,
    span_s: float = SPAN_S,
    offset: float = 0.0,
) -> int:
    """Run the scenario over [end - span_s, end) (sim time) and record its snapshots (the
    made-up earlier scrubs first), stamped `offset` seconds later (a demo session on the wall
    clock); returns the rows written.

    Raises:
        UnknownScenario: no scenario has that name.
        HistoryError: the history cannot be written.
    """
    clock = FakeClock(end - span_s)
    backend = SimBackend(scenario, seed=seed, clock=clock, host=host)
    snapshot = backend.snapshot()
    step = step_for(snapshot)
    rows = sum(
        history.record(shift_snapshot(s, offset)) for s in _scan_snapshots(snapshot, seed, scenario)
    )
    while True:
        rows += history.record(shift_snapshot(snapshot, offset))
        if clock.now() + step >= end:
            return rows
        clock.advance(step)
        del snapshot  # one snapshot at a time: the next is made without the last beside it
        snapshot = backend.snapshot()


def _recorded(scenario: str, seed: int, host: str | None, end: float, offset: float) -> History:
    """The simulated day, recorded into a new in-memory history."""
    history = History.in_memory()
    record_day(history, scenario, seed=seed, host=host, end=end, offset=offset)
    return history


_template = functools.lru_cache(maxsize=8)(_recorded)  # kept once a day is asked for twice
_asked: set[tuple[str, int, str | None, float, float]] = set()  # days asked for once so far


def demo_history(
    scenario: str, *, seed: int, host: str | None, end: float, offset: float = 0.0
) -> History:
    """A fresh in-memory history holding the simulated day before `end` (sim time; stamped
    `offset` seconds later, see `record_day` and the module).

    Each call gets its own copy, so one session's writes (acknowledgements) never show in
    another's. The first call for a day gets the day as built, no copy kept (the interface
    asks once: half a megabyte less); a day asked for again is kept, and copied from then on.

    Raises:
        UnknownScenario: no scenario has that name.
        HistoryError: SQLite could not make the in-memory database.
    """
    day = (scenario, seed, host, end, offset)
    try:
        if day not in _asked:
            _asked.add(day)
            return _recorded(*day)
        return _template(*day).copy()
    except sqlite3.Error as exc:
        raise HistoryError(f"demo history: {exc}") from None
