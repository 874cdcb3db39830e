"""What the operator told nastui to watch and how: collector switches, ignore rules, capacity
limits, and what each collector found about its subsystem (stdlib only).

A collector is `auto` (on when its subsystem is present), `on` (always run: a missing tool is
UNKNOWN) or `off` (never run). Its state in a snapshot says which it turned out to be:
"on", "off" (subsystem absent: nothing to watch) or "disabled" (switched off in the
configuration), with one line saying why.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class CollectorMode(StrEnum):
    """A `[collectors]` switch."""

    AUTO = "auto"
    ON = "on"
    OFF = "off"


@dataclass(frozen=True, slots=True)
class CollectorsConfig:
    """The `[collectors]` switches of the pool stacks.

    Attributes:
        zfs: ZFS (`zpool`, `zfs`).
        md: Linux software RAID (/proc/mdstat, /sys/block/mdN/md).
        btrfs: btrfs (btrfs-progs).
    """

    zfs: CollectorMode = CollectorMode.AUTO
    md: CollectorMode = CollectorMode.AUTO
    btrfs: CollectorMode = CollectorMode.AUTO


@dataclass(frozen=True, slots=True)
class CollectorState:
    """What became of one collector in a poll.

    Attributes:
        name: "zfs", "md", "btrfs".
        state: "on", "off" (its subsystem is absent) or "disabled" (by the configuration).
        detail: why, in a few words ("no zfs module and no zpool").
    """

    name: str
    state: str
    detail: str = ""


@dataclass(frozen=True, slots=True)
class IgnoreRule:
    """Drives (or some of their findings) the operator does not want alerts for.

    A rule matches a drive by every selector it sets (serial exactly, model as a shell
    pattern, bay number); at least one is set. With `findings` empty the whole drive is
    ignored, else only those finding keys ("attr:199", "temp", "nvme:media"; a bare number
    means "attr:N").

    Attributes:
        serial: the drive's serial number.
        model: its model, a shell pattern ("ST8000DM004*").
        bay: the bay it sits in.
        findings: finding keys to ignore; empty: all of them.
    """

    serial: str | None = None
    model: str | None = None
    bay: int | None = None
    findings: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class CapacityLimits:
    """Pool usage, in percent of usable space, that warns and that is critical (>= trips)."""

    warning: float = 80.0
    critical: float = 90.0


@dataclass(frozen=True, slots=True)
class PoolPolicy:
    """Capacity limits: the default and per pool name."""

    capacity: CapacityLimits = field(default_factory=CapacityLimits)
    per_pool: tuple[tuple[str, CapacityLimits], ...] = ()

    def capacity_for(self, pool: str) -> CapacityLimits:
        """The limits for the pool named `pool`."""
        for name, limits in self.per_pool:
            if name == pool:
                return limits
        return self.capacity
