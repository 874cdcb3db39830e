"""The drive side of the local backend: every drive with what can be read about it, plus where
the hardware says each one sits (enclosure slots) and the state of the bay LEDs.

Today: identity from sysfs, temperatures from hwmon, I/O rates from the kernel's counters.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from nastui.collectors.hwmon import drive_temperatures
from nastui.collectors.iostat import IoSampler
from nastui.collectors.sysfs import discover
from nastui.model import CollectorError, Drive, LedState, MappedBy

SMART_PENDING = CollectorError(
    "smart",
    "SMART health is not read by this nastui build yet: drive verdicts show UNKNOWN",
)


@dataclass(frozen=True)
class DriveReport:
    """What the drive collectors found in one poll.

    Attributes:
        drives: every drive, in device-name order.
        errors: what could not be read, one line each.
        enclosure_slots: `Drive.key` -> "ENCLOSURE:SLOT", for `enclosure` bay bindings.
        located: `Drive.key` -> (bay, how), found automatically (SES, controller tables).
        leds: bay number -> LED state, where the hardware tells.
    """

    drives: tuple[Drive, ...]
    errors: tuple[CollectorError, ...] = ()
    enclosure_slots: Mapping[str, str] = field(default_factory=dict)
    located: Mapping[str, tuple[int, MappedBy]] = field(default_factory=dict)
    leds: Mapping[int, LedState] = field(default_factory=dict)


class DriveCollector:
    """Reads drives under `root`; keeps the I/O counters between polls."""

    def __init__(self, root: Path = Path("/")) -> None:
        self._root = root
        self._io = IoSampler(root)

    async def collect(self, now: float) -> DriveReport:
        """One poll of every drive."""
        errors: list[CollectorError] = []
        devices = list(discover(self._root))
        if not devices:
            errors.append(
                CollectorError("drives", f"no drives found under {self._root / 'sys/block'}")
            )
        names = [d.dev for d in devices]
        temps = drive_temperatures(self._root, names, now)
        io = self._io.sample(names, now)
        if io is None and devices:
            errors.append(
                CollectorError("io", f"no I/O counters: {self._root / 'proc/diskstats'} unreadable")
            )
        drives = tuple(
            Drive(
                dev=d.dev,
                identity=d.identity,
                by_id=d.by_id,
                by_path=d.by_path,
                temperature=temps.get(d.dev),
                io=(io or {}).get(d.dev),
            )
            for d in devices
        )
        if drives:
            errors.append(SMART_PENDING)
        return DriveReport(drives, tuple(errors))
