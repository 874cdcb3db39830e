"""The real backend for the machine nastui runs on (or a tree captured from one, via `root`).

It assembles a `HostSnapshot` from the collectors that exist: drive discovery from sysfs,
temperatures from hwmon, I/O rates from the kernel's disk counters, bays from the configuration.
What it cannot collect is named in `snapshot.errors` with the fix, and the rest is still
published.
"""

from __future__ import annotations

import socket
from pathlib import Path

from nastui.collectors.hwmon import drive_temperatures
from nastui.collectors.iostat import IoSampler
from nastui.collectors.sysfs import BlockDevice, discover, read_text
from nastui.config import Config
from nastui.core.clock import Clock, SystemClock
from nastui.core.layout import assign_bays, build_chassis
from nastui.model import BaySlot, Chassis, CollectorError, Drive, HostSnapshot

SMART_PENDING = CollectorError(
    "smart",
    "SMART health is not read by this nastui build yet: drive verdicts show UNKNOWN",
)


def local_hostname(root: Path) -> str:
    """The host name: from the tree's /etc/hostname under a non-/ root, else this machine's."""
    if root != Path("/"):
        name = read_text(root / "etc/hostname")
        if name:
            return name
    return socket.gethostname()


class LocalBackend:
    """Collects from /sys, /proc and /dev under `root`."""

    def __init__(
        self, config: Config, *, root: Path = Path("/"), clock: Clock | None = None
    ) -> None:
        self._config = config
        self._root = root
        self._clock = clock or SystemClock()
        self._host = config.hostname or local_hostname(root)
        self._io = IoSampler(root)
        chassis_cfg = config.chassis
        self._chassis = build_chassis(chassis_cfg.layout) if chassis_cfg.configured else None

    @property
    def host(self) -> str:
        """The name snapshots are published under."""
        return self._host

    @property
    def chassis(self) -> Chassis | None:
        """The configured chassis; None when the configuration has no [chassis] table."""
        return self._chassis

    def _drives(
        self, devices: list[BlockDevice], now: float, errors: list[CollectorError]
    ) -> tuple[Drive, ...]:
        names = [d.dev for d in devices]
        temps = drive_temperatures(self._root, names, now)
        io = self._io.sample(names, now)
        if io is None and devices:
            errors.append(
                CollectorError("io", f"no I/O counters: {self._root / 'proc/diskstats'} unreadable")
            )
        return tuple(
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

    def snapshot(self) -> HostSnapshot:
        """Collect once, synchronously."""
        now = self._clock.now()
        errors: list[CollectorError] = []
        devices = list(discover(self._root))
        if not devices:
            errors.append(
                CollectorError("drives", f"no drives found under {self._root / 'sys/block'}")
            )
        drives = self._drives(devices, now, errors)
        slots: tuple[BaySlot, ...] = ()
        if self._chassis is not None:
            chassis_cfg = self._config.chassis
            slots = assign_bays(
                self._chassis,
                drives,
                chassis_cfg.bindings,
                empty_on_purpose=chassis_cfg.empty,
            )
        if drives:
            errors.append(SMART_PENDING)
        return HostSnapshot(
            host=self._host,
            taken_at=now,
            chassis=self._chassis,
            slots=slots,
            drives=drives,
            errors=tuple(errors),
            source="local",
        )

    async def collect(self) -> HostSnapshot:
        """Collect once (the `Backend` protocol)."""
        return self.snapshot()
