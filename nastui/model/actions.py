"""Results of actions on hardware: locate LEDs and pool scrubs (fans later)."""

from __future__ import annotations

from dataclasses import dataclass

from nastui.model.pool import ScrubAction  # at run time: the codec resolves the type hints


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


@dataclass(frozen=True, slots=True)
class ScrubResult:
    """What happened when a scrub was started, paused or stopped.

    Attributes:
        pool: the pool asked for.
        action: start, pause or stop.
        ok: the tool accepted it.
        method: how it was done ("libzfs_core", "zpool scrub", "btrfs scrub", "md sysfs", "sim",
            "none").
        message: one line for the operator: what happened, or what is missing and the fix.
        supported: False when the pool kind cannot do this at all (pause on btrfs or md).
        permission: False when it failed for lack of privileges (not root).
    """

    pool: str
    action: ScrubAction
    ok: bool
    method: str
    message: str
    supported: bool = True
    permission: bool = True
