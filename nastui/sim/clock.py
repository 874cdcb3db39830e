"""A clock that only moves when told to, for the simulator, tests and screenshots."""

from __future__ import annotations

import time

# 2026-03-14 02:00:00 UTC: a night-time scrub window, fixed so simulated runs repeat exactly.
SIM_EPOCH = 1_773_453_600.0


class FakeClock:
    """A `nastui.core.clock.Clock` that stands still until `advance` or `set` moves it."""

    def __init__(self, start: float = SIM_EPOCH) -> None:
        self._now = float(start)

    def now(self) -> float:
        """The fake time, in Unix seconds."""
        return self._now

    def advance(self, seconds: float) -> float:
        """Move forward by `seconds` (never backwards); returns the new time."""
        if seconds < 0:
            raise ValueError("a FakeClock never goes backwards")
        self._now += seconds
        return self._now

    def set(self, when: float) -> None:
        """Jump to `when` (not earlier than now)."""
        if when < self._now:
            raise ValueError("a FakeClock never goes backwards")
        self._now = float(when)


class FollowingClock:
    """Sim time that runs at wall-clock speed from `start`: the live demo's clock."""

    def __init__(self, start: float = SIM_EPOCH, *, speed: float = 1.0) -> None:
        self._start = float(start)
        self._origin = time.monotonic()
        self._speed = speed

    def now(self) -> float:
        """`start` plus the wall time elapsed since this clock was made (times `speed`)."""
        return self._start + (time.monotonic() - self._origin) * self._speed
