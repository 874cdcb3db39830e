"""Limits the health rules compare against: temperatures per drive class, SMART raw counts.

Temperature defaults per drive class, from the drives' own ratings: 3.5" HDDs (NAS and
enterprise lines alike) are specified to 60 °C in operation, so 50 °C warns and 55 °C is
critical, 5 °C short of the rating (a 45 °C warning cried wolf for drives in a warm room); SATA
SSDs are rated to 70 °C; NVMe drives start throttling near 70-80 °C (their own warning
composite temperature). The SMART counts are those Backblaze's drive statistics single out as
failure predictors (5, 187, 197, 198): any non-zero value warns, a large one is critical; on
an SSD, attribute 5 counts retired flash blocks, which the drive has spares for, so it is judged
by its normalized value and by growth instead (see `nastui.core.health`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fnmatch import fnmatchcase

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


@dataclass(frozen=True, slots=True)
class TempOverride:
    """Temperature limits for the drives of one model (a glob, "WDC WD40EFRX*") or one bay."""

    warning: float
    critical: float
    model: str | None = None
    bay: int | None = None

    def matches(self, model: str | None, bay: int | None) -> bool:
        """This override applies to a drive of `model` in `bay`."""
        if self.bay is not None and self.bay != bay:
            return False
        if self.model is not None and not fnmatchcase(model or "", self.model):
            return False
        return self.bay is not None or self.model is not None


DEFAULT_TEMPS: dict[DriveClass, TempLimits] = {
    DriveClass.HDD: TempLimits(50.0, 55.0),
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
        temp_overrides: temperature limits per model or bay; a bay's wins over a model's.
        ssd_retired_normalized_warning: an SSD's attribute 5 warns when its normalized value
            falls below this (or when its raw count grows).
        selftest_recent_hours: a self-test read failure this many power-on hours old or newer
            is critical (older ones warn).
        unc_recent_hours: uncorrectable (UNC) errors in the ATA error log this recent warn.
    """

    temps: dict[DriveClass, TempLimits] = field(default_factory=lambda: dict(DEFAULT_TEMPS))
    attributes: tuple[AttributeLimit, ...] = DEFAULT_ATTRIBUTES
    stale_after_s: float = 900.0
    scrub_max_age_days: float = 35.0
    nvme_percent_used_warning: int = 90
    pools: PoolPolicy = field(default_factory=PoolPolicy)
    ignore: tuple[IgnoreRule, ...] = ()
    temp_overrides: tuple[TempOverride, ...] = ()
    ssd_retired_normalized_warning: int = 90
    selftest_recent_hours: int = 720
    unc_recent_hours: int = 720

    def temp_limits(self, cls: DriveClass, model: str | None, bay: int | None) -> TempLimits:
        """The temperature limits for a drive: its bay's override, else its model's, else its
        class's."""
        for want_bay in (True, False):
            for rule in self.temp_overrides:
                if (rule.bay is not None) == want_bay and rule.matches(model, bay):
                    return TempLimits(rule.warning, rule.critical)
        return self.temps[cls]

    def attribute(self, attr_id: int) -> AttributeLimit | None:
        """The limit configured for an attribute id."""
        for limit in self.attributes:
            if limit.attr_id == attr_id:
                return limit
        return None
