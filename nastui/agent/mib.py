"""The NASTUI-MIB layout: where each value lives under the base OID, and its enumerations.

Shared by the agent (which serves it) and the `nastui` SNMP profile (which reads it back); the
MIB file `nastui/mibs/NASTUI-MIB.txt` documents the same numbers. Relative to the base:

    .1.C.0          host scalars (column C)
    .T.1.C.I        table T (2 bays, 3 drives, 4 pools, 5 fans, 6 UPSes, 7 alerts), column C,
                    row I (1, 2, ... in the snapshot's order; bays in chassis order)

An unknown value has no instance (a walk skips it): unknown is never 0.
"""

from __future__ import annotations

from enum import Enum, IntEnum
from typing import Final, TypeVar

from nastui.model import (
    PoolKind,
    PoolState,
    PowerState,
    ScanKind,
    ScanState,
    Subject,
    UpsStatus,
)

Oid = tuple[int, ...]

PLAYPEN: Final[Oid] = (1, 3, 6, 1, 4, 1, 8072, 9999, 9999)
"""NET-SNMP-MIB::netSnmpPlaypen: an experimental arc anyone may use on their own network."""
NASTUI_ARC: Final = 6278  # "NAST" on a phone keypad
DEFAULT_BASE: Final[Oid] = (*PLAYPEN, NASTUI_ARC)
"""The default base: netSnmpPlaypen.6278 (experimental; `--base-oid` for a site with a PEN)."""

HOST: Final = 1
BAYS: Final = 2
DRIVES: Final = 3
POOLS: Final = 4
FANS: Final = 5
UPSES: Final = 6
ALERTS: Final = 7
ENTRY: Final = 1  # every table's entry arc


class HostCol(IntEnum):
    """Host scalars: base.1.C.0."""

    NAME = 1
    SNAPSHOT_TIME = 2  # Unix seconds
    SNAPSHOT_AGE = 3  # seconds, at answer time
    HEALTH = 4  # NastuiHealth; unknown when stale
    STALE = 5  # TruthValue
    BAY_COUNT = 6
    DRIVE_COUNT = 7
    POOL_COUNT = 8
    ALERT_COUNT = 9
    ERROR_COUNT = 10
    SOURCE = 11
    MAX_AGE = 12  # seconds
    PROBLEM = 13  # the agent's own trouble (no snapshot, unreadable); absent when none


class BayCol(IntEnum):
    """nastuiBayTable columns."""

    NUMBER = 2
    STATE = 3  # NastuiBayState
    DRIVE_KEY = 4
    DEV = 5
    TEMPERATURE = 6  # degrees Celsius
    HEALTH = 7
    POWER = 8
    VERDICT = 9


class DriveCol(IntEnum):
    """nastuiDriveTable columns."""

    KEY = 2
    DEV = 3
    MODEL = 4
    SERIAL = 5
    BAY = 6  # absent for a drive in no bay
    TEMPERATURE = 7
    TEMPERATURE_AGE = 8  # seconds before the snapshot
    HEALTH = 9
    POWER = 10
    VERDICT = 11
    CAPACITY = 12  # bytes, CounterBasedGauge64
    POWER_ON_HOURS = 13


class PoolCol(IntEnum):
    """nastuiPoolTable columns."""

    NAME = 2
    KIND = 3
    STATE = 4
    HEALTH = 5
    SIZE = 6  # bytes, CounterBasedGauge64
    ALLOCATED = 7
    SCAN_KIND = 8
    SCAN_STATE = 9
    SCAN_PERCENT = 10  # hundredths of a percent
    SCAN_ETA = 11  # seconds
    SCAN_ERRORS = 12
    LAST_SCRUB = 13  # Unix seconds the last completed scrub ended
    DATA_ERRORS = 14


class FanCol(IntEnum):
    """nastuiFanTable columns."""

    NAME = 2
    RPM = 3
    DUTY = 4  # percent
    ZONE = 5


class UpsCol(IntEnum):
    """nastuiUpsTable columns."""

    NAME = 2
    STATUS = 3
    CHARGE = 4  # percent
    RUNTIME = 5  # seconds
    LOAD = 6  # percent
    MODEL = 7
    ON_BATTERY = 8  # seconds
    INPUT_VOLTAGE = 9  # volts
    REPLACE_BATTERY = 10  # TruthValue


class AlertCol(IntEnum):
    """nastuiAlertTable columns."""

    HEALTH = 2
    SUBJECT = 3
    NAME = 4
    MESSAGE = 5
    SINCE = 6  # Unix seconds
    ACKNOWLEDGED = 7  # TruthValue
    KEY = 8


class BayState(IntEnum):
    """NastuiBayState."""

    OCCUPIED = 1
    EMPTY = 2
    MISSING = 3  # a configured drive is not there


E = TypeVar("E", bound=Enum)

TRUE: Final = 1  # SNMPv2-TC TruthValue
FALSE: Final = 2


def _numbering(members: tuple[E, ...]) -> dict[E, int]:
    return {member: number for number, member in enumerate(members, start=1)}


POWER_CODES: Final = _numbering(
    (PowerState.ACTIVE, PowerState.IDLE, PowerState.STANDBY, PowerState.SLEEP, PowerState.UNKNOWN)
)
POOL_KIND_CODES: Final = _numbering((PoolKind.ZFS, PoolKind.MDRAID, PoolKind.BTRFS))
POOL_STATE_CODES: Final = _numbering(
    (
        PoolState.ONLINE,
        PoolState.DEGRADED,
        PoolState.FAULTED,
        PoolState.OFFLINE,
        PoolState.UNAVAIL,
        PoolState.REMOVED,
        PoolState.SUSPENDED,
        PoolState.INUSE,
        PoolState.AVAIL,
        PoolState.UNKNOWN,
    )
)
SCAN_KIND_CODES: Final = _numbering(
    (
        ScanKind.SCRUB,
        ScanKind.RESILVER,
        ScanKind.RESYNC,
        ScanKind.CHECK,
        ScanKind.REPAIR,
        ScanKind.RECOVERY,
        ScanKind.RESHAPE,
        ScanKind.REPLACE,
    )
)
SCAN_STATE_CODES: Final = _numbering(
    (
        ScanState.RUNNING,
        ScanState.PAUSED,
        ScanState.PENDING,
        ScanState.FINISHED,
        ScanState.CANCELED,
    )
)
UPS_STATUS_CODES: Final = _numbering(
    (
        UpsStatus.ONLINE,
        UpsStatus.ON_BATTERY,
        UpsStatus.BATTERY_LOW,
        UpsStatus.BYPASS,
        UpsStatus.OFF,
        UpsStatus.UNKNOWN,
    )
)
SUBJECT_CODES: Final = _numbering(
    (
        Subject.DRIVE,
        Subject.BAY,
        Subject.POOL,
        Subject.FAN,
        Subject.SENSOR,
        Subject.HOST,
        Subject.UPS,
    )
)


def host_oid(base: Oid, column: HostCol) -> Oid:
    """The OID of a host scalar's instance."""
    return (*base, HOST, int(column), 0)


def cell_oid(base: Oid, table: int, column: int, row: int) -> Oid:
    """The OID of one table cell."""
    return (*base, table, ENTRY, column, row)


def parse_oid(text: str) -> Oid:
    """ ".1.3.6.1" or "1.3.6.1" as a tuple of ints.

    Raises:
        ValueError: not a dotted list of non-negative integers (at least two arcs).
    """
    parts = text.strip().strip(".").split(".")
    if len(parts) < 2 or not all(p.isdigit() and p.isascii() for p in parts):
        raise ValueError(f"not a numeric OID: {text.strip()!r}")
    return tuple(int(p) for p in parts)


def format_oid(oid: Oid) -> str:
    """A tuple of ints as ".1.3.6.1"."""
    return "." + ".".join(str(part) for part in oid)
