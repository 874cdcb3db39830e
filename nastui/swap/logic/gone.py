"""A swap target whose drive is already gone: found in the pool by its serial (pure).

A dead drive often vanishes from the bus before anyone plans its swap: the bay is MISSING and
the pool shows a member UNAVAIL or REMOVED, named by its by-id (which holds the serial) or by
its GUID with "was /dev/disk/by-id/..." beside it. `gone_member` finds that member from the bay's
configured serial (or a serial given as the target) and returns the snapshot with the member
tied to a stand-in drive, so the plan treats it as the drive to replace, already pulled.
"""

from __future__ import annotations

import dataclasses

from nastui.model import Drive, DriveIdentity, HostSnapshot, PoolState, Vdev

_GONE = (PoolState.UNAVAIL, PoolState.REMOVED, PoolState.FAULTED, PoolState.OFFLINE)


def _serial_of(snapshot: HostSnapshot, target: str, bay: int | None) -> str | None:
    if bay is not None:
        slot = snapshot.slot(bay)
        wanted = slot.wanted if slot is not None else None
        if wanted and wanted.startswith("serial "):
            return wanted.removeprefix("serial ").strip()
        return None
    return target if len(target) >= 6 and not target.startswith("/") else None


def _mentions(leaf: Vdev, serial: str) -> bool:
    text = f"{leaf.name} {leaf.note or ''}"
    return serial.lower() in text.lower()


def _tie(node: Vdev, serial: str) -> tuple[Vdev, bool]:
    if not node.children:
        hit = node.drive is None and node.state in _GONE and _mentions(node, serial)
        return (dataclasses.replace(node, drive=serial), True) if hit else (node, False)
    found = False
    children = []
    for child in node.children:
        tied, hit = _tie(child, serial) if not found else (child, False)
        found = found or hit
        children.append(tied)
    return dataclasses.replace(node, children=tuple(children)), found


def gone_member(
    snapshot: HostSnapshot, target: str, bay: int | None
) -> tuple[HostSnapshot, Drive] | None:
    """(the snapshot with the member tied to a stand-in, the stand-in) for a gone drive."""
    serial = _serial_of(snapshot, target, bay)
    if serial is None:
        return None
    pools = []
    hit = False
    for pool in snapshot.pools:
        root, found = _tie(pool.root, serial) if not hit else (pool.root, False)
        hit = hit or found
        pools.append(dataclasses.replace(pool, root=root))
    if not hit:
        return None
    stand_in = Drive(dev="", identity=DriveIdentity(serial=serial))
    return dataclasses.replace(snapshot, pools=tuple(pools)), stand_in
