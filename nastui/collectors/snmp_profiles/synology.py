"""The `synology` profile: Synology DSM (SYNOLOGY-SYSTEM-MIB, -DISK-MIB and -RAID-MIB).

Disks (diskTable) carry no serial number, so a drive's key is its diskID ("Disk 3", or
"Disk 3 (RX1214rp-1)" in an expansion unit), stable per host. The number in it is the bay:
every disk gets `Drive.slot` (enclosure "main" or the expansion unit's name), and disks of the
main unit also a `BaySlot`. diskStatus, diskHealthStatus (DSM 6.2+) and diskBadSector make the
verdict. RAID groups (raidTable) become pools of kind mdraid (DSM builds them on md): the MIB's
21 raidStatus values map onto `PoolState`, and a repair, resync, parity check, scrub or
expansion in progress becomes a `ScanProgress` without a percentage (the MIB gives none).
System status, power, fans (status only, no RPM in the MIB) and the system temperature become
`Sensor`s.
"""

from __future__ import annotations

import re

from nastui.collectors.snmp_profiles.base import Oid, Profile, Walk, oid
from nastui.collectors.snmp_profiles.tables import (
    MAIN_UNIT,
    Notes,
    Row,
    bay_slots,
    drive_temperature,
    index_text,
    integer,
    number,
    read_rows,
    scalar,
    table,
    text,
    vendor_verdict,
)
from nastui.model import (
    Drive,
    DriveIdentity,
    EnclosureSlot,
    Health,
    HostSnapshot,
    Pool,
    PoolKind,
    PoolState,
    Reason,
    ScanKind,
    ScanProgress,
    ScanState,
    Sensor,
    Transport,
    Vdev,
    Verdict,
)

NAME = "synology"
SOURCE = f"snmp:{NAME}"
SYSTEM = oid("1.3.6.1.4.1.6574.1")
DISK_ENTRY = oid("1.3.6.1.4.1.6574.2.1.1")
RAID_ENTRY = oid("1.3.6.1.4.1.6574.3.1.1")
ROOTS: tuple[Oid, ...] = (SYSTEM, oid("1.3.6.1.4.1.6574.2"), oid("1.3.6.1.4.1.6574.3"))

DISK_STATUS: dict[int, tuple[str, Health]] = {
    1: ("Normal", Health.OK),
    2: ("Initialized", Health.OK),
    3: ("NotInitialized", Health.OK),
    4: ("SystemPartitionFailed", Health.WARNING),
    5: ("Crashed", Health.CRITICAL),
}
HEALTH_STATUS: dict[int, tuple[str, Health]] = {
    1: ("Normal", Health.OK),
    2: ("Warning", Health.WARNING),
    3: ("Critical", Health.CRITICAL),
    4: ("Failing", Health.CRITICAL),
}
RAID_STATUS: dict[int, tuple[str, PoolState, ScanKind | None]] = {
    1: ("Normal", PoolState.ONLINE, None),
    2: ("Repairing", PoolState.DEGRADED, ScanKind.RECOVERY),
    3: ("Migrating", PoolState.ONLINE, ScanKind.RESHAPE),
    4: ("Expanding", PoolState.ONLINE, ScanKind.RESHAPE),
    5: ("Deleting", PoolState.UNKNOWN, None),
    6: ("Creating", PoolState.ONLINE, ScanKind.RESYNC),
    7: ("RaidSyncing", PoolState.ONLINE, ScanKind.RESYNC),
    8: ("RaidParityChecking", PoolState.ONLINE, ScanKind.CHECK),
    9: ("RaidAssembling", PoolState.UNKNOWN, None),
    10: ("Canceling", PoolState.ONLINE, None),
    11: ("Degrade", PoolState.DEGRADED, None),
    12: ("Crashed", PoolState.FAULTED, None),
    13: ("DataScrubbing", PoolState.ONLINE, ScanKind.SCRUB),
    14: ("RaidDeploying", PoolState.ONLINE, None),
    15: ("RaidUnDeploying", PoolState.ONLINE, None),
    16: ("RaidMountCache", PoolState.ONLINE, None),
    17: ("RaidUnmountCache", PoolState.ONLINE, None),
    18: ("RaidExpandingUnfinishedSHR", PoolState.ONLINE, ScanKind.RESHAPE),
    19: ("RaidConvertSHRToPool", PoolState.ONLINE, ScanKind.RESHAPE),
    20: ("RaidMigrateSHR1ToSHR2", PoolState.ONLINE, ScanKind.RESHAPE),
    21: ("RaidUnknownStatus", PoolState.UNKNOWN, None),
}
TRANSPORTS = {"SATA": Transport.SATA, "SAS": Transport.SAS, "NVME": Transport.NVME}
OK_FAILED = {1: "normal", 2: "failed"}

# Sample: Disk 3    Disk 11 (RX1214rp-1)
_DISK_ID = re.compile(r"^Disk\s+(?P<number>\d+)(?:\s*\((?P<unit>[^)]+)\))?$")


def _verdict(row: Row) -> Verdict:
    """What diskStatus, diskHealthStatus and diskBadSector say; unassessed if none is given."""
    statuses: list[Reason] = []
    for column, table_, label in (
        (5, DISK_STATUS, "diskStatus"),
        (13, HEALTH_STATUS, "diskHealthStatus"),
    ):
        code = integer(row.get(column))
        if code in table_:
            word, health = table_[code]
            statuses.append(Reason(health, f"{label}: {word}", f"snmp:{label}"))
    bad = integer(row.get(9))
    if bad is not None and bad >= 0:
        health = Health.WARNING if bad > 0 else Health.OK
        statuses.append(Reason(health, f"diskBadSector {bad}", "snmp:diskBadSector", bad))
    return vendor_verdict(statuses)


def _drive(index: Oid, row: Row, now: float) -> Drive | None:
    disk_id = text(row.get(2)) or text(row.get(12))
    if disk_id is None:
        return None
    kind = (text(row.get(4)) or "").upper()
    identity = DriveIdentity(
        model=text(row.get(3)),
        transport=TRANSPORTS.get(kind, Transport.SATA if kind == "SSD" else Transport.UNKNOWN),
        rotational=False if kind in ("SSD", "NVME") else None,
    )
    match = _DISK_ID.match(disk_id)
    slot = None
    if match:
        unit = match["unit"] or MAIN_UNIT
        slot = EnclosureSlot(unit, int(match["number"]), source=SOURCE, name=disk_id)
    return Drive(
        dev=disk_id,
        identity=identity,
        temperature=drive_temperature(row.get(6), now),
        verdict=_verdict(row),
        slot=slot,
    )


def _drives(walk: Walk, now: float, notes: Notes) -> tuple[Drive, ...]:
    drives: dict[str, Drive] = {}
    for index, row in table(walk, DISK_ENTRY).items():
        drive = _drive(index, row, now)
        if drive is None:
            notes.skip(f"synology diskTable row {index_text(index)}", "no diskID")
        elif drive.key in drives:
            notes.skip(f"synology diskTable row {index_text(index)}", f"{drive.key} repeated")
        else:
            drives[drive.key] = drive
    return tuple(drives.values())


def _pool(row: Row) -> Pool | None:
    name = text(row.get(2))
    if name is None:
        return None
    code = integer(row.get(3))
    word, state, scan_kind = RAID_STATUS.get(code or 0, (f"{code}", PoolState.UNKNOWN, None))
    free, total = number(row.get(4)), number(row.get(5))
    size = int(total) if total is not None and total >= 0 else None
    used = size - int(free) if size is not None and free is not None and 0 <= free <= size else None
    scan = ScanProgress(scan_kind, ScanState.RUNNING) if scan_kind else None
    return Pool(
        name=name,
        kind=PoolKind.MDRAID,
        state=state,
        root=Vdev(name=name, kind="root", state=state),
        size_bytes=size,
        allocated_bytes=used,
        scan=scan,
        status_text=None if code == 1 else f"raidStatus: {word}",
    )


def _pools(walk: Walk, notes: Notes) -> tuple[Pool, ...]:
    what = ("synology raidTable", "no raidName")
    return read_rows(walk, RAID_ENTRY, lambda _, row: _pool(row), notes, what)


def _system(walk: Walk) -> tuple[Sensor, ...]:
    """systemStatus, temperature, powerStatus and the fan statuses, where the agent has them."""
    sensors: list[Sensor] = []
    celsius = number(scalar(walk, (*SYSTEM, 2)))
    if celsius is not None:
        sensors.append(Sensor("system temperature", celsius, "C", SOURCE))
    for suffix, name in (
        ((1,), "system status"),
        ((3,), "power supply"),
        ((4, 1), "system fan"),
        ((4, 2), "CPU fan"),
    ):
        code = integer(scalar(walk, (*SYSTEM, *suffix)))
        if code is not None:
            status = OK_FAILED.get(code, f"status {code}")
            sensors.append(Sensor(name, None, "", SOURCE, status))
    return tuple(sensors)


def parse(host_name: str, walk: Walk, now: float) -> HostSnapshot:
    """A raw snapshot of a Synology NAS from its walk (see the module docstring)."""
    notes = Notes(SOURCE)
    drives = _drives(walk, now, notes)
    return HostSnapshot(
        host=host_name,
        taken_at=now,
        slots=bay_slots(drives),
        drives=drives,
        pools=_pools(walk, notes),
        sensors=_system(walk),
        errors=tuple(notes.errors),
        source=SOURCE,
    )


PROFILE = Profile(name=NAME, roots=ROOTS, parse=parse)
