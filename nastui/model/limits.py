"""Limits the health rules compare against: temperatures per drive class, SMART raw counts.

Defaults follow common NAS practice: spinning disks are happiest below about 40 °C and their
failure rate climbs past 45-50 °C; SATA SSDs tolerate 60-70 °C; NVMe drives throttle near 70-80 °C.
The SMART counts are those Backblaze's drive statistics single out as failure predictors
(5, 187, 197, 198): any non-zero value warns, a large one is critical.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from nastui.model.drive import DriveClass
from nastui.model.policy import IgnoreRule, PoolPolicy


@dataclass(frozen=True, slots=True)
class TempLimits:
    """Warning and critical temperatures in degrees Celsius (reading >= limit trips it)."""

    warning: float
    critical: float


@dataclass(frozen=True, slots=True)
class AttributeLimit:
    """Raw-value limits for one ATA attribute (raw >= limit trips it; None disables)."""

    attr_id: int
    warning: int | None
    critical: int | None


DEFAULT_TEMPS: dict[DriveClass, TempLimits] = {
    DriveClass.HDD: TempLimits(45.0, 50.0),
    DriveClass.SSD: TempLimits(60.0, 70.0),
    DriveClass.NVME: TempLimits(70.0, 80.0),
}

DEFAULT_ATTRIBUTES: tuple[AttributeLimit, ...] = (
    AttributeLimit(5, 1, 100),  # Reallocated_Sector_Ct
    AttributeLimit(10, 1, None),  # Spin_Retry_Count
    AttributeLimit(187, 1, 50),  # Reported_Uncorrect
    AttributeLimit(196, 1, 100),  # Reallocated_Event_Count
    AttributeLimit(197, 1, 50),  # Current_Pending_Sector
    AttributeLimit(198, 1, 50),  # Offline_Uncorrectable
)


@dataclass(frozen=True, slots=True)
class Thresholds:
    """Every limit the health rules use.

    Attributes:
        temps: temperature limits per drive class.
        attributes: raw-value limits per ATA attribute id.
        stale_after_s: a temperature older than this is shown as stale.
        scrub_max_age_days: warn when the last completed scrub is older than this.
        nvme_percent_used_warning: NVMe wear (percentage_used) that warns.
        pools: capacity limits (`[pools]`).
        ignore: drives and findings that make no alerts (`[[collectors.ignore]]`).
    """

    temps: dict[DriveClass, TempLimits] = field(default_factory=lambda: dict(DEFAULT_TEMPS))
    attributes: tuple[AttributeLimit, ...] = DEFAULT_ATTRIBUTES
    stale_after_s: float = 900.0
    scrub_max_age_days: float = 35.0
    nvme_percent_used_warning: int = 90
    pools: PoolPolicy = field(default_factory=PoolPolicy)
    ignore: tuple[IgnoreRule, ...] = ()

    def attribute(self, attr_id: int) -> AttributeLimit | None:
        """The limit configured for an attribute id."""
        for limit in self.attributes:
            if limit.attr_id == attr_id:
                return limit
        return None
