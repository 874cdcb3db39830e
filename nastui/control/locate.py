"""Locate LEDs: the `Locator` seam front ends call to light the bay of the drive to pull.

Implementations: the simulator's (`nastui.sim.locate`), and for a real machine the ladder of
methods (SES sysfs, ledctl, sg_ses, activity blink) in `nastui.control.locate_ladder`.
`NoLocator` lights nothing and says why (for a source that has no LEDs at all).
"""

from __future__ import annotations

from typing import Protocol

from nastui.model import LocateResult


class Locator(Protocol):
    """Something that can switch a bay's locate LED."""

    async def locate(self, bay: int, on: bool) -> LocateResult:
        """Switch the LED of `bay`; never raises for a hardware failure (see `ok`)."""
        ...


class NoLocator:
    """A machine with no way to light a bay LED: every call fails safe and says why."""

    def __init__(self, why: str) -> None:
        self._why = why

    async def locate(self, bay: int, on: bool) -> LocateResult:
        """Light nothing; explain."""
        return LocateResult(bay, on, False, "none", self._why)
