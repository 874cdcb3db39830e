"""Drives: identity, power state, temperature with its age, SMART data and the health verdict.

Unknown is `None`, never 0: a drive whose temperature could not be read has `temperature=None`,
a SMART attribute without a threshold has `threshold=None`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from nastui.model.chassis import EnclosureSlot
from nastui.model.health import UNASSESSED, Acknowledgement, Verdict


class Transport(StrEnum):
    """How the drive is attached, as far as the OS can tell."""

    SATA = "SATA"
    SAS = "SAS"
    NVME = "NVMe"
    USB = "USB"
    VIRTUAL = "virtual"
    UNKNOWN = "unknown"


class DriveClass(StrEnum):
    """The class that picks temperature limits and which SMART rules apply."""

    HDD = "hdd"
    SSD = "ssd"
    NVME = "nvme"


class PowerState(StrEnum):
    """ATA/SCSI power mode as smartctl -n standby or hdparm -C report it."""

    ACTIVE = "active"
    IDLE = "idle"
    STANDBY = "standby"
    SLEEP = "sleep"
    UNKNOWN = "unknown"

    @property
    def spun_down(self) -> bool:
        """True when asking the drive for SMART data would wake it."""
        return self in (PowerState.STANDBY, PowerState.SLEEP)


class TempSource(StrEnum):
    """Where a temperature came from; hwmon never wakes a disk, smartctl may."""

    DRIVETEMP = "drivetemp"
    NVME_HWMON = "nvme-hwmon"
    SMART = "smart"
    IPMI = "ipmi"
    SNMP = "snmp"
    SIMULATED = "sim"


@dataclass(frozen=True, slots=True)
class Temperature:
    """A temperature reading and when it was taken.

    Attributes:
        celsius: the reading in degrees Celsius.
        measured_at: Unix time of the reading; a standby drive keeps its last one.
        source: which collector produced it.
    """

    celsius: float
    measured_at: float
    source: TempSource

    def age(self, now: float) -> float:
        """Seconds since the reading was taken (never negative)."""
        return max(0.0, now - self.measured_at)


@dataclass(frozen=True, slots=True)
class DriveIdentity:
    """What the drive says it is.

    Attributes:
        model: model string ("HGST HUS724040ALA640").
        serial: serial number; the key nastui tracks a drive by across renames.
        wwn: World Wide Name, e.g. "5 000cca 22bc1a6e3", when reported.
        firmware: firmware revision.
        capacity_bytes: user capacity.
        transport: SATA, SAS, NVMe, USB bridge...
        rotational: True for spinning disks, False for flash, None when unknown.
        rpm: rotation rate; None for SSDs and when unknown.
        vendor: vendor string where the interface reports one separately (SAS, USB).
    """

    model: str | None = None
    serial: str | None = None
    wwn: str | None = None
    firmware: str | None = None
    capacity_bytes: int | None = None
    transport: Transport = Transport.UNKNOWN
    rotational: bool | None = None
    rpm: int | None = None
    vendor: str | None = None

    @property
    def drive_class(self) -> DriveClass:
        """HDD, SSD or NVMe; a drive of unknown rotation counts as an HDD (the strictest limits)."""
        if self.transport is Transport.NVME:
            return DriveClass.NVME
        if self.rotational is False:
            return DriveClass.SSD
        return DriveClass.HDD


@dataclass(frozen=True, slots=True)
class SmartAttribute:
    """One ATA SMART attribute row.

    Attributes:
        id: attribute number (5, 197, ...).
        name: smartctl's name ("Current_Pending_Sector").
        value: normalized value, usually 1..253 (100 or 200 is new).
        worst: lowest normalized value seen by the drive.
        threshold: failure threshold; 0 or None means it never fails on its own.
        raw: the raw value as an integer where smartctl decodes one.
        raw_string: the raw value as smartctl prints it ("36 (Min/Max 22/45)").
        prefailure: True for Pre-fail attributes, False for Old_age.
        when_failed: "FAILING_NOW", "In_the_past" or None.
    """

    id: int
    name: str
    value: int | None = None
    worst: int | None = None
    threshold: int | None = None
    raw: int | None = None
    raw_string: str = ""
    prefailure: bool = False
    when_failed: str | None = None

    @property
    def failing(self) -> bool:
        """True when the normalized value is at or below a non-zero threshold."""
        return (
            bool(self.threshold) and self.value is not None and self.value <= (self.threshold or 0)
        )


@dataclass(frozen=True, slots=True)
class NvmeHealth:
    """The NVMe SMART / Health Information log (log page 02h)."""

    critical_warning: int | None = None
    percentage_used: int | None = None
    available_spare: int | None = None
    available_spare_threshold: int | None = None
    media_errors: int | None = None
    unsafe_shutdowns: int | None = None
    power_on_hours: int | None = None
    data_units_written: int | None = None
    error_log_entries: int | None = None


@dataclass(frozen=True, slots=True)
class ScsiHealth:
    """SAS/SCSI health counters (grown defect list and error counter log pages)."""

    grown_defects: int | None = None
    uncorrected_read_errors: int | None = None
    uncorrected_write_errors: int | None = None
    uncorrected_verify_errors: int | None = None
    non_medium_errors: int | None = None
    power_on_hours: int | None = None


@dataclass(frozen=True, slots=True)
class SelfTest:
    """One entry of the drive's self-test log, newest first in `Drive.self_tests`."""

    kind: str
    status: str
    passed: bool | None
    lifetime_hours: int | None = None
    remaining_percent: int | None = None
    first_error_lba: int | None = None


@dataclass(frozen=True, slots=True)
class AtaError:
    """One entry of the ATA error log: the drive's power-on hour, smartctl's description
    ("UNC at LBA = 0x6c5e7e98 = 1818132120") and the LBA when it names one."""

    lifetime_hours: int
    description: str
    lba: int | None = None

    @property
    def uncorrectable(self) -> bool:
        """An uncorrectable read (UNC): data the drive could not read back."""
        return "UNC" in self.description.replace(",", " ").split()


@dataclass(frozen=True, slots=True)
class IoRate:
    """Recent I/O on the drive (from /proc/diskstats or psutil), per second."""

    read_bytes_per_s: float
    write_bytes_per_s: float
    busy_percent: float | None = None


@dataclass(frozen=True, slots=True)
class Drive:
    """A drive as collected at one moment.

    Attributes:
        dev: kernel name ("sda", "nvme0n1"); stable only until the next reboot.
        identity: model, serial, WWN and the rest.
        by_id: /dev/disk/by-id link names pointing at this drive.
        by_path: the /dev/disk/by-path link name, which names the controller port.
        power: power state at collection time.
        temperature: the latest reading, possibly stale (see `Temperature.age`).
        smart_passed: the drive's own overall assessment; None when not read.
        attributes: ATA SMART attributes.
        nvme: NVMe health log, for NVMe drives.
        scsi: SAS/SCSI counters, for SAS drives.
        self_tests: self-test log, newest first.
        power_on_hours: lifetime hours, whatever the interface.
        io: recent I/O rates.
        verdict: health verdict with reasons, filled in by core.health.
        smart_read_at: Unix time SMART data was last read; None if never.
        smart_problem: why SMART could not be read, one line naming the thing and the fix
            ("smartctl not found: install smartmontools"); None when it was read (or not tried).
        smart_pending: the drive's first SMART read is under way (none has ended yet): no
            verdict on its SMART can be made, and one will be when the read ends.
        wakeups: times nastui's own queries woke this drive from standby (must stay 0); None
            where not tracked (the simulator, a saved capture).
        acks: the operator's acknowledgements of this drive's findings.
        slot: where an SES enclosure or a RAID/HBA controller says the drive sits.
        sas_address: the drive's SAS address (SAS and SATA-behind-SAS), for enclosure tools.
        by_vdev: the /dev/disk/by-vdev name ZFS's vdev_id.conf gives it, if any.
        partitions: its partitions' kernel names.
        holders: devices built on it or its partitions (md arrays, device-mapper).
        ata_errors: the ATA error log's entries, newest first (UNC reads count in the verdict).
    """

    dev: str
    identity: DriveIdentity
    by_id: tuple[str, ...] = ()
    by_path: str | None = None
    power: PowerState = PowerState.UNKNOWN
    temperature: Temperature | None = None
    smart_passed: bool | None = None
    attributes: tuple[SmartAttribute, ...] = ()
    nvme: NvmeHealth | None = None
    scsi: ScsiHealth | None = None
    self_tests: tuple[SelfTest, ...] = ()
    power_on_hours: int | None = None
    io: IoRate | None = None
    verdict: Verdict = UNASSESSED
    smart_read_at: float | None = None
    smart_problem: str | None = None
    smart_pending: bool = False
    wakeups: int | None = None
    acks: tuple[Acknowledgement, ...] = ()
    slot: EnclosureSlot | None = None
    sas_address: str | None = None
    by_vdev: str | None = None
    partitions: tuple[str, ...] = ()
    holders: tuple[str, ...] = ()
    ata_errors: tuple[AtaError, ...] = ()

    @property
    def key(self) -> str:
        """The identity nastui tracks this drive by: serial, else WWN, else device name."""
        return self.identity.serial or self.identity.wwn or self.dev

    @property
    def has_smart(self) -> bool:
        """SMART health data was read: an assessment, attributes or counters."""
        return (
            self.smart_passed is not None
            or bool(self.attributes)
            or self.nvme is not None
            or self.scsi is not None
        )

    def attribute(self, attr_id: int) -> SmartAttribute | None:
        """The ATA attribute with this id, if the drive reports it."""
        for attr in self.attributes:
            if attr.id == attr_id:
                return attr
        return None

    @property
    def label(self) -> str:
        """One-line human name: "sdc HGST HUS724040ALA640 PK2334PBHDJ2SR"."""
        parts = [self.dev, self.identity.model or "unknown model", self.identity.serial or ""]
        return " ".join(p for p in parts if p)
