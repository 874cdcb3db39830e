"""`Pool` records with their vdev trees, as the ZFS, mdraid and btrfs collectors produce them.

Leaves are named as each tool prints them (ZFS: the by-id name it was added by; mdraid: the
member partition; btrfs: the device) and carry the drive's serial as `Vdev.drive`. A replacement
shows as ZFS shows it: a `replacing-N` vdev holding the missing old disk and the resilvering new
one, collapsing to the new disk when the resilver is done.

Scrubs started, paused or stopped from the UI or the CLI (`ScrubOverride`) replace the plan's
scan of that pool from the moment of the action; what follows depends only on those moments.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import NamedTuple

from nastui.model import Pool, PoolKind, PoolState, ScanKind, ScanProgress, ScanState, Vdev
from nastui.sim.engine import Defects
from nastui.sim.plan import GroupPlan, Plan, PoolPlan, Replacement, ScanPlan

RESILVER_STATUS = (
    "One or more devices is currently being resilvered. The pool will continue to function, "
    "possibly in a degraded state. Action: wait for the resilver to complete."
)
ERROR_STATUS = (
    "One or more devices has experienced an unrecoverable error. An attempt was made to correct "
    "the error. Applications are unaffected. Action: determine if the device needs to be "
    "replaced, and clear the errors using 'zpool clear' or replace the device with 'zpool replace'."
)


def _node(
    kind: PoolKind, name: str, vkind: str, state: PoolState, children: tuple[Vdev, ...]
) -> Vdev:
    """An inner vdev; mdraid reports no error counters, ZFS and btrfs do."""
    zero = None if kind is PoolKind.MDRAID else 0
    return Vdev(name, vkind, state, zero, zero, zero, children=children)


def _leaf(
    plan: Plan,
    kind: PoolKind,
    index: int,
    defects: tuple[Defects, ...],
    *,
    state: PoolState = PoolState.ONLINE,
    note: str | None = None,
) -> Vdev:
    drive = plan.drives[index]
    name = {PoolKind.ZFS: drive.by_id[0], PoolKind.MDRAID: drive.dev + "1"}.get(kind, drive.dev)
    if kind is PoolKind.MDRAID or state is PoolState.AVAIL:
        return Vdev(name, "disk", state, drive=drive.serial, note=note)
    errors = defects[index].read_errors
    return Vdev(name, "disk", state, errors, 0, 0, drive=drive.serial, note=note)


def _replacing(plan: Plan, swap: Replacement, defects: tuple[Defects, ...]) -> Vdev:
    old = Vdev(
        swap.guid,
        "disk",
        PoolState.UNAVAIL,
        0,
        0,
        0,
        note=f"was /dev/disk/by-id/{swap.old_by_id}-part1",
    )
    new = _leaf(plan, PoolKind.ZFS, swap.new, defects, note="(resilvering)")
    name = f"replacing-{swap.position}"
    return Vdev(name, "replacing", PoolState.DEGRADED, 0, 0, 0, children=(old, new))


def _group(
    plan: Plan,
    pool: PoolPlan,
    number: int,
    defects: tuple[Defects, ...],
    swap: Replacement | None,
) -> Vdev:
    group: GroupPlan = pool.groups[number]
    leaves = [_leaf(plan, pool.kind, i, defects) for i in group.members]
    degraded = swap is not None and swap.group == number
    if swap is not None and degraded:
        leaves[swap.position] = _replacing(plan, swap, defects)
    state = PoolState.DEGRADED if degraded else PoolState.ONLINE
    return _node(pool.kind, group.name, group.kind, state, tuple(leaves))


def _spares(plan: Plan, pool: PoolPlan, defects: tuple[Defects, ...]) -> tuple[Vdev, ...]:
    if not pool.spares:
        return ()
    leaves = tuple(_leaf(plan, pool.kind, i, defects, state=PoolState.AVAIL) for i in pool.spares)
    return (Vdev("spares", "spares", PoolState.AVAIL, children=leaves),)


class ScrubOverride(NamedTuple):
    """A pool's scan as changed by scrub actions: started, paused, resumed or canceled.

    Attributes:
        scan: the scan (the plan's own, or one an action started).
        paused_at: when it was paused, while it is.
        paused_for: seconds spent paused before the last resume.
        canceled_at: when it was stopped.
    """

    scan: ScanPlan
    paused_at: float | None = None
    paused_for: float = 0.0
    canceled_at: float | None = None

    def progress(self, t: float) -> ScanProgress | None:
        """The scan at `t`: frozen while paused, ended when canceled."""
        stop = self.canceled_at if self.canceled_at is not None else self.paused_at
        if stop is None or t < stop:
            now = self.scan.progress(t - self.paused_for)
            if now is not None and now.ended_at is not None:
                now = dataclasses.replace(now, ended_at=now.ended_at + self.paused_for)
            return now
        frozen = self.scan.progress(stop - self.paused_for)
        if frozen is None:
            return None
        state = ScanState.PAUSED if self.canceled_at is None else ScanState.CANCELED
        ended = self.canceled_at if state is ScanState.CANCELED else None
        return dataclasses.replace(
            frozen, state=state, ended_at=ended, rate_bytes_per_s=None, eta_seconds=None
        )


def _scans(
    pool: PoolPlan, t: float, override: ScrubOverride | None = None
) -> tuple[ScanProgress | None, ScanProgress | None]:
    """The scan to show (running, or the latest) and the last completed scrub or check."""
    last = pool.last_scrub.progress(t) if pool.last_scrub else None
    if override is not None:
        now = override.progress(t)
    else:
        now = pool.scan.progress(t) if pool.scan else None
    if now is None:
        return last, last
    if now.state is ScanState.FINISHED and now.kind in (ScanKind.SCRUB, ScanKind.CHECK):
        last = now
    return now, last


def _swap(plan: Plan, pool: PoolPlan, t: float) -> Replacement | None:
    """The replacement in this pool while its resilver runs."""
    swap = plan.replacement
    if swap is None or swap.pool != pool.name or pool.scan is None:
        return None
    return swap if pool.scan.running(t) else None


def build_pool(
    plan: Plan,
    pool: PoolPlan,
    t: float,
    defects: tuple[Defects, ...],
    override: ScrubOverride | None = None,
) -> Pool:
    """The pool as its tool reports it at `t` (after any scrub action in `override`)."""
    swap = _swap(plan, pool, t)
    groups = tuple(_group(plan, pool, n, defects, swap) for n in range(len(pool.groups)))
    state = PoolState.DEGRADED if swap else PoolState.ONLINE
    root = _node(pool.kind, pool.name, "root", state, groups + _spares(plan, pool, defects))
    scan, last = _scans(pool, t, override)
    errors = pool.kind is PoolKind.ZFS and any(v.read_errors for _, v in root.walk())
    return Pool(
        name=pool.name,
        kind=pool.kind,
        state=state,
        root=root,
        size_bytes=pool.size_bytes,
        allocated_bytes=pool.allocated_bytes,
        fragmentation_percent=pool.fragmentation,
        scan=scan,
        last_scrub=last,
        status_text=RESILVER_STATUS if swap else ERROR_STATUS if errors else None,
        scrub_schedule=pool.schedule,
        # zpool status's "errors: No known data errors" (device errors were all corrected:
        # ERROR_STATUS says applications are unaffected); md and btrfs report no such count.
        error_count=0 if pool.kind is PoolKind.ZFS else None,
    )


def build_pools(
    plan: Plan,
    t: float,
    defects: tuple[Defects, ...],
    overrides: Mapping[str, ScrubOverride] | None = None,
) -> tuple[Pool, ...]:
    """Every pool of the plan at `t`, with the scans scrub actions changed."""
    changed = overrides or {}
    return tuple(build_pool(plan, pool, t, defects, changed.get(pool.name)) for pool in plan.pools)


def _new_scan(pool: PoolPlan, t: float) -> ScanPlan:
    """A scrub (a check, on md) of the whole pool at the speed of its last one."""
    kind = ScanKind.CHECK if pool.kind is PoolKind.MDRAID else ScanKind.SCRUB
    total = pool.allocated_bytes or pool.size_bytes or 0
    last = pool.last_scrub
    rate = last.bytes_total / last.duration if last and last.duration > 0 else 1.0e9
    return ScanPlan(kind, t, max(60.0, total / rate), total)


def scrub_action(
    pool: PoolPlan, override: ScrubOverride | None, action: str, t: float
) -> tuple[ScrubOverride | None, bool, str]:
    """What a scrub `action` ("start", "pause", "stop") does to `pool` at `t`.

    Returns the pool's new override (unchanged when refused), whether it was done, and the
    line the tool would print.
    """
    noun = "check" if pool.kind is PoolKind.MDRAID else "scrub"
    current = override if override is not None else ScrubOverride(pool.scan) if pool.scan else None
    now = current.progress(t) if current is not None else None
    running = now is not None and now.state is ScanState.RUNNING
    paused = now is not None and now.state is ScanState.PAUSED
    if now is not None and now.kind is ScanKind.RESILVER and running:
        return override, False, f"{pool.name}: a resilver is running; {noun}s wait for it"
    if action == "start":
        if running:
            return override, False, f"{pool.name}: a {noun} is already running"
        if paused and current is not None and current.paused_at is not None:
            spent = current.paused_for + t - current.paused_at
            resumed = current._replace(paused_at=None, paused_for=spent)
            return resumed, True, f"{pool.name}: {noun} resumed (simulated)"
        return ScrubOverride(_new_scan(pool, t)), True, f"{pool.name}: {noun} started (simulated)"
    if current is None or not (running or paused):
        return override, False, f"{pool.name}: there is no {noun} running"
    if action == "pause":
        changed = current if paused else current._replace(paused_at=t)
        return changed, True, f"{pool.name}: {noun} paused (simulated)"
    stopped = current._replace(canceled_at=t)
    return stopped, True, f"{pool.name}: {noun} stopped (simulated)"
