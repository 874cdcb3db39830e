"""`SelftestPolicy`: the `[selftest]` section, apart from the planner that reads it, so that
the configuration (which every command loads) does not load the planner (`nastui status` never
plans a test).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SelftestPolicy:
    """The `[selftest]` section.

    Attributes:
        enabled: whether the daemon starts tests at all.
        short_days: every drive gets a short test at least this often (0: never).
        long_days: every drive gets a long (extended) test at least this often (0: never).
        max_at_once: tests running on the box at one time, at most.
        skip_models: model globs ("ST8000DM*") whose drives are never tested by the daemon.
        skip_bays: bay numbers whose drives are never tested by the daemon.
        hours: (first, end) hours of the local day tests may start in, end excluded;
            (22, 6) wraps past midnight; None: any hour.
    """

    enabled: bool = True
    short_days: float = 7.0
    long_days: float = 31.0
    max_at_once: int = 4
    skip_models: tuple[str, ...] = ()
    skip_bays: tuple[int, ...] = ()
    hours: tuple[int, int] | None = None
