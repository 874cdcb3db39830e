"""What a bay shows at a glance, readable without colour (pure).

Every front end draws a bay from `bay_state`: a state with a four-letter label and a one-character
ASCII mark, so the grid reads the same on a monochrome serial console as in a colour terminal.
"""

from __future__ import annotations

from enum import Enum

from nastui.core.health import awaiting_smart
from nastui.model import BaySlot, Drive, Health


class BayState(Enum):
    """A bay's state: (label, mark, sort rank)."""

    OK = ("OK", "+", 0)
    READING = ("WAIT", "-", 1)  # the drive's first SMART read is under way
    STANDBY = ("STBY", "z", 1)
    EMPTY = ("EMPT", ".", 0)
    UNKNOWN = ("UNKN", "?", 2)
    WARNING = ("WARN", "!", 3)
    MISSING = ("MISS", "#", 4)
    CRITICAL = ("CRIT", "X", 5)

    @property
    def label(self) -> str:
        """Four-letter label: OK, WAIT, STBY, EMPT, UNKN, WARN, MISS, CRIT."""
        return self.value[0]

    @property
    def mark(self) -> str:
        """One ASCII character: + - z . ? ! # X."""
        return self.value[1]

    @property
    def rank(self) -> int:
        """Severity, for picking the worst bay."""
        return self.value[2]


LOCATE_MARK = "*"  # after a bay whose locate LED is lit (`BaySlot.locate_lit`), in every view
LOCATE_KEY = f"{LOCATE_MARK}=locate LED lit"


_FROM_HEALTH = {
    Health.OK: BayState.OK,
    Health.WARNING: BayState.WARNING,
    Health.CRITICAL: BayState.CRITICAL,
    Health.UNKNOWN: BayState.UNKNOWN,
}


def bay_state(slot: BaySlot, drive: Drive | None) -> BayState:
    """The state of one bay: empty/missing when it holds no drive, else from the verdict.

    A spun-down drive whose last verdict was fine (or could not be made because SMART is not
    read in standby) shows STANDBY; a spun-down drive with a problem still shows the problem.
    A drive whose verdict waits only for its first SMART read shows READING, not UNKNOWN.
    """
    if drive is None:
        return BayState.MISSING if slot.expected else BayState.EMPTY
    if awaiting_smart(drive):
        return BayState.READING
    state = _FROM_HEALTH[drive.verdict.health]
    if drive.power.spun_down and state in (BayState.OK, BayState.UNKNOWN):
        return BayState.STANDBY
    return state


def health_word(drive: Drive) -> str:
    """A drive's health in a word: its verdict's state (OK, WARNING...), or READING while the
    verdict waits only for the drive's first SMART read."""
    return "READING" if awaiting_smart(drive) else drive.verdict.health.name
