"""Which SMART self-test to start now: smartd-style scheduling as a pure function.

`plan(drives, groups, policy, now)` answers, for every drive, whether a short or long self-test
starts this cycle, and if not why not, with the times its next short and long become due. The
rules, in order:

- nothing runs with `[selftest] enabled = false`, or on a drive opted out by model or bay;
- a drive that already runs a test is left to finish it;
- a sleeping drive (standby/sleep) is never woken: it is tried again once it is awake;
- a drive whose pool scrubs or resilvers waits for the end of the scan;
- with `[selftest] hours`, tests start only in those hours of the day (local time; a test that
  started in the window runs to its end);
- no two drives of one vdev test at once (a vdev loses redundancy while a member is busy);
- at most `max_at_once` tests run on the box at one time.

A test becomes *due* at `DUE_SHARE` of its interval after the last one of its kind (a long test
counts as a short one): that leaves the rest of the interval to stagger the drives of a vdev,
so that every drive gets its short within `short_days` and its long within `long_days`. Among
due drives the one that has used most of that slack goes first.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from nastui.model import PowerState
from nastui.selftest.logic.policy import SelftestPolicy

DAY_S = 86400.0
DUE_SHARE = 0.75  # a test is started from 3/4 of its interval on: the last quarter is slack


class SelftestKind(StrEnum):
    """A self-test as `smartctl -t` names it."""

    SHORT = "short"
    LONG = "long"


def in_hours(hour: int, window: tuple[int, int] | None) -> bool:
    """Whether `hour` (0-23) is in `window` (first, end): end excluded, wrapping past midnight
    when end <= first ((22, 6): 22:00 to 05:59); None is every hour."""
    if window is None:
        return True
    first, end = window
    return first <= hour < end if first < end else hour >= first or hour < end


@dataclass(frozen=True, slots=True)
class Candidate:
    """One drive as the schedule sees it.

    Attributes:
        key: `Drive.key`.
        dev: kernel name, for messages.
        model: the drive's model, for opt-outs.
        bay: its bay number, when known.
        power: power state now.
        last_short: Unix time of the last short (or long) test, None when never seen.
        last_long: Unix time of the last long test, None when never seen.
        running: a test is running on it now.
        scanning: its pool scrubs or resilvers now.
        retry_at: a start that did not happen (asleep, refused) is not tried before this time.
        untestable: why the drive has no self-test at all (a hypervisor's virtual disk),
            or None. Such a drive never takes one of `max_at_once`'s places.
    """

    key: str
    dev: str
    model: str | None = None
    bay: int | None = None
    power: PowerState = PowerState.ACTIVE
    last_short: float | None = None
    last_long: float | None = None
    running: bool = False
    scanning: bool = False
    retry_at: float | None = None
    untestable: str | None = None


@dataclass(frozen=True, slots=True)
class Decision:
    """What the schedule says of one drive.

    Attributes:
        key: `Drive.key`.
        dev: kernel name.
        start: the test to start now; None when none starts.
        reason: why (one line: "long due", "asleep (standby): tried when awake"...).
        short_due: Unix time the next short test becomes due (None: never, the test is off).
        long_due: Unix time the next long test becomes due (None: never).
    """

    key: str
    dev: str
    start: SelftestKind | None
    reason: str
    short_due: float | None = None
    long_due: float | None = None


def _due(last: float | None, days: float) -> float | None:
    if days <= 0:
        return None
    return 0.0 if last is None else last + DUE_SHARE * days * DAY_S


def _urgency(last: float | None, days: float, now: float) -> float:
    """How much of the slack after the due time is used (>= 0 once due; 1: the deadline)."""
    if last is None:
        return 1e9
    slack = (1 - DUE_SHARE) * days * DAY_S
    return (now - last - DUE_SHARE * days * DAY_S) / slack


def _wanted(c: Candidate, policy: SelftestPolicy, now: float) -> tuple[SelftestKind, float] | None:
    """The test `c` is due for and its urgency; the long one when both are due."""
    last_short = max((t for t in (c.last_short, c.last_long) if t is not None), default=None)
    found: list[tuple[SelftestKind, float]] = []
    long_due = _due(c.last_long, policy.long_days)
    if long_due is not None and now >= long_due:
        found.append((SelftestKind.LONG, _urgency(c.last_long, policy.long_days, now)))
    short_due = _due(last_short, policy.short_days)
    if short_due is not None and now >= short_due and not found:
        found.append((SelftestKind.SHORT, _urgency(last_short, policy.short_days, now)))
    return found[0] if found else None


def _opted_out(c: Candidate, policy: SelftestPolicy) -> str | None:
    if c.bay is not None and c.bay in policy.skip_bays:
        return f"bay {c.bay} opted out in [selftest] skip_bays"
    for glob in policy.skip_models:
        if c.model is not None and fnmatch.fnmatchcase(c.model, glob):
            return f"model {c.model} opted out in [selftest] skip_models ({glob!r})"
    return None


def _held(c: Candidate, policy: SelftestPolicy, now: float, hour: int | None) -> str | None:
    """Why `c` cannot start a test now, whatever is due."""
    if not policy.enabled:
        return "self-tests are off ([selftest] enabled = false)"
    if c.untestable is not None:
        return c.untestable
    out = _opted_out(c, policy)
    if out is not None:
        return out
    if c.running:
        return "a self-test is running"
    if hour is not None and policy.hours is not None and not in_hours(hour, policy.hours):
        first, end = policy.hours
        return f"outside [selftest] hours {first:02d}-{end:02d}: started from {first:02d}:00"
    if c.power.spun_down:
        return f"asleep ({c.power.value}): never woken for a test, tried again when awake"
    if c.scanning:
        return "its pool scrubs or resilvers: tested after the scan"
    if c.retry_at is not None and now < c.retry_at:
        return f"the last start did not happen: tried again in {(c.retry_at - now) / 60:.0f} min"
    return None


def _group_of(groups: Iterable[Iterable[str]]) -> dict[str, int]:
    found: dict[str, int] = {}
    for number, group in enumerate(groups):
        for key in group:
            found.setdefault(key, number)
    return found


def plan(
    drives: Sequence[Candidate],
    groups: Iterable[Iterable[str]],
    policy: SelftestPolicy,
    now: float,
    *,
    hour: int | None = None,
) -> tuple[Decision, ...]:
    """Decide every drive's test for this cycle (see the module docstring for the rules).

    Args:
        drives: the drives, with their last tests and what they do now.
        groups: the drive keys of each vdev (a drive in none is a group of its own).
        policy: the `[selftest]` section.
        now: current Unix time.
        hour: the local hour of `now` (0-23), for `policy.hours`; None: not checked.
    """
    group = _group_of(groups)
    slot = {c.key: group.get(c.key, -1 - i) for i, c in enumerate(drives)}
    busy = {slot[c.key] for c in drives if c.running}
    running = sum(1 for c in drives if c.running)
    wanted = {c.key: _wanted(c, policy, now) for c in drives}
    order = sorted(drives, key=lambda c: -(w[1] if (w := wanted[c.key]) else -1e18))
    chosen: dict[str, str | SelftestKind] = {}
    for c in order:
        held = _held(c, policy, now, hour)
        want = wanted[c.key]
        if held is not None:
            chosen[c.key] = held
        elif want is None:
            chosen[c.key] = "not due"
        elif slot[c.key] in busy:
            chosen[c.key] = f"{want[0].value} due: waits for another drive of its vdev"
        elif running >= policy.max_at_once:
            chosen[c.key] = f"{want[0].value} due: {policy.max_at_once} tests already run"
        else:
            chosen[c.key] = want[0]
            busy.add(slot[c.key])
            running += 1
    return tuple(_decision(c, chosen[c.key], policy) for c in drives)


def _decision(c: Candidate, chose: str | SelftestKind, policy: SelftestPolicy) -> Decision:
    last_short = max((t for t in (c.last_short, c.last_long) if t is not None), default=None)
    short_due = _due(last_short, policy.short_days)
    long_due = _due(c.last_long, policy.long_days)
    if isinstance(chose, SelftestKind):
        return Decision(c.key, c.dev, chose, f"{chose.value} due", short_due, long_due)
    return Decision(c.key, c.dev, None, chose, short_due, long_due)
