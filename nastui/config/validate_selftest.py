"""The `[selftest]` section: when the daemon starts SMART self-tests.

    [selftest]
    enabled = true
    short = "weekly"            # daily, weekly, monthly, off, or a number of days (1..90)
    long = "monthly"            # the same words, or days (1..366)
    max_at_once = 4             # tests running on the box at one time (1..64)
    skip_models = ["ST8000DM*"] # model globs never tested by the daemon
    skip_bays = [1, 2]          # bays never tested by the daemon
    hours = "01-06"             # start tests only from 01:00 to 05:59 local time ("22-06" wraps)

Bounds: a short test more than daily would keep a disk busy for nothing; a long test more
often than daily never ends on a big disk; intervals past a quarter (short) or a year (long)
are not a schedule.
"""

from __future__ import annotations

import re

from nastui.config.keys import SELFTEST_KEYS
from nastui.config.validate_base import Section
from nastui.selftest.logic.policy import SelftestPolicy

_HOURS = re.compile(r"\s*(\d{1,2})\s*-\s*(\d{1,2})\s*")
WORDS = {"daily": 1.0, "weekly": 7.0, "monthly": 31.0, "off": 0.0}
SHORT_MAX_DAYS = 90.0
LONG_MAX_DAYS = 366.0


def _interval(sec: Section, key: str, default: float, high: float) -> float:
    if not sec.has(key):
        return default
    value = sec.table[key]
    if isinstance(value, str) and value.strip().lower() in WORDS:
        return WORDS[value.strip().lower()]
    if isinstance(value, int | float) and not isinstance(value, bool) and 1 <= value <= high:
        return float(value)
    sec.wrong(key, f'"daily", "weekly", "monthly", "off" or a number of days from 1 to {high:g}')
    return default


def _bays(sec: Section) -> tuple[int, ...]:
    value = sec.table.get("skip_bays", [])
    if isinstance(value, list) and all(
        isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 1024 for v in value
    ):
        return tuple(value)
    sec.wrong("skip_bays", "an array of bay numbers (0..1024)")
    return ()


def _hours(sec: Section) -> tuple[int, int] | None:
    if not sec.has("hours"):
        return None
    value = sec.table["hours"]
    found = _HOURS.fullmatch(value) if isinstance(value, str) else None
    if found is not None:
        first, end = int(found[1]), int(found[2])
        if 0 <= first <= 23 and 0 <= end <= 24 and first != end:
            return first, end
    sec.wrong("hours", 'a range of hours "FIRST-END" such as "01-06" or "22-06" (0-24, not empty)')
    return None


def read_selftest(root: Section) -> SelftestPolicy:
    """The `[selftest]` section (defaults: short weekly, long monthly, 4 at once)."""
    sec = root.table_at("selftest")
    base = SelftestPolicy()
    if sec is None:
        return base
    sec.check_keys(SELFTEST_KEYS)
    enabled = sec.boolean("enabled")
    return SelftestPolicy(
        enabled=base.enabled if enabled is None else enabled,
        short_days=_interval(sec, "short", base.short_days, SHORT_MAX_DAYS),
        long_days=_interval(sec, "long", base.long_days, LONG_MAX_DAYS),
        max_at_once=sec.integer("max_at_once", base.max_at_once, low=1, high=64),
        skip_models=sec.strings("skip_models"),
        skip_bays=_bays(sec),
        hours=_hours(sec),
    )
