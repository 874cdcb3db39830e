"""What one smartctl report says about a drive (`SmartReading`), smartctl's exit status bits,
and `ParseError`: shared by the text (pySMART), JSON and live paths, so a saved capture and a live
drive go through the same rules.

smartctl's exit status is a bitmask of findings, not a failure code (smartctl(8), RETURN VALUES):
    bit 0  command line did not parse          bit 4  prefail attributes <= threshold
    bit 1  device open failed, or in standby    bit 5  attributes <= threshold in the past
    bit 2  a SMART command failed / bad checksum bit 6  the error log has errors
    bit 3  SMART status says DISK FAILING       bit 7  the self-test log has errors
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import TypeVar

from nastui.core.health import INCOMPLETE
from nastui.model import (
    AtaError,
    Drive,
    DriveIdentity,
    NvmeHealth,
    PowerState,
    ScsiHealth,
    SelfTest,
    SmartAttribute,
    Temperature,
    TempSource,
)

T = TypeVar("T", NvmeHealth, ScsiHealth)
EXIT_BITS = (
    (0x01, "smartctl did not accept its command line"),
    (0x02, "the device could not be opened, or is in a low-power mode"),
    (0x04, "some SMART command failed or returned a bad checksum"),
    (0x08, "SMART status: DISK FAILING"),
    (0x10, "prefail attributes at or below threshold"),
    (0x20, "some attributes were at or below threshold in the past"),
    (0x40, "the device error log contains errors"),
    (0x80, "the self-test log contains errors"),
)
OPEN_FAILED = 0x02
COMMAND_FAILED = 0x04
DISK_FAILING = 0x08
# Sample: 36 (Min/Max 22/45)     12345h+07m+12.345s     0/163250328
_INT = re.compile(r"-?\d+")
# Sample: Completed without error / Completed: read failure / Aborted by host / Failed in segment
_GOOD_TEST = re.compile(r"^completed( without error)?$", re.I)
_FAILED_TEST = re.compile(r"fail|fatal", re.I)
# Redactions seen in published reports (linuxhw) and placeholders smartctl prints.
_NO_VALUE = {"", "--", "...", "-", "[No Information Found]", "Not Specified", "REDACTED"}


def first_int(value: object) -> int | None:
    """The first integer in a value as smartctl prints it ("36 (Min/Max 22/45)" -> 36,
    "12,345" -> 12345, "0/163250328" -> 0); None when there is none."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    match = _INT.search(str(value if value is not None else "").replace(",", ""))
    return int(match.group()) if match else None


def celsius(value: object) -> float | None:
    """A reported temperature; None when absent or 0 (smartctl's "not available")."""
    number = first_int(value)
    return float(number) if number else None


def present(record: T) -> T | None:
    """A health record (NVMe log, SCSI counters), or None when every field in it is unknown."""
    return record if any(v is not None for v in dataclasses.astuple(record)) else None


def self_test_passed(status: str) -> bool | None:
    """A self-test status as pass (True), fail (False) or neither (aborted, running: None)."""
    text = status.strip()
    if _GOOD_TEST.match(text):
        return True
    if _FAILED_TEST.search(text):
        return False
    return None


def exit_findings(status: int | None) -> list[str]:
    """The meaning of each bit set in a smartctl exit status, lowest bit first."""
    if status is None or status < 0:
        return []
    return [text for bit, text in EXIT_BITS if status & bit]


def clean(value: object) -> str | None:
    """A reported string with whitespace trimmed; None for redactions and placeholders."""
    if value is None:
        return None
    text = str(value).strip()
    return None if text in _NO_VALUE or set(text) <= {".", "-", " "} else text


@dataclass(frozen=True, slots=True)
class SmartReading:
    """Everything one smartctl report says about a drive.

    Attributes:
        source: what it was read from ("/dev/sda", "capture.json"), for messages.
        identity: model, serial, WWN, firmware, capacity, rotation as smartctl reports them.
        power: the power mode smartctl saw (STANDBY when it stopped at `-n standby`).
        temperature_c: the drive's temperature, when the report has one.
        smart_passed: the drive's own overall assessment (not pySMART's roll-up).
        attributes: ATA SMART attributes.
        nvme: the NVMe health log.
        scsi: SAS/SCSI counters.
        self_tests: the self-test log, newest first.
        power_on_hours: lifetime hours.
        exit_status: smartctl's exit status bits, when known (a live run, a JSON capture).
        version: smartctl's version ("7.3").
        notes: smartctl's own messages worth repeating ("CHECK POWER MODE not implemented...").
        standby_check_unsupported: smartctl ignored `-n standby` for this device: querying it
            may wake it.
        ata_errors: the ATA error log, newest first.
        attributes_missing: an ATA text report with an assessment but no attribute table (cut
            short before it): its health is unknown, not OK.
    """

    source: str
    identity: DriveIdentity = field(default_factory=DriveIdentity)
    power: PowerState = PowerState.UNKNOWN
    temperature_c: float | None = None
    smart_passed: bool | None = None
    attributes: tuple[SmartAttribute, ...] = ()
    nvme: NvmeHealth | None = None
    scsi: ScsiHealth | None = None
    self_tests: tuple[SelfTest, ...] = ()
    power_on_hours: int | None = None
    exit_status: int | None = None
    version: str | None = None
    notes: tuple[str, ...] = ()
    standby_check_unsupported: bool = False
    ata_errors: tuple[AtaError, ...] = ()
    attributes_missing: bool = False

    @property
    def in_standby(self) -> bool:
        """smartctl stopped because the drive sleeps: nothing but the power mode was read."""
        return self.power.spun_down

    @property
    def has_health(self) -> bool:
        """The report carries health data (an assessment, attributes or counters)."""
        return (
            self.smart_passed is not None
            or bool(self.attributes)
            or self.nvme is not None
            or self.scsi is not None
        )


def _better_model(sysfs: str | None, smart: str | None) -> str | None:
    """smartctl's model when sysfs has none or a truncated one (SCSI INQUIRY keeps 16 chars)."""
    if smart is None:
        return sysfs
    if sysfs is None or smart.replace(" ", "").startswith(sysfs.replace(" ", "")):
        return smart
    return sysfs


def merged_identity(sysfs: DriveIdentity, smart: DriveIdentity) -> DriveIdentity:
    """sysfs's identity with the gaps filled from smartctl's (the serial is never replaced:
    it is the key the drive is tracked by)."""
    return dataclasses.replace(
        sysfs,
        model=_better_model(sysfs.model, smart.model),
        serial=sysfs.serial or smart.serial,
        wwn=sysfs.wwn or smart.wwn,
        firmware=smart.firmware or sysfs.firmware,
        capacity_bytes=sysfs.capacity_bytes or smart.capacity_bytes,
        rotational=sysfs.rotational if sysfs.rotational is not None else smart.rotational,
        rpm=sysfs.rpm or smart.rpm,
        vendor=sysfs.vendor or smart.vendor,
    )


def apply_reading(drive: Drive, reading: SmartReading, now: float) -> Drive:
    """`drive` (as discovered) with what `reading` says added.

    A standby reading changes only the power state: the drive keeps whatever SMART data and
    temperature it had, and its temperature is then shown as stale. A hwmon temperature, which
    is fresher and costs the drive nothing, wins over smartctl's.
    """
    if reading.in_standby:
        return dataclasses.replace(drive, power=reading.power)
    temperature = drive.temperature
    if temperature is None and reading.temperature_c is not None:
        temperature = Temperature(reading.temperature_c, now, TempSource.SMART)
    return dataclasses.replace(
        drive,
        identity=merged_identity(drive.identity, reading.identity),
        power=reading.power if reading.power is not PowerState.UNKNOWN else drive.power,
        temperature=temperature,
        smart_passed=reading.smart_passed,
        attributes=reading.attributes,
        nvme=reading.nvme,
        scsi=reading.scsi,
        self_tests=reading.self_tests,
        power_on_hours=reading.power_on_hours,
        ata_errors=reading.ata_errors,
        smart_read_at=now,
        smart_problem=INCOMPLETE if reading.attributes_missing else None,
    )


def drive_from_reading(reading: SmartReading, dev: str, now: float) -> Drive:
    """A drive known only from a report (`nastui smart explain` of a saved capture)."""
    drive = apply_reading(Drive(dev=dev, identity=reading.identity), reading, now)
    if not reading.has_health and not reading.in_standby and reading.notes:
        return dataclasses.replace(drive, smart_problem=f"SMART not read: {reading.notes[0]}")
    return drive
