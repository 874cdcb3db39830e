"""`HostSnapshot`: everything collected from one host at one moment.

A snapshot is published even when parts of it failed: each failure is a `CollectorError` in
`errors`, and the rest of the snapshot stands (one dead drive never hides the other 23).
"""

from __future__ import annotations

from dataclasses import dataclass

from nastui.model.alert import Alert
from nastui.model.chassis import BaySlot, Chassis
from nastui.model.drive import Drive
from nastui.model.fan import Fan, Sensor
from nastui.model.health import Health
from nastui.model.policy import CollectorState
from nastui.model.pool import Pool
from nastui.model.ups import Ups


@dataclass(frozen=True, slots=True)
class CollectorError:
    """One thing that could not be collected, and what to do about it.

    Attributes:
        source: the collector or item ("smart:sdc", "zfs", "hwmon").
        message: one line naming the thing and the fix
            ("zpool not found: install zfsutils-linux").
        health: UNKNOWN (nastui cannot tell how the thing is), or CRITICAL when not being able
            to read it is itself the failure (pools this box had, behind a ZFS module that
            cannot be loaded).
    """

    source: str
    message: str
    health: Health = Health.UNKNOWN


@dataclass(frozen=True, slots=True)
class HostSnapshot:
    """The state of one host.

    Attributes:
        host: host name as configured (or the local hostname).
        taken_at: Unix time the snapshot was completed.
        chassis: the bay geometry, when known.
        slots: which drive is in which bay, one entry per bay.
        drives: every drive found, in a stable order.
        pools: every pool found.
        fans: fans with RPM and duty.
        sensors: other temperatures (CPU, inlet, BMC).
        ups: UPSes (a remote UPS host, or a NAS that reports its own UPS).
        alerts: active alerts, as derived by core.
        errors: what could not be collected.
        source: "sim:<scenario>", "local" or "snmp:<profile>".
        collectors: what each switchable collector did (on, off: subsystem absent, disabled).
    """

    host: str
    taken_at: float
    chassis: Chassis | None = None
    slots: tuple[BaySlot, ...] = ()
    drives: tuple[Drive, ...] = ()
    pools: tuple[Pool, ...] = ()
    fans: tuple[Fan, ...] = ()
    sensors: tuple[Sensor, ...] = ()
    ups: tuple[Ups, ...] = ()
    alerts: tuple[Alert, ...] = ()
    errors: tuple[CollectorError, ...] = ()
    source: str = "local"
    collectors: tuple[CollectorState, ...] = ()

    @classmethod
    def empty(cls, host: str, taken_at: float = 0.0) -> HostSnapshot:
        """A snapshot with nothing in it, for a host not yet polled."""
        return cls(host=host, taken_at=taken_at)

    def drive(self, key: str) -> Drive | None:
        """The drive with this `Drive.key` (or device name)."""
        for drive in self.drives:
            if key in (drive.key, drive.dev):
                return drive
        return None

    def slot(self, bay: int) -> BaySlot | None:
        """The slot record for a bay number."""
        for slot in self.slots:
            if slot.bay == bay:
                return slot
        return None

    def bay_of(self, drive_key: str) -> int | None:
        """The bay a drive sits in, if mapped."""
        for slot in self.slots:
            if slot.drive == drive_key:
                return slot.bay
        return None

    def pool_of(self, drive_key: str) -> tuple[Pool, str] | None:
        """The pool a drive belongs to and the name of its top-level vdev."""
        for pool in self.pools:
            for top in pool.root.children:
                if any(v.drive == drive_key for _, v in top.walk()):
                    return pool, top.name
        return None

    @property
    def unplaced_drives(self) -> tuple[Drive, ...]:
        """Drives that are in no bay (M.2 boot drives, unmapped disks)."""
        placed = {s.drive for s in self.slots if s.drive}
        return tuple(d for d in self.drives if d.key not in placed)
