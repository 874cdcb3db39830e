"""The swap plan: everything to know before a drive is pulled, from one snapshot (pure).

`make_plan(snapshot, target, sectors)` finds the drive (bay, serial or device), its pool and
group, what redundancy is left once it is out (a refusal when pulling it loses data), the free
bays (and then the in-place replacement that keeps redundancy), the operations by stable names,
the expected rebuild time and what the new drive must be.

Rebuild estimate: ZFS resilvers the pool's allocated data; md recovers one member's whole size
(its check figures are per member); btrfs replace copies the device's chunks (allocated x
copies / devices). The rate is the last scrub, check or resilver's (bytes / duration).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from nastui.core.drivename import find_drive
from nastui.model import Drive, HostSnapshot, Pool, PoolKind, PoolState, ScanProgress, Vdev
from nastui.swap.logic.gone import gone_member
from nastui.swap.logic.names import Op, kernel_name
from nastui.swap.logic.ops import build_all_ops
from nastui.swap.logic.redundancy import Redundancy, redundancy

SMR_MODELS = (
    "WDC WD20EFAX",
    "WDC WD30EFAX",
    "WDC WD40EFAX",
    "WDC WD60EFAX",
    "ST2000DM008",
    "ST3000DM007",
    "ST4000DM004",
    "ST6000DM003",
    "ST8000DM004",
    "ST5000LM000",
    "TOSHIBA HDWD240",
    "TOSHIBA HDWD260",
)
"""Models known to be drive-managed SMR (resilvers crawl or time out on ZFS)."""

_COPIES = {"raid1": 2, "raid10": 2, "raid1c3": 3, "raid1c4": 4}


@dataclass(frozen=True, slots=True)
class Sectors:
    """Logical and physical sector size of a drive, from sysfs (queue/*_block_size)."""

    logical: int
    physical: int


@dataclass(frozen=True, slots=True)
class Needs:
    """What the new drive must be.

    Attributes:
        min_bytes: at least this big (the old drive, else the group's smallest other member).
        sectors: the sector sizes of the old drive (or the group's others), when known.
        no_smr: the pool is ZFS: a drive-managed SMR model is refused.
    """

    min_bytes: int | None
    sectors: Sectors | None
    no_smr: bool


@dataclass(frozen=True, slots=True)
class SwapPlan:
    """The plan for taking one drive out (see the module docstring).

    Attributes:
        target: what the user named.
        drive: the drive (None when the target is an empty bay or unknown).
        bay: its bay.
        pool: its pool (None: in no pool).
        group: its top-level vdev / array level.
        member: the member name the pool tool knows it by.
        redundancy: what the group survives (None outside a pool).
        refusal: why not to pull it, or None.
        free_bays: empty bays a new drive could go in first.
        in_place: the replacement can run with the old drive still in (needs a free bay).
        ops: the writes, in order, for the chosen way (pull first, or in place).
        rebuild_bytes, rebuild_rate, rebuild_seconds: the estimate, when known.
        needs: what the new drive must be.
        notes: what else to know (kernel names, spares, failing old drive).
        memberships: every pool the drive is in, the first being `pool`.
    """

    target: str
    drive: Drive | None
    bay: int | None
    pool: Pool | None = None
    group: Vdev | None = None
    member: Vdev | None = None
    redundancy: Redundancy | None = None
    refusal: str | None = None
    free_bays: tuple[int, ...] = ()
    in_place: bool = False
    ops: tuple[Op, ...] = ()
    rebuild_bytes: int | None = None
    rebuild_rate: float | None = None
    rebuild_seconds: float | None = None
    needs: Needs | None = None
    notes: tuple[str, ...] = ()
    memberships: tuple[Membership, ...] = ()

    @property
    def safe_to_pull(self) -> bool:
        """In no pool: nothing to rebuild."""
        return self.drive is not None and self.pool is None


def locate_member(pool: Pool, drive_key: str) -> tuple[Vdev, Vdev] | None:
    """(group, leaf) of the drive in the pool: spares and caches are groups too."""
    for group in pool.root.children:
        for _, node in group.walk():
            if node.drive == drive_key and not node.children:
                return group, node
    return None


def _rate(pool: Pool) -> float | None:
    for scan in (pool.scan, pool.last_scrub):
        if scan is None:
            continue
        if scan.duration and scan.bytes_total:
            return scan.bytes_total / scan.duration
        if scan.rate_bytes_per_s:
            return scan.rate_bytes_per_s
    return None


def _component_bytes(pool: Pool, group: Vdev, last: ScanProgress | None) -> int | None:
    if last is not None and last.bytes_total:
        return last.bytes_total
    members = len([c for c in group.children if c.state is not PoolState.AVAIL])
    data = {"raid1": 1, "raid5": members - 1, "raid6": members - 2, "raid10": members / 2}.get(
        group.kind, members
    )
    return int(pool.size_bytes / data) if pool.size_bytes and data else None


def rebuild_estimate(pool: Pool, group: Vdev) -> tuple[int | None, float | None, float | None]:
    """(bytes, bytes/s, seconds) a rebuild of one member is expected to take."""
    rate = _rate(pool)
    if pool.kind is PoolKind.MDRAID:
        size = _component_bytes(pool, group, pool.last_scrub)
    elif pool.kind is PoolKind.BTRFS:
        devices = max(1, len(group.children))
        copies = _COPIES.get(group.kind, 1)
        used = pool.allocated_bytes
        size = used * copies // devices if used is not None else None
        rate = rate / devices if rate else None
    else:
        size = pool.allocated_bytes
    seconds = size / rate if size is not None and rate else None
    return size, rate, seconds


def _needs(
    snapshot: HostSnapshot,
    pool: Pool,
    group: Vdev,
    drive: Drive,
    sectors: Mapping[str, Sectors],
) -> Needs:
    others = [snapshot.drive(k) for _, v in group.walk() if (k := v.drive) and k != drive.key]
    sizes = [d.identity.capacity_bytes for d in others if d and d.identity.capacity_bytes]
    size = drive.identity.capacity_bytes or (min(sizes) if sizes else None)
    sector = sectors.get(drive.key) or next(
        (sectors[d.key] for d in others if d and d.key in sectors), None
    )
    return Needs(size, sector, pool.kind is PoolKind.ZFS)


def is_smr(model: str | None) -> bool:
    """A known drive-managed SMR model."""
    text = (model or "").upper()
    return any(text.startswith(m.upper()) or m.upper() in text for m in SMR_MODELS)


def free_bays(snapshot: HostSnapshot, exclude: int | None) -> tuple[int, ...]:
    """Empty bays (not the target's)."""
    return tuple(s.bay for s in snapshot.slots if s.drive is None and s.bay != exclude)


@dataclass(frozen=True, slots=True)
class Membership:
    """One pool the drive is in (a drive with md partitions can be in several arrays)."""

    pool: Pool
    group: Vdev
    member: Vdev
    redundancy: Redundancy

    @property
    def op_target(self) -> str:
        """What the pool's commands name: the pool, /dev/mdX or the btrfs mount point."""
        if self.pool.kind is PoolKind.MDRAID:
            return f"/dev/{self.pool.name}"
        if self.pool.kind is PoolKind.BTRFS:
            return self.pool.mountpoint or self.pool.name
        return self.pool.name


def memberships(snapshot: HostSnapshot, drive: Drive) -> list[Membership]:
    """Every pool the drive is a member of (hot-spare groups included), in snapshot order."""
    out = []
    for pool in snapshot.pools:
        found = locate_member(pool, drive.key)
        if found is not None:
            group, leaf = found
            red = redundancy(pool.kind, pool.root, group, drive.key)
            out.append(Membership(pool, group, leaf, red))
    return out


def _notes(found: list[Membership], free: tuple[int, ...], answers: bool) -> list[str]:
    notes: list[str] = []
    for m in found:
        notes += [n for n in m.redundancy.notes if n not in notes]
        if kernel_name(m.member.name) and m.pool.kind is PoolKind.ZFS:
            notes.append(
                f"{m.pool.name} knows this member by its kernel name {m.member.name}, which "
                "moves on reboot: the command names it so only because ZFS matches it against "
                "its own record"
            )
    if any(not m.member.drive or m.member.state is not PoolState.ONLINE for m in found[:1]):
        notes.append("the old drive is already out of service: nothing to prepare")
    if len(found) > 1:
        names = ", ".join(m.pool.name for m in found)
        notes.append(f"this drive is in {len(found)} pools ({names}): every one is rebuilt")
    if any(m.redundancy.refusal for m in found) and free and answers:
        notes.append(
            f"in place could keep the data: put the new drive in free bay {free[0]} first "
            "(`swap start --in-place`; not for md: a new md member fills the missing slot first)"
        )
    return notes


def _refusal(found: list[Membership], in_place: bool) -> str | None:
    for m in found:
        why = m.redundancy.refusal
        if why and not (in_place and m.pool.kind is not PoolKind.MDRAID):
            return why if len(found) == 1 else f"{m.pool.name}: {why}"
    return None


def make_plan(
    snapshot: HostSnapshot,
    target: str,
    sectors: Mapping[str, Sectors] | None = None,
    *,
    in_place: bool | None = None,
) -> SwapPlan:
    """The plan for `target` (see the module docstring); `in_place` forces the way (None: in
    place when a free bay exists, the old drive still answers and nothing is refused)."""
    drive, bay = find_drive(snapshot, target)
    gone = gone_member(snapshot, target, bay) if drive is None else None
    if gone is not None:
        snapshot, drive = gone
    if drive is None:
        where = f"bay {bay} is empty" if bay is not None else f"no drive {target!r}"
        return SwapPlan(target, None, bay, refusal=f"{where}: nothing to swap")
    free = free_bays(snapshot, bay)
    found = memberships(snapshot, drive)
    if not found:
        return SwapPlan(
            target, drive, bay, free_bays=free, notes=("nothing to rebuild, safe to pull",)
        )
    first = found[0]
    pool, group, leaf = first.pool, first.group, first.member
    if group.kind in ("spares", "spare"):
        note = (
            f"{leaf.name} is an unused hot spare of {pool.name}: nothing to rebuild; afterwards "
            f"`zpool remove {pool.name} {leaf.name}` and `zpool add {pool.name} spare` the new one"
        )
        return SwapPlan(target, drive, bay, pool, group, leaf, free_bays=free, notes=(note,))
    answers = all(m.member.state is PoolState.ONLINE for m in found)
    known = all(m.redundancy.parity is not None for m in found)
    refused = any(m.redundancy.refusal for m in found)
    way = bool(free) and answers and known and not refused if in_place is None else in_place
    estimates = [rebuild_estimate(m.pool, m.group) for m in found]
    seconds = [e[2] for e in estimates]
    return SwapPlan(
        target,
        drive,
        bay,
        pool,
        group,
        leaf,
        first.redundancy,
        _refusal(found, way),
        free,
        way,
        build_all_ops(snapshot, [(m.pool, m.group, m.member) for m in found], drive, in_place=way),
        estimates[0][0],
        estimates[0][1],
        sum(s for s in seconds if s is not None) if all(s is not None for s in seconds) else None,
        _needs(snapshot, pool, group, drive, sectors or {}),
        tuple(_notes(found, free, answers)),
        tuple(found),
    )
