"""`Pool` records with their vdev trees, as the ZFS, mdraid and btrfs collectors produce them.

Leaves are named as each tool prints them (ZFS: the by-id name it was added by; mdraid: the
member partition; btrfs: the device) and carry the drive's serial as `Vdev.drive`. A replacement
shows as ZFS shows it: a `replacing-N` vdev holding the missing old disk and the resilvering new
one, collapsing to the new disk when the resilver is done.
"""

from __future__ import annotations

from nastui.model import Pool, PoolKind, PoolState, ScanKind, ScanProgress, ScanState, Vdev
from nastui.sim.engine import Defects
from nastui.sim.plan import GroupPlan, Plan, PoolPlan, Replacement

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


def _scans(pool: PoolPlan, t: float) -> tuple[ScanProgress | None, ScanProgress | None]:
    """The scan to show (running, or the latest) and the last completed scrub or check."""
    last = pool.last_scrub.progress(t) if pool.last_scrub else None
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


def build_pool(plan: Plan, pool: PoolPlan, t: float, defects: tuple[Defects, ...]) -> Pool:
    """The pool as its tool reports it at `t`."""
    swap = _swap(plan, pool, t)
    groups = tuple(_group(plan, pool, n, defects, swap) for n in range(len(pool.groups)))
    state = PoolState.DEGRADED if swap else PoolState.ONLINE
    root = _node(pool.kind, pool.name, "root", state, groups + _spares(plan, pool, defects))
    scan, last = _scans(pool, t)
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
    )


def build_pools(plan: Plan, t: float, defects: tuple[Defects, ...]) -> tuple[Pool, ...]:
    """Every pool of the plan at `t`."""
    return tuple(build_pool(plan, pool, t, defects) for pool in plan.pools)
