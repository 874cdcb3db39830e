"""The operator's hands on the simulated NAS: pulls, inserts, failures and swap commands.

The demo keeps them as *demo-state-directory actions*: `hands.json` in the scenario's demo state
directory lists what was done and when (simulated time), and how far the demo clock was moved on
(`nastui --demo swap sim wait SECONDS`). Every command that opens the demo applies them to each
snapshot (`apply_hands`), so `swap`, `status`, `pools` and the interface all see the pulled bay,
the new drive and the rebuild. Chosen over time-driven scenario phases because a swap is driven
by the operator: the same scenario can be walked right, with a wrong pull, a used or too-small
drive, or a second failure mid-rebuild, in any order.

Insert variants: "new" (clean, 12 h), "used" (31,000 h, partitions and an md holder, 8
reallocated sectors), "small" (half the size), "smr" (a drive-managed SMR model), "4kn"
(4096-byte logical sectors), "old" (the drive taken out, back again).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from nastui.model import (
    BaySlot,
    Drive,
    HostSnapshot,
    MappedBy,
    NvmeHealth,
    Pool,
    PoolKind,
    PoolState,
    ScanKind,
    SmartAttribute,
    Vdev,
)
from nastui.safeio import write_atomic
from nastui.sim.drives import TEMPERATURE_IDS, Mine, own_table
from nastui.sim.engine import Defects
from nastui.sim.hands import HANDS_FILE, Hand, Hands, encode_hands
from nastui.sim.plan import ScanPlan
from nastui.sim.profiles import profile_of_model
from nastui.swap.logic.argv import Ran, argv_for
from nastui.swap.logic.burnin import BurnIn, burnin_argv
from nastui.swap.logic.hands import Members
from nastui.swap.logic.names import Op, OpKind
from nastui.swap.logic.plan import Sectors, locate_member, rebuild_estimate

VARIANTS = ("new", "used", "small", "smr", "4kn", "old")
_REBUILD_KIND = {
    PoolKind.ZFS: ScanKind.RESILVER,
    PoolKind.MDRAID: ScanKind.RECOVERY,
    PoolKind.BTRFS: ScanKind.REPLACE,
}


def new_serial(bay: int | None, variant: str, count: int) -> str:
    """The serial of the n-th drive inserted: "SIMNEW10A" for a new one in bay 10."""
    tag = {"new": "", "used": "U", "small": "S", "smr": "M", "4kn": "K"}.get(variant, "")
    return f"SIMNEW{bay if bay is not None else 0}{tag}{chr(ord('A') + count % 26)}"


def _table(template: Drive, hours: int, used: bool) -> tuple[SmartAttribute, ...]:
    """A new drive's own attribute table: its profile's (the template's model), with its
    hours, a new drive's lifetime counters and no defects (8 reallocated sectors when used);
    nothing of the drive it replaces but the temperature of the bay."""
    prof = profile_of_model(template.identity.model)
    read = [float(a.raw) for a in template.attributes if a.id in TEMPERATURE_IDS and a.raw]
    celsius = read[0] if read else template.temperature.celsius if template.temperature else 0.0
    wear = hours / prof.power_on_hours if prof and prof.power_on_hours else 0.0
    own = Mine(hours, wear, celsius, Defects(realloc=8) if used else Defects())
    return own_table(prof.attributes if prof else template.attributes, own)


def _dev_name(count: int, *, nvme: bool) -> str:
    """The n-th inserted drive's kernel name, past any scenario's own (sddx, nvme3n1 at most)."""
    return f"nvme{10 + count}n1" if nvme else f"sdz{chr(ord('a') + count % 26)}"


def _health_log(template: NvmeHealth, hours: int, used: bool) -> NvmeHealth:
    """A new NVMe drive's own health log: its hours, no media errors or warnings, a full spare
    (a used one: 9 % worn, 14 unsafe shutdowns); only the spare threshold, which is the
    model's, is the replaced drive's."""
    return NvmeHealth(
        critical_warning=0,
        percentage_used=9 if used else 0,
        available_spare=100,
        available_spare_threshold=template.available_spare_threshold,
        media_errors=0,
        unsafe_shutdowns=14 if used else 0,
        power_on_hours=hours,
        data_units_written=hours * 2_000 if used else hours * 20,
        error_log_entries=0,
    )


def _new_drive(template: Drive, hand: Hand, count: int, old: Drive | None, t: float) -> Drive:
    """The drive inserted by `hand` as of `t`: the old one back, or one modelled on
    `template` (the drive it replaces) with its own serial and counters."""
    if hand.variant == "old" and old is not None:
        return old
    serial = new_serial(hand.bay, hand.variant, count)
    ident = template.identity
    capacity = ident.capacity_bytes
    model = ident.model
    if hand.variant == "small" and capacity:
        capacity //= 2
    if hand.variant == "smr":
        model = "WDC WD40EFAX-68JH4N0"
    used = hand.variant == "used"
    hours = (31_412 if used else 12) + max(0, math.floor((t - hand.at) / 3600))
    attrs = _table(template, hours, used)
    nvme = template.nvme is not None
    dev = _dev_name(count, nvme=nvme)
    by_id = f"{'nvme' if nvme else 'ata'}-{(model or 'SIM').replace(' ', '_')}_{serial}"
    return dataclasses.replace(
        template,
        dev=dev,
        identity=dataclasses.replace(
            ident, serial=serial, model=model, capacity_bytes=capacity, wwn=None
        ),
        by_id=(by_id,),
        by_vdev=None,
        attributes=attrs,
        nvme=_health_log(template.nvme, hours, used) if template.nvme else None,
        power_on_hours=hours,
        smart_passed=True,
        self_tests=(),
        acks=(),
        partitions=(f"{dev}{'p' if nvme else ''}1", f"{dev}{'p' if nvme else ''}2") if used else (),
        holders=("md127",) if used else (),
    )


def sectors_of(hands: Hands, snapshot: HostSnapshot) -> dict[str, Sectors]:
    """Sector sizes of every drive: 512e for disks, 4Kn for a "4kn" insert."""
    kn = {
        new_serial(h.bay, h.variant, i) for i, h in enumerate(_inserts(hands)) if h.variant == "4kn"
    }
    return {
        d.key: Sectors(4096, 4096) if d.key in kn else Sectors(512, 4096) for d in snapshot.drives
    }


def _inserts(hands: Hands) -> list[Hand]:
    return [h for h in hands.done if h.kind == "insert"]


def _map(node: Vdev, fn: Callable[[Vdev], Vdev | None]) -> Vdev:
    """The tree with every leaf passed through `fn` (None keeps it), states recomputed."""
    if not node.children:
        return fn(node) or node
    children = tuple(_map(c, fn) for c in node.children)
    bad = any(c.state not in (PoolState.ONLINE, PoolState.AVAIL, PoolState.INUSE) for c in children)
    busy = any(
        word in (v.note or "")
        for c in children
        for _, v in c.walk()
        for word in ("resilvering", "recovering", "replace target")
    )
    state = PoolState.DEGRADED if bad or busy else node.state
    if node.kind in ("spares", "spare"):
        state = node.state
    if not bad and not busy and node.state is PoolState.DEGRADED:
        state = PoolState.ONLINE
    return dataclasses.replace(node, children=children, state=state)


@dataclass
class _Box:
    """The snapshot being changed, hand by hand."""

    drives: dict[str, Drive]
    slots: dict[int, BaySlot]
    originals: dict[str, Drive]
    pulled: dict[str, int | None] = dataclasses.field(default_factory=dict)
    failed: set[str] = dataclasses.field(default_factory=set)
    offline: set[str] = dataclasses.field(default_factory=set)
    replaces: list[Hand] = dataclasses.field(default_factory=list)


def _hand(box: _Box, hand: Hand, count: int, template: Drive | None, t: float) -> None:
    slot = box.slots.get(hand.bay) if hand.bay is not None else None
    if hand.kind == "pull" and slot is not None and slot.drive in box.drives:
        key = slot.drive
        del box.drives[key]
        box.pulled[key] = hand.bay
        box.slots[slot.bay] = dataclasses.replace(slot, drive=None, mapped_by=None)
    elif hand.kind == "insert" and slot is not None and slot.drive is None and template:
        back = [k for k, b in box.pulled.items() if b == hand.bay]
        old = box.originals.get(back[-1]) if back else None
        drive = _new_drive(box.originals.get(hand.like, template), hand, count, old, t)
        box.drives[drive.key] = drive
        box.pulled.pop(drive.key, None)
        box.slots[slot.bay] = dataclasses.replace(slot, drive=drive.key, mapped_by=MappedBy.BY_PATH)
    elif hand.kind == "fail" and slot is not None and slot.drive in box.drives:
        box.failed.add(slot.drive)
        box.drives[slot.drive] = dataclasses.replace(box.drives[slot.drive], smart_passed=False)
    elif hand.kind == "offline":
        box.offline.add(hand.member)
    elif hand.kind == "online":
        box.offline.discard(hand.member)
    elif hand.kind == "replace":
        box.replaces.append(hand)


def _leaf_fn(box: _Box, kind: PoolKind) -> Callable[[Vdev], Vdev | None]:
    missing = PoolState.REMOVED if kind is PoolKind.ZFS else PoolState.UNAVAIL

    def change(leaf: Vdev) -> Vdev | None:
        key = leaf.drive or ""
        if leaf.name in box.offline or key in box.offline:
            return dataclasses.replace(leaf, state=PoolState.OFFLINE, drive=key or None)
        if key in box.pulled:
            return dataclasses.replace(leaf, state=missing, drive=None, note="missing")
        if key in box.failed:
            return dataclasses.replace(
                leaf, state=PoolState.FAULTED, read_errors=24, note="too many errors"
            )
        return None

    return change


def _member_name(kind: PoolKind, drive: Drive) -> str:
    return {
        PoolKind.ZFS: drive.by_id[0] if drive.by_id else drive.dev,
        PoolKind.MDRAID: drive.dev + "1",
    }.get(kind, drive.dev)


def _replaced(pool: Pool, hand: Hand, box: _Box, t: float, original: Pool) -> Pool:
    new = box.drives.get(hand.new)
    if new is None:
        return pool
    found = next(
        (
            (g, leaf)
            for g in original.root.children
            for _, leaf in g.walk()
            if leaf.name == hand.member
        ),
        None,
    )
    group = found[0] if found else original.root.children[0]
    size, _, seconds = rebuild_estimate(original, group)
    total = size or 10**12
    scan = ScanPlan(_REBUILD_KIND[pool.kind], hand.at, max(600.0, seconds or 3600.0), total)
    running = scan.running(t)
    zero = None if pool.kind is PoolKind.MDRAID else 0
    leaf_new = Vdev(
        _member_name(pool.kind, new), "disk", PoolState.ONLINE, zero, zero, zero, drive=new.key
    )
    if running:
        note = {PoolKind.ZFS: "(resilvering)", PoolKind.MDRAID: "(recovering)"}.get(
            pool.kind, "(replace target)"
        )
        leaf_new = dataclasses.replace(leaf_new, note=note)

    def swap_leaf(leaf: Vdev) -> Vdev | None:
        if leaf.name != hand.member:
            return None
        if running and pool.kind is PoolKind.ZFS:
            return Vdev(
                "replacing-0", "replacing", PoolState.DEGRADED, 0, 0, 0, children=(leaf, leaf_new)
            )
        return leaf_new

    return dataclasses.replace(pool, root=_map(pool.root, swap_leaf), scan=scan.progress(t))


def apply_hands(snapshot: HostSnapshot, hands: Hands) -> HostSnapshot:
    """The snapshot as the hands done by its time left it (see the module docstring)."""
    t = snapshot.taken_at
    done = [h for h in hands.done if h.at <= t]
    if not done:
        return snapshot
    originals = {d.key: d for d in snapshot.drives}
    box = _Box(dict(originals), {s.bay: s for s in snapshot.slots}, originals)
    template = snapshot.drives[0] if snapshot.drives else None
    for count, hand in enumerate(done):
        _hand(box, hand, sum(1 for h in done[:count] if h.kind == "insert"), template, t)
    pools = []
    for original in snapshot.pools:
        pool = dataclasses.replace(original, root=_map(original.root, _leaf_fn(box, original.kind)))
        for hand in box.replaces:
            if hand.pool == original.name:
                pool = _replaced(pool, hand, box, t, original)
        pools.append(dataclasses.replace(pool, state=pool.root.state))
    return dataclasses.replace(
        snapshot,
        drives=tuple(box.drives.values()),
        slots=tuple(box.slots[b] for b in sorted(box.slots)),
        pools=tuple(pools),
    )


def hands_for(
    ops: Iterable[Op], at: float, *, new_key: str, members: Iterable[tuple[str, str, str]]
) -> list[Hand]:
    """What the swap's commands do on the simulator: offline a member (online it again, an
    abort's undo), or start the rebuild
    (`members`: pool, what its commands name, member, as kept in the swap)."""
    where = {target: (pool, member) for pool, target, member in members}
    out = []
    for op in ops:
        pool, member = where.get(op.target, ("", ""))
        if op.kind in (OpKind.ZPOOL_OFFLINE, OpKind.MD_FAIL):
            out.append(Hand("offline", at, pool=pool, member=member))
        elif op.kind in (OpKind.ZPOOL_ONLINE, OpKind.MD_READD):
            out.append(Hand("online", at, pool=pool, member=member))
        elif op.kind in (OpKind.ZPOOL_REPLACE, OpKind.MD_ADD, OpKind.BTRFS_REPLACE):
            out.append(Hand("replace", at, pool=pool, member=member, new=new_key))
    return out


def member_of(snapshot: HostSnapshot, key: str) -> Mapping[str, str]:
    """{"pool": ..., "member": ...} of a drive, for the simulated commands."""
    for pool in snapshot.pools:
        found = locate_member(pool, key)
        if found is not None:
            return {"pool": pool.name, "member": found[1].name}
    return {}


class HandsHolder(Protocol):
    """Where the simulator keeps the hands (`SimBackend`): applied to every snapshot."""

    hands: Hands
    hands_dir: Path | None


class SimSwap:
    """The swap's hands on the simulator (`nastui.swap.logic.hands.SwapHands`): its commands
    become hands on the box, kept in the demo's state directory when it has one (so another
    command, or a running interface, sees them), in memory otherwise."""

    def __init__(self, box: HandsHolder) -> None:
        self._box = box

    def add(self, hands: Iterable[Hand]) -> None:
        """Record what the operator (or a simulated command) did to the box, and keep it."""
        for hand in hands:
            self._box.hands = self._box.hands.plus(hand)
        self.save()

    def wait(self, seconds: float) -> None:
        """Move the demo's time on by `seconds` (`nastui --demo swap sim wait`), and keep it."""
        hands = self._box.hands
        self._box.hands = hands._replace(offset_s=hands.offset_s + seconds)
        self.save()

    def save(self) -> None:
        """hands.json in the demo's state directory (none for a demo without one)."""
        if self._box.hands_dir is not None:
            write_atomic(self._box.hands_dir / HANDS_FILE, encode_hands(self._box.hands), 0o644)

    def sectors(self, snapshot: HostSnapshot) -> dict[str, Sectors]:
        """512e for disks, 4Kn for a "4kn" insert (`sectors_of`)."""
        return sectors_of(self._box.hands, snapshot)

    async def in_use(self, drive: Drive) -> tuple[str, ...]:
        """Its holders and partitions (a "used" insert has both)."""
        return tuple(f"holder {h}" for h in drive.holders) + tuple(
            f"partition {p}" for p in drive.partitions
        )

    async def write(
        self, ops: tuple[Op, ...], at: float, *, new_key: str, members: Members
    ) -> list[Ran]:
        """The commands played as hands (`hands_for`): an offline, a rebuild started."""
        self.add(hands_for(ops, at, new_key=new_key, members=members))
        return [Ran(argv_for(op), True, "done (simulated)") for op in ops]

    async def burn_in(self, device: str, tool: str, timeout: float) -> BurnIn:
        """A simulated drive is never in use and never fails its burn-in."""
        return BurnIn(True, False, "nothing found (simulated)", burnin_argv(tool, device))
