"""Results of actions on hardware (locate LEDs now; scrubs and fans later)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class LocateResult:
    """What happened when a locate LED was switched.

    Attributes:
        bay: the bay asked for.
        on: the state asked for.
        ok: the LED is now in that state (as far as the method can tell).
        method: how it was done ("sim", "ses-sysfs", "ledctl", "sg_ses", "activity-blink").
        message: one line for the operator: what happened, or what is missing and the fix.
    """

    bay: int
    on: bool
    ok: bool
    method: str
    message: str
