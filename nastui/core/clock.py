"""Time as a dependency: core logic takes a `Clock` instead of calling time.time().

`SystemClock` is the real one; `nastui.sim.clock.FakeClock` is set and advanced by tests, the
simulator and the screenshot script so their output is deterministic.

The wall clock can be set back (an operator, NTP stepping a fast clock): a schedule kept in wall
time would then wait out the hour it went back before anything is due again. `due` treats a
clock that went back past the last time as "due now", so a step back costs at most one interval.
"""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    """Anything that can say what time it is."""

    def now(self) -> float:
        """Unix time in seconds."""
        ...


class SystemClock:
    """The wall clock."""

    def now(self) -> float:
        """Unix time in seconds."""
        return time.time()


def due(last: float | None, now: float, every: float) -> bool:
    """Whether something done at `last` (None: never) is due again at `now`, every `every`
    seconds: also when the clock went back past `last`."""
    return last is None or not 0 <= now - last < every
