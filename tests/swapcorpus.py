"""Snapshots for the swap tests, from real `zpool status` and `/proc/mdstat` outputs.

A small reader of its own (the `config:` tree by indentation; md array lines and their
`[n/m] [UU_]` status), so the swap tests stay independent of the pool collectors' layout. Every
leaf that answers gets a drive (serial "S-<leaf>", by-id "ata-TEST_4TB_S-<leaf>", 4 TB) sitting
in a bay, in tree order; `free_bays` more bays stay empty.
"""

from __future__ import annotations

import re
from pathlib import Path

from nastui.model import (
    BaySlot,
    Drive,
    DriveIdentity,
    HostSnapshot,
    Pool,
    PoolKind,
    PoolState,
    ScanKind,
    ScanProgress,
    ScanState,
    Vdev,
)

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "swap"
TB4 = 4_000_787_030_016
_TOP = {"logs", "cache", "spares", "special", "dedup"}
# Sample:     md0 : active raid1 sdb1[2] sda1[0]
_MD = re.compile(r"^(?P<name>md\S*) : active (?:\([^)]*\) )?(?P<level>raid\d+) (?P<devs>.*)$")
# Sample:       5860144128 blocks super 1.2 level 5, 64k chunk, algorithm 2 [4/3] [UUU_]
_MD_STATUS = re.compile(r"^\s*(?P<blocks>\d+) blocks.*\[(?P<n>\d+)/(?P<m>\d+)\] \[(?P<map>[U_]+)\]")
_KERNEL_DISK = re.compile(r"^(sd[a-z]+|nvme\d+n\d+|hd[a-z]+)")


def drive_for(leaf: str, capacity: int = TB4) -> Drive:
    """The test drive behind a leaf name (the disk part of a kernel partition name)."""
    match = _KERNEL_DISK.match(leaf)
    dev = match.group(1) if match else leaf.replace("/", "_")
    serial = f"S-{dev}"
    return Drive(
        dev=dev,
        identity=DriveIdentity(model="TEST 4TB", serial=serial, capacity_bytes=capacity),
        by_id=(f"ata-TEST_4TB_{serial}",),
        smart_passed=True,
        power_on_hours=9000,
    )


def _tree_lines(text: str) -> list[tuple[int, list[str]]]:
    lines = text.expandtabs(8).splitlines()
    start = next(i for i, line in enumerate(lines) if line.split()[:2] == ["NAME", "STATE"])
    out = []
    for line in lines[start + 1 :]:
        if not line.strip() or line.lstrip().startswith("errors:"):
            break
        out.append((len(line) - len(line.lstrip()), line.split()))
    return out


def _node(words: list[str], children: tuple[Vdev, ...], drives: dict[str, Drive]) -> Vdev:
    name = words[0]
    state = (
        PoolState(words[1])
        if len(words) > 1 and words[1] in PoolState.__members__
        else (PoolState.UNKNOWN)
    )
    note = " ".join(words[5:]) or None
    if children or name in _TOP:
        kind = re.sub(r"-\d+$", "", name) if not name.startswith("draid") else "draid"
        return Vdev(name, kind, state, 0, 0, 0, children=children, note=note)
    answers = state in (PoolState.ONLINE, PoolState.FAULTED, PoolState.OFFLINE, PoolState.AVAIL)
    answers = answers and not name.isdigit() and not re.match(r"^draid\d-\d+-\d+$", name)
    key = None
    if answers:  # a name seen before (anonymised captures repeat them) gets a drive of its own
        slot = name if name not in drives else f"{name}~{len(drives)}"
        drives[slot] = drive_for(slot)
        key = drives[slot].key
    return Vdev(name, "disk", state, 0, 0, 0, drive=key, note=note)


def _build(
    rows: list[tuple[int, list[str]]], at: int, drives: dict[str, Drive]
) -> tuple[Vdev, int]:
    indent, words = rows[at]
    children = []
    i = at + 1
    while i < len(rows) and rows[i][0] > indent:
        child, i = _build(rows, i, drives)
        children.append(child)
    return _node(words, tuple(children), drives), i


def zpool_pool(name: str) -> tuple[Pool, list[Drive]]:
    """The pool of a `zpool status` fixture, and the drives of its answering leaves."""
    rows = _tree_lines((FIXTURES / name).read_text())
    drives: dict[str, Drive] = {}
    top = [i for i, (indent, _) in enumerate(rows) if indent == rows[0][0]]
    root, _ = _build(rows[: top[1]] if len(top) > 1 else rows, 0, drives)
    extra = []
    for i in top[1:]:
        node, _ = _build(rows, i, drives)
        extra.append(node)
    root = Vdev(root.name, "root", root.state, children=root.children + tuple(extra))
    scrub = ScanProgress(ScanKind.SCRUB, ScanState.FINISHED, 0.0, 36000.0, 36 * 10**12, 36 * 10**12)
    pool = Pool(
        root.name, PoolKind.ZFS, root.state, root, allocated_bytes=36 * 10**12, last_scrub=scrub
    )
    return pool, list(drives.values())


def md_pools(name: str) -> tuple[list[Pool], list[Drive]]:
    """Every array of an mdstat fixture, and the drives behind their members."""
    lines = (FIXTURES / name).read_text().splitlines()
    pools: list[Pool] = []
    drives: dict[str, Drive] = {}
    for i, line in enumerate(lines):
        match = _MD.match(line.strip())
        if match is None:
            continue
        status = _MD_STATUS.match(lines[i + 1])
        assert status is not None, lines[i + 1]
        leaves = []
        for word in match.group("devs").split():
            dev = word.split("[")[0]
            failed = word.endswith("(F)")
            disk = drives.setdefault(drive_for(dev).dev, drive_for(dev))
            state = PoolState.FAULTED if failed else PoolState.ONLINE
            leaves.append(Vdev(dev, "disk", state, drive=disk.key))
        holes = [
            Vdev(f"slot {n}", "disk", PoolState.UNAVAIL, note="missing")
            for n, c in enumerate(status.group("map"))
            if c == "_"
        ]
        level = match.group("level")
        degraded = bool(holes) or any(v.state is not PoolState.ONLINE for v in leaves)
        state = PoolState.DEGRADED if degraded else PoolState.ONLINE
        group = Vdev(level, level, state, children=tuple(leaves + holes))
        root = Vdev(match.group("name"), "root", state, children=(group,))
        size = int(status.group("blocks")) * 1024
        check = ScanProgress(ScanKind.CHECK, ScanState.FINISHED, 0.0, 20000.0, TB4, TB4)
        pools.append(
            Pool(
                match.group("name"), PoolKind.MDRAID, state, root, size_bytes=size, last_scrub=check
            )
        )
    return pools, list(drives.values())


def snapshot(pools: list[Pool], drives: list[Drive], free_bays: int = 0) -> HostSnapshot:
    """A snapshot with the drives in bays 0.. and `free_bays` empty bays after them."""
    slots = [BaySlot(i, d.key, expected=True) for i, d in enumerate(drives)]
    slots += [BaySlot(len(drives) + i, None) for i in range(free_bays)]
    return HostSnapshot(
        "test", 1_700_000_000.0, slots=tuple(slots), drives=tuple(drives), pools=tuple(pools)
    )


def zpool_snapshot(name: str, free_bays: int = 0) -> HostSnapshot:
    """The snapshot of one `zpool status` fixture."""
    pool, drives = zpool_pool(name)
    return snapshot([pool], drives, free_bays)


def md_snapshot(name: str, free_bays: int = 0) -> HostSnapshot:
    """The snapshot of one mdstat fixture."""
    pools, drives = md_pools(name)
    return snapshot(pools, drives, free_bays)
