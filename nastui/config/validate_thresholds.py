"""The `[thresholds]` section: temperature limits per drive class and SMART raw-value limits.

Anything left out keeps the default in `nastui.model.limits`. SMART limits are written as
`[[thresholds.attribute]]` tables (`id`, `warning`, `critical`); one with the id of a default
replaces only the values it sets, `false` disables a level, and an attribute without defaults
leaves unset levels disabled.
"""

from __future__ import annotations

from nastui.config.keys import ATTRIBUTE_KEYS, LEVELS, OVERRIDE_KEYS, THRESHOLD_KEYS
from nastui.config.validate_base import Section, check_order, repeat_of
from nastui.config.validate_values import YEAR_S, is_integer
from nastui.model import AttributeLimit, DriveClass, TempLimits, TempOverride, Thresholds
from nastui.model.limits import DEFAULT_ATTRIBUTES, DEFAULT_TEMPS

TEMP_LOW, TEMP_HIGH = -20.0, 120.0
MAX_RAW = 2**48 - 1  # a SMART attribute's raw value is 6 bytes


def read_thresholds(root: Section) -> Thresholds:
    """The limits the health rules use, defaults filled in."""
    sec = root.table_at("thresholds")
    base = Thresholds()
    if sec is None:
        return base
    sec.check_keys(THRESHOLD_KEYS)
    return Thresholds(
        temps={cls: _temps(sec, cls) for cls in DriveClass},
        attributes=_attributes(sec),
        stale_after_s=sec.number(
            "stale_after", base.stale_after_s, positive=True, high=YEAR_S, unit="seconds"
        ),
        scrub_max_age_days=sec.number(
            "scrub_max_age_days", base.scrub_max_age_days, positive=True, high=3660, unit="days"
        ),
        nvme_percent_used_warning=sec.integer(
            "nvme_percent_used_warning", base.nvme_percent_used_warning, low=1, high=255
        ),
        temp_overrides=tuple(_override(t) for t in sec.tables("temperature")),
        ssd_retired_normalized_warning=sec.integer(
            "ssd_retired_normalized_warning", base.ssd_retired_normalized_warning, low=1, high=255
        ),
        selftest_recent_hours=sec.integer(
            "selftest_recent_hours", base.selftest_recent_hours, low=1, high=1_000_000
        ),
        unc_recent_hours=sec.integer(
            "unc_recent_hours", base.unc_recent_hours, low=1, high=1_000_000
        ),
    )


def _override(table: Section) -> TempOverride:
    """A `[[thresholds.temperature]]` table: limits for one model (glob) and/or one bay."""
    table.check_keys(OVERRIDE_KEYS)
    model = table.text("model")
    bay = table.integer("bay", low=1, high=10_000)
    if model is None and bay is None:
        table.report(
            None,
            f"{table.name('model')} (a glob) or {table.name('bay')} (a bay number) is required",
        )
    warning = table.number("warning", None, low=TEMP_LOW, high=TEMP_HIGH, unit="°C")
    critical = table.number("critical", None, low=TEMP_LOW, high=TEMP_HIGH, unit="°C")
    for key, value in (("warning", warning), ("critical", critical)):
        if value is None:
            table.report(key, f"{table.name(key)} is required: a temperature in °C")
    limits = TempOverride(warning or 0.0, critical or 0.0, model, bay)
    if warning is not None and critical is not None:
        check_order((table, "warning", warning), (table, "critical", critical), strict=True)
    return limits


def _temps(sec: Section, cls: DriveClass) -> TempLimits:
    default = DEFAULT_TEMPS[cls]
    table = sec.table_at(cls.value)
    if table is None:
        return default
    table.check_keys(LEVELS)
    limits = TempLimits(
        table.number("warning", default.warning, low=TEMP_LOW, high=TEMP_HIGH, unit="°C"),
        table.number("critical", default.critical, low=TEMP_LOW, high=TEMP_HIGH, unit="°C"),
    )
    check_order(
        (table, "warning", limits.warning), (table, "critical", limits.critical), strict=True
    )
    return limits


def _attributes(sec: Section) -> tuple[AttributeLimit, ...]:
    limits = {limit.attr_id: limit for limit in DEFAULT_ATTRIBUTES}
    seen: dict[int, Section] = {}
    for table in sec.tables("attribute"):
        table.check_keys(ATTRIBUTE_KEYS)
        attr_id = table.integer("id", low=1, high=255, required=True)
        if attr_id is None:
            continue
        if first := repeat_of(seen, attr_id, table):
            table.report("id", f"{table.name('id')} {attr_id} is already set by {first.where}")
        default = limits.get(attr_id) or AttributeLimit(attr_id, None, None)
        limits[attr_id] = _attribute(table, default)
    return tuple(limits[key] for key in sorted(limits))


def _attribute(table: Section, default: AttributeLimit) -> AttributeLimit:
    warning = _level(table, "warning", default.warning)
    critical = _level(table, "critical", default.critical)
    if warning is not None and critical is not None:
        check_order((table, "warning", warning), (table, "critical", critical), strict=True)
    return AttributeLimit(default.attr_id, warning, critical)


def _level(table: Section, key: str, default: int | None) -> int | None:
    """A raw-count limit: a positive integer, or false to disable the level."""
    if not table.has(key):
        return default
    value = table.table[key]
    if value is False:
        return None
    if isinstance(value, int) and is_integer(value) and 1 <= value <= MAX_RAW:
        return value
    table.wrong(key, f"a positive integer up to {MAX_RAW} (a raw count) or false (never)")
    return default
