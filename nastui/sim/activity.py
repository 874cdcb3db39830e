"""What each drive is doing at a moment: spun up or down, scrubbing, and its I/O rates.

All closed forms of the plan and the time; the per-second I/O jitter comes from a generator the
caller seeds for that second.
"""

from __future__ import annotations

import random

from nastui.model import IoRate, PowerState
from nastui.sim.plan import Plan, PoolPlan
from nastui.sim.thermal import HEAT_BUSY, HEAT_IDLE, HEAT_STANDBY

_MB = 1_000_000.0


def asleep_since(plan: Plan, index: int, t: float) -> float | None:
    """When the drive spun down, if it is spun down at `t`; None while it spins."""
    if plan.sleep is None:
        return None
    down, wake = plan.sleep.spin_down[index], plan.sleep.wake[index]
    if down is not None and down <= t and (wake is None or t < wake):
        return down
    return None


def power_at(plan: Plan, index: int, t: float) -> PowerState:
    """ACTIVE, or STANDBY between the drive's spin-down and its wake-up."""
    return PowerState.ACTIVE if asleep_since(plan, index, t) is None else PowerState.STANDBY


def members(pool: PoolPlan) -> tuple[int, ...]:
    """Drive indices of every data member of the pool (spares excluded)."""
    return tuple(i for group in pool.groups for i in group.members)


def scanning(plan: Plan, index: int, t: float) -> PoolPlan | None:
    """The pool whose scrub or resilver is reading this drive at `t`, if any."""
    for pool in plan.pools:
        if _scans(pool, t) and index in members(pool):
            return pool
    return None


def _scans(pool: PoolPlan, t: float) -> bool:
    return pool.scan is not None and pool.scan.running(t)


def any_scan(plan: Plan, t: float) -> bool:
    """True while any pool scrubs or resilvers."""
    return any(_scans(p, t) for p in plan.pools)


def heats_at(plan: Plan, t: float) -> tuple[float, ...]:
    """Every drive's heat factor at `t` (see `nastui.sim.thermal`): spun down, read by a
    scrub or resilver, or idle."""
    busy = {i for pool in plan.pools if _scans(pool, t) for i in members(pool)}
    return tuple(
        HEAT_STANDBY
        if asleep_since(plan, i, t) is not None
        else HEAT_BUSY
        if i in busy
        else HEAT_IDLE
        for i in range(len(plan.drives))
    )


def _rate(read: float, write: float, busy: float) -> IoRate:
    return IoRate(float(round(read)), float(round(write)), round(busy, 1))


def io_at(plan: Plan, index: int, t: float, rng: random.Random) -> IoRate:
    """Recent I/O of the drive: idle trickle, scan reads, or the resilver's writes."""
    jitter = (rng.random(), rng.random(), rng.random())  # always drawn: later drives keep theirs
    if power_at(plan, index, t) is PowerState.STANDBY:
        return _rate(0.0, 0.0, 0.0)
    pool = scanning(plan, index, t)
    progress = pool.scan.progress(t) if pool is not None and pool.scan is not None else None
    if pool is None or progress is None:
        scale = plan.drives[index].io_scale
        return _rate(
            1.2 * _MB * scale * jitter[0],
            0.6 * _MB * scale * jitter[1],
            (0.5 + 3.5 * jitter[2]) * scale,
        )
    share = (progress.rate_bytes_per_s or 0.0) / len(members(pool)) * (0.85 + 0.3 * jitter[0])
    if plan.replacement is not None and plan.replacement.new == index:
        return _rate(0.02 * share, share, 70 + 20 * jitter[2])
    return _rate(share, 0.3 * _MB * jitter[1], 55 + 25 * jitter[2])
