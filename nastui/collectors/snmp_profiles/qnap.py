"""The `qnap` profile: QNAP QTS through its NAS-MIB (enterprise 24681).

QTS 4.x storage tables (under .1.4.1.1.1.1) come first: the enclosure table (the unit and its
expansion units, with their system temperatures), system fans with RPM, power supplies, and the
disk table (enclosure id and slot, diskSummary "Good"/"Warning"/"Abnormal", diskSmartInfo
0 good / 1 warning / 2 abnormal / -1 unknown, temperature, model "WDC WD60... (SATA)", capacity
in bytes). Firmware without them has only the legacy HdTable (.1.2.11: "HDD3", "28 C/82 F",
HdStatus, HdSmartInfo "GOOD"), used when the new disk table is absent. Disks carry no serial:
a drive's key is "HDD<slot>" in the main unit and "HDD<slot> (<model> #<id>)" in an expansion
unit. RAID groups (raidTable, .1.4.1.1.1.2.1.2) become mdraid pools from their status strings.
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
    size_bytes,
    table,
    text,
    vendor_verdict,
)
from nastui.model import (
    Drive,
    DriveIdentity,
    EnclosureSlot,
    Fan,
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

NAME = "qnap"
SOURCE = f"snmp:{NAME}"
STORAGE = oid("1.3.6.1.4.1.24681.1.4.1.1.1")
ENCLOSURE_ENTRY = (*STORAGE, 1, 1, 2, 1)  # .2 id, .3 model, .4 serial, .5 slots, .7 temp
FAN_ENTRY = (*STORAGE, 1, 2, 2, 1)  # .2 fan id, .3 enclosure id, .4 status, .5 RPM
POWER_ENTRY = (*STORAGE, 1, 3, 2, 1)  # .2 psu id, .3 enclosure id, .4 status, .5 RPM, .6 temp
DISK_ENTRY = (*STORAGE, 1, 5, 2, 1)  # .2 slot, .3 enclosure, .4 summary, .5 smart, .6 temp
RAID_ENTRY = (*STORAGE, 2, 1, 2, 1)  # .2 id, .3 capacity, .4 free, .5 status, .7 level
LEGACY_HD_ENTRY = oid("1.3.6.1.4.1.24681.1.2.11.1")  # .2 descr, .3 temp, .4 status, .5 model
ROOTS: tuple[Oid, ...] = (oid("1.3.6.1.4.1.24681.1.2.11"), STORAGE)

SUMMARY = {"good": Health.OK, "warning": Health.WARNING, "abnormal": Health.CRITICAL}
SMART_INFO = {
    0: ("good", Health.OK),
    1: ("warning", Health.WARNING),
    2: ("abnormal", Health.CRITICAL),
}
LEGACY_SMART = {
    "good": Health.OK,
    "normal": Health.OK,
    "warning": Health.WARNING,
    "abnormal": Health.CRITICAL,
}
LEGACY_STATUS = {-6: ("invalid", Health.WARNING), -9: ("rwError", Health.CRITICAL)}
NO_DISK = -5
# Raid status words (lower case) -> state and the scan they imply.
RAID_STATES: tuple[tuple[str, PoolState, ScanKind | None], ...] = (
    ("rebuild", PoolState.DEGRADED, ScanKind.RECOVERY),
    ("degrad", PoolState.DEGRADED, None),
    ("sync", PoolState.ONLINE, ScanKind.RESYNC),
    ("reshap", PoolState.ONLINE, ScanKind.RESHAPE),
    ("migrat", PoolState.ONLINE, ScanKind.RESHAPE),
    ("expand", PoolState.ONLINE, ScanKind.RESHAPE),
    ("scrub", PoolState.ONLINE, ScanKind.SCRUB),
    ("fail", PoolState.FAULTED, None),
    ("not active", PoolState.OFFLINE, None),
    ("ready", PoolState.ONLINE, None),
    ("normal", PoolState.ONLINE, None),
)

# Sample: WDC WD6003FFBX-68MU3N0 (SATA)    Seagate ST8000NM0075 (NL-SAS)
_MODEL = re.compile(r"^(?P<model>.*?)\s*\((?P<bus>[A-Za-z-]+)\)\s*$")
# Sample: HDD3
_LEGACY_SLOT = re.compile(r"(\d+)\s*$")


def _enclosures(walk: Walk) -> dict[int, tuple[str, float | None]]:
    """Enclosure id -> (model, system temperature)."""
    result: dict[int, tuple[str, float | None]] = {}
    for index, row in table(walk, ENCLOSURE_ENTRY).items():
        enc = integer(row.get(2))
        key = enc if enc is not None else integer(index[-1]) or 0
        result[key] = (text(row.get(3)) or f"enclosure {key}", number(row.get(7)))
    return result


def _unit(enclosures: dict[int, tuple[str, float | None]], enc: int) -> str:
    return f"{enclosures.get(enc, (f'enclosure {enc}', None))[0]} #{enc}"


def _identity(model_text: str | None, capacity: int | None) -> DriveIdentity:
    match = _MODEL.match(model_text or "")
    bus = (match["bus"] if match else "").upper()
    transport = Transport.SATA if bus == "SATA" else Transport.UNKNOWN
    if bus.endswith("SAS"):
        transport = Transport.SAS
    return DriveIdentity(
        model=match["model"] if match else model_text,
        capacity_bytes=capacity,
        transport=transport,
    )


def _disk_verdict(summary: str | None, smart: int | None) -> Verdict:
    statuses: list[Reason] = []
    if summary is not None and summary.lower() in SUMMARY:
        health = SUMMARY[summary.lower()]
        statuses.append(Reason(health, f"diskSummary: {summary}", "snmp:diskSummary"))
    if smart in SMART_INFO:
        word, health = SMART_INFO[smart]
        statuses.append(Reason(health, f"diskSmartInfo: {word}", "snmp:diskSmartInfo"))
    return vendor_verdict(statuses)


def _disk(row: Row, enclosures: dict[int, tuple[str, float | None]], now: float) -> Drive | None:
    slot, enc = integer(row.get(2)), integer(row.get(3))
    if slot is None or enc is None:
        return None
    unit = MAIN_UNIT if enc == 0 else _unit(enclosures, enc)
    dev = f"HDD{slot}" if enc == 0 else f"HDD{slot} ({unit})"
    return Drive(
        dev=dev,
        identity=_identity(text(row.get(8)), size_bytes(row.get(9))),
        temperature=drive_temperature(row.get(6), now),
        verdict=_disk_verdict(text(row.get(4)), integer(row.get(5))),
        slot=EnclosureSlot(unit, slot, source=SOURCE, name=dev),
    )


def _legacy_disk(row: Row, now: float) -> Drive | None:
    descr = text(row.get(2))
    status = integer(row.get(4))
    if descr is None or status == NO_DISK:
        return None
    statuses: list[Reason] = []
    smart = text(row.get(7))
    if smart is not None and smart.lower() in LEGACY_SMART:
        health = LEGACY_SMART[smart.lower()]
        statuses.append(Reason(health, f"HdSmartInfo: {smart}", "snmp:smart"))
    if status in LEGACY_STATUS:
        word, health = LEGACY_STATUS[status]
        statuses.append(Reason(health, f"HdStatus: {word}", "snmp:HdStatus"))
    match = _LEGACY_SLOT.search(descr)
    return Drive(
        dev=descr,
        identity=DriveIdentity(model=text(row.get(5)), capacity_bytes=size_bytes(row.get(6))),
        temperature=drive_temperature(row.get(3), now),
        verdict=vendor_verdict(statuses),
        slot=EnclosureSlot(MAIN_UNIT, int(match[1]), SOURCE, descr) if match else None,
    )


def _drives(walk: Walk, now: float, notes: Notes) -> tuple[Drive, ...]:
    enclosures = _enclosures(walk)
    rows = table(walk, DISK_ENTRY)
    legacy = not rows
    drives: dict[str, Drive] = {}
    for index, row in (rows or table(walk, LEGACY_HD_ENTRY)).items():
        drive = _legacy_disk(row, now) if legacy else _disk(row, enclosures, now)
        where = f"qnap {'HdTable' if legacy else 'diskTable'} row {index_text(index)}"
        if drive is None:
            if legacy and integer(row.get(4)) == NO_DISK:
                continue
            notes.skip(where, "no disk slot or enclosure id")
        elif drive.key in drives:
            notes.skip(where, f"{drive.key} repeated")
        else:
            drives[drive.key] = drive
    return tuple(drives.values())


def _status_word(code: int | None) -> str | None:
    return None if code is None else ("ok" if code == 0 else f"status {code}")


def _environment(walk: Walk) -> tuple[tuple[Fan, ...], tuple[Sensor, ...]]:
    enclosures = _enclosures(walk)
    sensors = [
        Sensor(f"{_unit(enclosures, enc)} system", temp, "C", SOURCE)
        for enc, (_, temp) in enclosures.items()
        if temp is not None
    ]
    fans: list[Fan] = []
    for index, row in table(walk, FAN_ENTRY).items():
        enc, fan_id, rpm = integer(row.get(3)) or 0, integer(row.get(2)), integer(row.get(5))
        name = f"{_unit(enclosures, enc)} fan {fan_id if fan_id is not None else index[-1]}"
        fans.append(Fan(name, rpm if rpm is not None and rpm >= 0 else None, driver=SOURCE))
    for index, row in table(walk, POWER_ENTRY).items():
        enc, psu = integer(row.get(3)) or 0, integer(row.get(2))
        temp = number(row.get(6))
        name = f"{_unit(enclosures, enc)} PSU {psu if psu is not None else index[-1]}"
        value = temp if temp is not None and temp >= 0 else None
        sensors.append(Sensor(name, value, "C", SOURCE, _status_word(integer(row.get(4)))))
    return tuple(fans), tuple(sensors)


def _pool(index: Oid, row: Row) -> Pool | None:
    status = text(row.get(5))
    if status is None:
        return None
    raid_id = integer(row.get(2))
    name = f"RAID {raid_id if raid_id is not None else index_text(index)}"
    state, kind = PoolState.UNKNOWN, None
    for word, state_, kind_ in RAID_STATES:
        if word in status.lower():
            state, kind = state_, kind_
            break
    size, free = size_bytes(row.get(3)), size_bytes(row.get(4))
    level = text(row.get(7))
    return Pool(
        name=name,
        kind=PoolKind.MDRAID,
        state=state,
        root=Vdev(name, f"raid{level}" if level and level[0].isdigit() else "root", state),
        size_bytes=size or None,
        allocated_bytes=size - free if size and free is not None and free <= size else None,
        scan=ScanProgress(kind, ScanState.RUNNING) if kind else None,
        status_text=None if state is PoolState.ONLINE and kind is None else f"raid: {status}",
    )


def parse(host_name: str, walk: Walk, now: float) -> HostSnapshot:
    """A raw snapshot of a QNAP NAS from its walk (see the module docstring)."""
    notes = Notes(SOURCE)
    drives = _drives(walk, now, notes)
    fans, sensors = _environment(walk)
    return HostSnapshot(
        host=host_name,
        taken_at=now,
        slots=bay_slots(drives),
        drives=drives,
        pools=read_rows(walk, RAID_ENTRY, _pool, notes, ("qnap raidTable", "no raidStatus")),
        fans=fans,
        sensors=sensors,
        errors=tuple(notes.errors),
        source=SOURCE,
    )


PROFILE = Profile(name=NAME, roots=ROOTS, parse=parse)
