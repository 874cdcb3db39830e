"""How much redundancy a pool's group has now and once one member is out (pure).

A group is a top-level vdev (ZFS mirror, raidz1-3, dRAID), an md array level (raid1/5/6/10) or a
btrfs data profile. Its *parity* is how many members it can lose; its *missing* members are the
children not healthy; what is left once the target is out is parity minus the children that would
then be unhealthy. Below zero, pulling the target loses data: the plan refuses.

Children of a group are leaves or inner nodes (ZFS `replacing-N`, `spare-N`): an inner node is
healthy while any of its leaves other than the target is ONLINE and not resilvering (a hot spare
standing in for a failed drive keeps the group whole).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from nastui.model import PoolKind, PoolState, Vdev

# Sample: draid2:4d:11c:1s-0
_DRAID = re.compile(r"^draid(?P<parity>[123])?(?::(?P<data>\d+)d)?(?::\d+c)?(?::(?P<spares>\d+)s)?")
# Sample: draid1-0-0  (a distributed spare: parity 1, vdev 0, spare 0)
_DRAID_SPARE = re.compile(r"^draid\d-\d+-\d+$")
_PARITY = {
    "raidz": 1,
    "raidz1": 1,
    "raidz2": 2,
    "raidz3": 3,
    "raid1c3": 2,
    "raid1c4": 3,
    "raid5": 1,
    "raid6": 2,
    "raid4": 1,
    "raid0": 0,
    "single": 0,
    "dup": 0,
    "linear": 0,
    "disk": 0,
}
_SPARE_KINDS = ("spares", "spare")


@dataclass(frozen=True, slots=True)
class Redundancy:
    """The target's group and what it can survive.

    Attributes:
        layout: "raidz2", "mirror of 3", "draid2 (1 distributed spare)", "md raid10"...
        parity: members the group can lose when whole (None: unknown layout).
        missing_now: children unhealthy now (the target included when it has failed).
        left_after: members it can still lose once the target is out (negative: data loss).
        others_missing: names of the other children not healthy.
        refusal: why pulling the target would lose data, or None.
        notes: more to know (hot spares, dRAID spares, a guessed layout).
    """

    layout: str
    parity: int | None
    missing_now: int
    left_after: int | None
    others_missing: tuple[str, ...]
    refusal: str | None
    notes: tuple[str, ...] = ()


def _resilvering(leaf: Vdev) -> bool:
    return "resilvering" in (leaf.note or "") or "recovering" in (leaf.note or "")


def leaf_healthy(leaf: Vdev, *, draid: bool = False) -> bool:
    """ONLINE and not being rebuilt. A dRAID rebuild marks every leaf "(resilvering)": there
    only the distributed spare's mark counts (it holds the lost member's data once done)."""
    if leaf.state is not PoolState.ONLINE:
        return False
    if draid and not _DRAID_SPARE.match(leaf.name):
        return True
    return not _resilvering(leaf) and "not in sync" not in (leaf.note or "")


def _is_target(node: Vdev, target: str) -> bool:
    return target in (node.drive, node.name)


def child_healthy(child: Vdev, target: str | None, *, draid: bool = False) -> bool:
    """Whether this child of a group still holds its data with `target` gone (None: as now)."""
    if not child.children:
        return (target is None or not _is_target(child, target)) and leaf_healthy(
            child, draid=draid
        )
    return any(
        child_healthy(leaf, target, draid=draid)
        for leaf in child.children
        if leaf.state is not PoolState.AVAIL
    )


def group_parity(kind: PoolKind, group: Vdev) -> tuple[int | None, str, tuple[str, ...]]:
    """(parity, layout text, notes) of a group."""
    name = group.kind.lower()
    children = [c for c in group.children if c.state is not PoolState.AVAIL]
    if name == "mirror" or (kind is PoolKind.MDRAID and name == "raid1"):
        word = "md raid1" if kind is PoolKind.MDRAID else "mirror"
        return len(children) - 1, f"{word} of {len(children)}", ()
    match = _DRAID.match(group.name) if name.startswith("draid") else None
    if match is not None:
        parity = int(match.group("parity") or 1)
        spares = int(match.group("spares") or 0)
        note = f"{spares} distributed spare(s): ZFS rebuilds onto one at once" if spares else ""
        return parity, f"draid{parity} ({spares} distributed spare)", (note,) if note else ()
    if name == "raid10":
        notes = ("raid10: counted as one mirror copy per pair (mdadm's default near=2)",)
        prefix = "md " if kind is PoolKind.MDRAID else "btrfs "
        return 1, f"{prefix}raid10 of {len(children)}", notes
    if name in _PARITY:
        prefix = {PoolKind.MDRAID: "md ", PoolKind.BTRFS: "btrfs "}.get(kind, "")
        return _PARITY[name], f"{prefix}{name} of {len(children)}", ()
    if kind is PoolKind.BTRFS and name == "raid1":
        return 1, f"btrfs raid1 of {len(children)}", ()
    return None, f"{name} (unknown layout)", ()


def _spare_notes(root: Vdev) -> tuple[str, ...]:
    spares = [leaf for top in root.children if top.kind in _SPARE_KINDS for leaf in top.children]
    avail = [s.name for s in spares if s.state is PoolState.AVAIL]
    inuse = [s.name for s in spares if s.state is PoolState.INUSE]
    notes = []
    if avail:
        notes.append(f"hot spare(s) available: {', '.join(avail)} (one may take over on a fault)")
    if inuse:
        notes.append(f"hot spare(s) in use: {', '.join(inuse)} (freed when the replace finishes)")
    return tuple(notes)


def redundancy(kind: PoolKind, root: Vdev, group: Vdev, target: str) -> Redundancy:
    """What `group` of the pool whose tree is `root` survives with `target` (a drive key or a
    leaf name) pulled."""
    parity, layout, notes = group_parity(kind, group)
    draid = group.kind.startswith("draid")
    members = [c for c in group.children if c.state is not PoolState.AVAIL]
    now_bad = [c for c in members if not child_healthy(c, None, draid=draid)]
    after_bad = [c for c in members if not child_healthy(c, target, draid=draid)]
    others = tuple(c.name for c in now_bad if not any(_is_target(n, target) for _, n in c.walk()))
    notes = notes + _spare_notes(root)
    if parity is None:
        unknown = f"{group.name}: unknown layout {group.kind!r}: nastui cannot tell what is safe"
        return Redundancy(layout, None, len(now_bad), None, others, unknown, notes)
    left = parity - len(after_bad)
    refusal: str | None = None
    if group.kind == "raid10" and others:
        refusal = (
            f"{group.name}: raid10 already misses {', '.join(others)}; nastui cannot prove it "
            "is not this member's mirror: check `mdadm --detail` first"
        )
    elif left < 0:
        where = group.name if kind is PoolKind.ZFS else f"{root.name} {group.name}"
        refusal = _refusal(where, group, layout, others, parity)
    return Redundancy(layout, parity, len(now_bad), left, others, refusal, notes)


def _refusal(where: str, group: Vdev, layout: str, others: tuple[str, ...], parity: int) -> str:
    gone = ", ".join(others) or "another member"
    if group.kind == "mirror" or layout.startswith(("mirror", "md raid1 ")):
        return (
            f"{where}: the mirror's other side ({gone}) is already gone: "
            "pulling this loses the data"
        )
    if parity == 0:
        return f"{where}: {layout} has no redundancy: pulling a member loses the data"
    return (
        f"{where}: {layout} can lose {parity} member(s) and already misses {gone}: "
        "pulling this loses the data"
    )
