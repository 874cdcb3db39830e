"""Time as a dependency: core logic takes a `Clock` instead of calling time.time().

`SystemClock` is the real one; `nastui.sim.clock.FakeClock` is set and advanced by tests, the
simulator and the screenshot script so their output is deterministic.
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
