"""The `net-snmp` profile: a Linux (or BSD) host running net-snmp's snmpd.

Drives come from UCD-SNMP-MIB's diskIOTable (whole disks only: partitions, loop, ram, zram,
device-mapper, md and optical devices are left out) and HOST-RESOURCES-MIB's hrDeviceTable
disks, merged by the `/dev/NAME` in hrDeviceDescr, with hrDiskStorageCapacity as capacity.
net-snmp knows no serial numbers, so a drive's key is its kernel name. hrDeviceStatus warning(3)
and down(5) become a verdict; running(2) says nothing about health, so such a drive stays
unassessed. The diskIO counters are cumulative; one walk gives no rate, so `Drive.io` is left out.
LM-SENSORS-MIB gives temperatures (millidegrees) as `Sensor`s and fan tachometers as `Fan`s.
There are no pools: hrStorage lists filesystems, not RAID groups.
"""

from __future__ import annotations

import re

from nastui.collectors.snmp_profiles.base import Oid, Profile, Walk, oid
from nastui.collectors.snmp_profiles.tables import (
    Notes,
    Row,
    index_text,
    integer,
    scaled,
    table,
    text,
)
from nastui.model import (
    UNASSESSED,
    Drive,
    DriveIdentity,
    Fan,
    Health,
    HostSnapshot,
    Reason,
    Sensor,
    Verdict,
)

NAME = "net-snmp"
SOURCE = f"snmp:{NAME}"
HR_DEVICE_ENTRY = oid("1.3.6.1.2.1.25.3.2.1")  # .2 type, .3 descr, .5 status
HR_DISK_ENTRY = oid("1.3.6.1.2.1.25.3.6.1")  # .2 media, .4 capacity (KBytes)
HR_DEVICE_DISK = oid("1.3.6.1.2.1.25.3.1.6")  # hrDeviceDiskStorage
DISK_IO_ENTRY = oid("1.3.6.1.4.1.2021.13.15.1.1")  # .2 diskIODevice
LM_TEMP_ENTRY = oid("1.3.6.1.4.1.2021.13.16.2.1")  # .2 device, .3 value (mC)
LM_FAN_ENTRY = oid("1.3.6.1.4.1.2021.13.16.3.1")  # .2 device, .3 value (RPM)
ROOTS: tuple[Oid, ...] = (
    oid("1.3.6.1.2.1.25.3.2"),
    oid("1.3.6.1.2.1.25.3.6"),
    oid("1.3.6.1.4.1.2021.13.15"),
    oid("1.3.6.1.4.1.2021.13.16"),
)
HR_STATUS = {3: (Health.WARNING, "warning"), 5: (Health.CRITICAL, "down")}

# Sample: loop0  ram1  zram0  dm-3  md127  sr0  fd0  nbd2  sda1  nvme0n1p2  mmcblk0p1  vda3
_NOT_A_DRIVE = re.compile(
    r"^(?:loop|ram|zram|dm-|md|sr|fd|nbd|drbd)\d*|^(?:nvme\d+n\d+|mmcblk\d+)p\d+$"
    r"|^(?:[shv]d|xvd)[a-z]+\d+$"
)
# Sample: SCSI disk (/dev/sda)    /dev/nvme0n1
_DEV_NAME = re.compile(r"/dev/([\w-]+)")


def whole_disk(name: str) -> bool:
    """True for a whole-disk kernel name ("sda", "nvme0n1"), False for partitions and virtuals."""
    return _NOT_A_DRIVE.match(name) is None


def _hr_disks(walk: Walk, notes: Notes) -> dict[str, Drive]:
    """hrDeviceTable disks by kernel name (or "hrdev<index>" when the description has none)."""
    capacity = table(walk, HR_DISK_ENTRY)
    drives: dict[str, Drive] = {}
    for index, row in table(walk, HR_DEVICE_ENTRY).items():
        if row.get(2) != HR_DEVICE_DISK:
            continue
        descr = text(row.get(3))
        if descr is None:
            notes.skip(f"hrDeviceTable row {index_text(index)}", "disk without hrDeviceDescr")
            continue
        match = _DEV_NAME.search(descr)
        dev = match[1] if match else f"hrdev{index_text(index)}"
        kbytes = integer(capacity.get(index, {}).get(4))
        identity = DriveIdentity(
            model=None if match else descr,
            capacity_bytes=kbytes * 1024 if kbytes and kbytes > 0 else None,
        )
        drives[dev] = Drive(dev=dev, identity=identity, verdict=_hr_verdict(row))
    return drives


def _hr_verdict(row: Row) -> Verdict:
    status = integer(row.get(5))
    if status not in HR_STATUS:
        return UNASSESSED
    health, word = HR_STATUS[status]
    return Verdict.of([Reason(health, f"hrDeviceStatus: {word}", "snmp:hrDeviceStatus")])


def _drives(walk: Walk, notes: Notes) -> tuple[Drive, ...]:
    hr = _hr_disks(walk, notes)
    drives: dict[str, Drive] = {}
    for index, row in table(walk, DISK_IO_ENTRY).items():
        name = text(row.get(2))
        if name is None:
            notes.skip(f"diskIOTable row {index_text(index)}", "no diskIODevice")
            continue
        if whole_disk(name):
            drives[name] = hr.pop(name) if name in hr else Drive(dev=name, identity=DriveIdentity())
    named = {dev: drive for dev, drive in hr.items() if not dev.startswith("hrdev")}
    if not drives:
        named = hr
    drives.update(named)
    return tuple(drives.values())


def _lm_sensors(walk: Walk, notes: Notes) -> tuple[tuple[Sensor, ...], tuple[Fan, ...]]:
    sensors: list[Sensor] = []
    for index, row in table(walk, LM_TEMP_ENTRY).items():
        name, celsius = text(row.get(2)), scaled(row.get(3), 0.001)
        if name is None:
            notes.skip(f"lmTempSensorsTable row {index_text(index)}", "no lmTempSensorsDevice")
            continue
        sensors.append(Sensor(name=name, value=celsius, unit="C", source=SOURCE))
    fans: list[Fan] = []
    for index, row in table(walk, LM_FAN_ENTRY).items():
        name, rpm = text(row.get(2)), integer(row.get(3))
        if name is None:
            notes.skip(f"lmFanSensorsTable row {index_text(index)}", "no lmFanSensorsDevice")
            continue
        fans.append(Fan(name=name, rpm=rpm if rpm is None or rpm >= 0 else None, driver=SOURCE))
    return tuple(sensors), tuple(fans)


def parse(host_name: str, walk: Walk, now: float) -> HostSnapshot:
    """A raw snapshot of a net-snmp host from its walk (see the module docstring)."""
    notes = Notes(SOURCE)
    drives = _drives(walk, notes)
    sensors, fans = _lm_sensors(walk, notes)
    return HostSnapshot(
        host=host_name,
        taken_at=now,
        drives=drives,
        fans=fans,
        sensors=sensors,
        errors=tuple(notes.errors),
        source=SOURCE,
    )


PROFILE = Profile(name=NAME, roots=ROOTS, parse=parse)
