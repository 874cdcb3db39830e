"""The `truenas` profile: TrueNAS (TRUENAS-MIB) and FreeNAS 11 (FREENAS-MIB), enterprise 50536.

zpoolTable has two layouts under the same OID. FREENAS-MIB: .2 zpoolDescr, .3 allocation
units, .4 size, .5 used, .6 available (in units), .7 zpoolHealth as an INTEGER (online(0),
degraded(1), faulted(2), offline(3), unavail(4), removed(5)). TRUENAS-MIB: .2 zpoolName,
.3 zpoolHealth as text ("ONLINE"), then I/O counters, no sizes. A text column 3 tells them
apart. Pools are ZFS pools with a bare root vdev (the MIB has no vdev tree).
hddTempTable (TRUENAS-MIB only) gives one drive per device name with its temperature in
millidegrees; it says nothing of health, so those drives stay unassessed.
"""

from __future__ import annotations

from nastui.collectors.snmp_profiles.base import Oid, Profile, Walk, oid
from nastui.collectors.snmp_profiles.tables import (
    Notes,
    Row,
    drive_temperature,
    index_text,
    integer,
    read_rows,
    scaled,
    table,
    text,
)
from nastui.model import Drive, DriveIdentity, HostSnapshot, Pool, PoolKind, PoolState, Vdev

NAME = "truenas"
SOURCE = f"snmp:{NAME}"
ZPOOL_ENTRY = oid("1.3.6.1.4.1.50536.1.1.1.1")
HDD_TEMP_ENTRY = oid("1.3.6.1.4.1.50536.3.1")  # .2 device, .3 value (mC)
ROOTS: tuple[Oid, ...] = (oid("1.3.6.1.4.1.50536.1.1"), oid("1.3.6.1.4.1.50536.3"))
FREENAS_HEALTH = {
    0: PoolState.ONLINE,
    1: PoolState.DEGRADED,
    2: PoolState.FAULTED,
    3: PoolState.OFFLINE,
    4: PoolState.UNAVAIL,
    5: PoolState.REMOVED,
}


def _state_from_text(health: str) -> PoolState:
    try:
        return PoolState(health.upper())
    except ValueError:
        return PoolState.UNKNOWN


def _pool(row: Row) -> Pool | None:
    name = text(row.get(2))
    if name is None:
        return None
    health_text = text(row.get(3)) if isinstance(row.get(3), bytes | str) else None
    size = used = None
    if health_text is not None:
        state, said = _state_from_text(health_text), health_text
    else:
        code = integer(row.get(7))
        if code is None:
            return None
        state = FREENAS_HEALTH.get(code, PoolState.UNKNOWN)
        said = state.value if code in FREENAS_HEALTH else f"{code}"
        unit = integer(row.get(3))
        blocks, in_use = integer(row.get(4)), integer(row.get(5))
        if unit is not None and unit > 0:
            size = blocks * unit if blocks is not None and blocks >= 0 else None
            used = in_use * unit if in_use is not None and in_use >= 0 else None
    return Pool(
        name=name,
        kind=PoolKind.ZFS,
        state=state,
        root=Vdev(name=name, kind="root", state=state),
        size_bytes=size,
        allocated_bytes=used,
        status_text=None if state is PoolState.ONLINE else f"zpoolHealth: {said}",
    )


def _pools(walk: Walk, notes: Notes) -> tuple[Pool, ...]:
    what = ("truenas zpoolTable", "no name or health")
    return read_rows(walk, ZPOOL_ENTRY, lambda _, row: _pool(row), notes, what)


def _drives(walk: Walk, now: float, notes: Notes) -> tuple[Drive, ...]:
    drives: dict[str, Drive] = {}
    for index, row in table(walk, HDD_TEMP_ENTRY).items():
        device = text(row.get(2))
        where = f"truenas hddTempTable row {index_text(index)}"
        if device is None:
            notes.skip(where, "no hddTempDevice")
        elif device in drives:
            notes.skip(where, f"{device} repeated")
        else:
            celsius = scaled(row.get(3), 0.001)
            temperature = drive_temperature(celsius, now)
            drives[device] = Drive(dev=device, identity=DriveIdentity(), temperature=temperature)
    return tuple(drives.values())


def parse(host_name: str, walk: Walk, now: float) -> HostSnapshot:
    """A raw snapshot of a TrueNAS or FreeNAS host from its walk (see the module docstring)."""
    notes = Notes(SOURCE)
    return HostSnapshot(
        host=host_name,
        taken_at=now,
        drives=_drives(walk, now, notes),
        pools=_pools(walk, notes),
        errors=tuple(notes.errors),
        source=SOURCE,
    )


PROFILE = Profile(name=NAME, roots=ROOTS, parse=parse)
