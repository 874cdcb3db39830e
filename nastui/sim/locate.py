"""The simulator's locate LEDs: a `nastui.control.locate.Locator` over `SimBackend`."""

from __future__ import annotations

from nastui.model import LedState, LocateResult
from nastui.sim.backend import SimBackend


class SimLocator:
    """Switches the simulated bay LED; the next snapshot shows it in `BaySlot.led`."""

    def __init__(self, backend: SimBackend) -> None:
        self._backend = backend

    async def locate(self, bay: int, on: bool) -> LocateResult:
        """Switch the LED of `bay` (a bay the chassis lacks is refused, not raised)."""
        try:
            state = self._backend.set_locate(bay, on)
        except ValueError as exc:
            return LocateResult(bay, on, False, "sim", str(exc))
        word = "on" if state is LedState.LOCATE else "off"
        return LocateResult(bay, on, True, "sim", f"bay {bay}: locate LED {word} (simulated)")
