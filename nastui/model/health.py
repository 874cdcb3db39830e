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
        value: the count the finding is about (a raw SMART value, a defect count), where there
            is one: what an acknowledgement records.
        acknowledged: an operator acknowledged this value; the finding is shown but counts as OK.
    """

    health: Health
    text: str
    key: str = ""
    value: int | None = None
    acknowledged: bool = False


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


@dataclass(frozen=True, slots=True)
class Acknowledgement:
    """An operator's "I know" for one finding of one drive: its value becomes the new baseline,
    and the finding counts again only when the value grows past it.

    Attributes:
        key: the finding's `Reason.key` ("attr:197", "scsi:defects", "nvme:media").
        value: the value acknowledged; None acknowledges a finding without a count (it then
            stays acknowledged until it clears).
        at: Unix time of the acknowledgement.
        note: what the operator wrote, if anything.
        expires_at: Unix time the acknowledgement lapses; None: it holds until the finding
            grows or clears.
    """

    key: str
    value: int | None
    at: float
    note: str = ""
    expires_at: float | None = None


UNASSESSED = Verdict(Health.UNKNOWN, (Reason(Health.UNKNOWN, "not assessed yet", "unassessed"),))
