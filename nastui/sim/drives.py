"""`Drive` records as a collector would produce them, from a drive's plan and its current state.

The attribute table is the real one from the drive's profile; the simulator only rewrites the
raw values that belong to this drive: power-on hours, temperature, lifetime counters (scaled to
its age) and the defect counters it has grown.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import NamedTuple

from nastui.model import (
    Drive,
    DriveIdentity,
    IoRate,
    NvmeHealth,
    PowerState,
    SmartAttribute,
    Temperature,
    TempSource,
)
from nastui.sim.engine import Defects, Reading
from nastui.sim.grid import ORIGIN
from nastui.sim.plan import DrivePlan
from nastui.sim.profiles import NvmeBaseline

LIFETIME_IDS = frozenset({4, 12, 173, 174, 192, 193, 241, 242, 246, 247, 248})
"""Attributes that count up over a drive's life; scaled by the drive's age."""

TEMPERATURE_IDS = frozenset({190, 194})

_NVME_UNIT = 512_000  # bytes in an NVMe "data unit"
_NVME_WRITE_RATE = 1.5e6  # bytes/s the btrfs pool writes to each NVMe drive on average
_NVME_ENDURANCE = 150e12  # rated TBW of a 250 GB 970 EVO Plus


def hours_at(drive: DrivePlan, t: float) -> int:
    """The drive's power-on hours at `t` (it counts while spun down, as drives do)."""
    return drive.hours + max(0, math.floor((t - ORIGIN) / 3600))


class Mine(NamedTuple):
    """What belongs to one drive in its attribute table (the rest is its profile's).

    Attributes:
        hours: its power-on hours.
        wear: its lifetime counters relative to the profile's drive.
        celsius: the temperature its SMART read saw.
        defects: the defect counters it has grown.
    """

    hours: int
    wear: float
    celsius: float
    defects: Defects


def _raw(attr: SmartAttribute, own: Mine) -> int | None:
    """This drive's raw value for `attr`, or None to keep the profile's."""
    mine = {
        9: own.hours,
        5: own.defects.realloc,
        196: own.defects.realloc_events,
        197: own.defects.pending,
        198: own.defects.offline_unc,
        187: own.defects.offline_unc,
        199: 0,
    }
    if attr.id in mine:
        return mine[attr.id]
    if attr.id in TEMPERATURE_IDS:
        return int(own.celsius)
    if attr.id in LIFETIME_IDS and attr.raw is not None:
        return round(attr.raw * own.wear)
    return None


def _raw_string(attr: SmartAttribute, raw: int) -> str:
    """smartctl's rendering of the new raw value, keeping a temperature's "(Min/Max a/b)"."""
    if attr.id in TEMPERATURE_IDS and "(Min/Max " in attr.raw_string:
        low, high = attr.raw_string.split("(Min/Max ")[1].rstrip(")").split("/")
        return f"{raw} (Min/Max {low}/{max(int(high), raw)})"
    return str(raw)


def own_table(table: tuple[SmartAttribute, ...], own: Mine) -> tuple[SmartAttribute, ...]:
    """A profile's attribute `table` with one drive's own raw values in it."""
    out = []
    for attr in table:
        raw = _raw(attr, own)
        out.append(
            attr if raw is None else replace(attr, raw=raw, raw_string=_raw_string(attr, raw))
        )
    return tuple(out)


def attributes(drive: DrivePlan, reading: Reading, defects: Defects) -> tuple[SmartAttribute, ...]:
    """The drive's ATA attribute table as of its last SMART read."""
    own = Mine(hours_at(drive, reading.smart_at), drive.wear, reading.smart_celsius, defects)
    return own_table(drive.profile.attributes, own)


def nvme_health(base: NvmeBaseline, drive: DrivePlan, when: float) -> NvmeHealth:
    """The NVMe health log as of `when`: the source drive's figures scaled to this drive's age."""
    written = round(base.data_units_written * drive.wear) + round(
        max(0.0, when - ORIGIN) * _NVME_WRITE_RATE / _NVME_UNIT
    )
    return NvmeHealth(
        critical_warning=base.critical_warning,
        percentage_used=max(
            base.percentage_used, int(written * _NVME_UNIT * 100 // _NVME_ENDURANCE)
        ),
        available_spare=base.available_spare,
        available_spare_threshold=base.available_spare_threshold,
        media_errors=base.media_errors,
        unsafe_shutdowns=round(base.unsafe_shutdowns * drive.wear),
        power_on_hours=hours_at(drive, when),
        data_units_written=written,
        error_log_entries=round(base.num_err_log_entries * drive.wear),
    )


def identity(drive: DrivePlan) -> DriveIdentity:
    """What the drive says it is."""
    prof = drive.profile
    return DriveIdentity(
        model=prof.model,
        serial=drive.serial,
        wwn=drive.wwn,
        firmware=prof.firmware,
        capacity_bytes=prof.capacity_bytes,
        transport=prof.transport,
        rotational=prof.rotational,
        rpm=prof.rpm,
    )


SmartTables = tuple[tuple[SmartAttribute, ...], NvmeHealth | None]
"""A drive's ATA attribute table and NVMe health log, as one SMART read gives them."""


def smart_tables(drive: DrivePlan, reading: Reading, defects: Defects) -> SmartTables:
    """What the drive's last SMART read (at `reading.smart_at`) returned."""
    base = drive.profile.nvme
    nvme = nvme_health(base, drive, reading.smart_at) if base else None
    return attributes(drive, reading, defects), nvme


class SmartReads:
    """Each drive's SMART tables, built once per SMART read: they change only when the drive
    is read again (or grows a defect), not at every snapshot."""

    def __init__(self) -> None:
        self._last: dict[int, tuple[tuple[float, float, Defects], SmartTables]] = {}

    def tables(
        self, index: int, drive: DrivePlan, reading: Reading, defects: Defects
    ) -> SmartTables:
        """Drive `index`'s tables for this read: the ones built before if nothing changed."""
        key = (reading.smart_at, reading.smart_celsius, defects)
        last = self._last.get(index)
        if last is not None and last[0] == key:
            return last[1]
        tables = smart_tables(drive, reading, defects)
        self._last[index] = (key, tables)
        return tables


def build_drive(
    drive: DrivePlan,
    power: PowerState,
    reading: Reading,
    defects: Defects,
    io: IoRate,
    *,
    tables: SmartTables | None = None,
) -> Drive:
    """The drive as the collectors would report it now (`tables`: its SMART tables for this
    read, when already built)."""
    attrs, nvme = tables if tables is not None else smart_tables(drive, reading, defects)
    return Drive(
        dev=drive.dev,
        identity=identity(drive),
        by_id=drive.by_id,
        by_path=drive.by_path,
        power=power,
        temperature=Temperature(reading.celsius, reading.measured_at, TempSource.SIMULATED),
        smart_passed=True,
        attributes=attrs,
        nvme=nvme,
        self_tests=drive.self_tests,
        power_on_hours=hours_at(drive, reading.smart_at),
        io=io,
        smart_read_at=reading.smart_at,
    )
