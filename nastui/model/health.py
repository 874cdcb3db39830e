"""Health states and verdicts shared by drives, pools, fans and hosts.

`Health` values are the monitoring-plugin exit codes (0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN), so
`nastui status` can exit with `int(worst)`. `worst()` ranks them the way an operator reads them:
CRITICAL over WARNING over UNKNOWN over OK.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import IntEnum


class Health(IntEnum):
    """A verdict's state; the value is the monitoring-plugin exit code."""

    OK = 0
    WARNING = 1
    CRITICAL = 2
    UNKNOWN = 3

    @property
    def rank(self) -> int:
        """Severity order for roll-ups: OK < UNKNOWN < WARNING < CRITICAL."""
        return _RANK[self]

    @property
    def short(self) -> str:
        """Four-letter label used where space is tight (bay cells, tables)."""
        return _SHORT[self]


_RANK = {Health.OK: 0, Health.UNKNOWN: 1, Health.WARNING: 2, Health.CRITICAL: 3}
_SHORT = {Health.OK: "OK", Health.WARNING: "WARN", Health.CRITICAL: "CRIT", Health.UNKNOWN: "UNKN"}


def worst(states: Iterable[Health]) -> Health:
    """The most severe state of `states`; OK when there are none."""
    result = Health.OK
    for state in states:
        if state.rank > result.rank:
            result = state
    return result


@dataclass(frozen=True, slots=True)
class Reason:
    """One finding behind a verdict.

    Attributes:
        health: how bad this finding is on its own.
        text: what an operator reads, e.g. "Current_Pending_Sector 8 (+3 since first seen)".
        key: a stable identifier for the finding ("attr:197", "temp", "smart-failed"), used for
            acknowledgements and de-duplication.
    """

    health: Health
    text: str
    key: str = ""


@dataclass(frozen=True, slots=True)
class Verdict:
    """A health state with the reasons that led to it (worst reason first)."""

    health: Health
    reasons: tuple[Reason, ...] = ()

    @classmethod
    def of(cls, reasons: Iterable[Reason], *, default: Health = Health.OK) -> Verdict:
        """Build a verdict from findings: the worst one decides; `default` when there are none."""
        ordered = tuple(sorted(reasons, key=lambda r: -r.health.rank))
        return cls(ordered[0].health if ordered else default, ordered)

    @property
    def summary(self) -> str:
        """The reasons joined into one line, or the state's name when there are none."""
        if not self.reasons:
            return self.health.name
        return "; ".join(r.text for r in self.reasons)


UNASSESSED = Verdict(Health.UNKNOWN, (Reason(Health.UNKNOWN, "not assessed yet", "unassessed"),))
