"""The daemon's self-tests: follow the running ones, record their results, start the due ones.

`follow_and_start` is one cycle's worth: every test in the book is read for progress (a sleeping
drive is not asked), a finished one gets its result (the drive's own log entry when it has one)
and a newly failed one becomes one EVENT notice, sent once; then `nastui.selftest.logic.plan`
says which tests start now and they are started through the tester (`smartctl -n standby -t`, or
the simulator's). The book is kept in the state directory by the caller.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

from nastui.core.clock import due
from nastui.core.drivepolicy import is_virtual
from nastui.model import Alert, Drive, Health, HostSnapshot, Notice, NoticeKind, ScanState, Subject
from nastui.selftest.logic.book import Book, DriveTests, Result, Run, finished, log_times
from nastui.selftest.logic.plan import Candidate, Decision, SelftestKind, plan
from nastui.selftest.logic.policy import SelftestPolicy
from nastui.selftest.logic.tester import Tester
from nastui.selftest.logic.text import Progress, StartAnswer, StartOutcome

GIVE_UP_S = 2 * 86400.0  # a test not seen ending in two days is forgotten (power loss, reset)
RETRY_S = 3600.0  # a start that did not happen (asleep, refused) is tried again an hour later
# A hypervisor's disk answers a self-test with "unsupported scsi opcode" (seen in the lab): the
# schedule leaves it out instead of filling `max_at_once` with starts that cannot happen.
NO_SELFTEST = "virtual disk: no SMART self-tests"
EVENT_KEY = "selftest-failed"
RECORD_KEY = "selftest"


@dataclass
class Outcome:
    """A cycle's result: the new book, notices to send and lines for the log (each line is
    also a record for the history's alert log, not sent)."""

    book: Book
    notices: list[Notice] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)

    def records(self, host: str, now: float) -> list[Notice]:
        """The lines as OK EVENT notices for the history (`nastui alert log`), not sent."""
        return [
            Notice(
                NoticeKind.EVENT,
                Alert(RECORD_KEY, Health.OK, Subject.DRIVE, line.split()[0], line, now, host=host),
                now,
            )
            for line in self.lines
        ]


def vdev_groups(snapshot: HostSnapshot) -> Iterator[tuple[str, ...]]:
    """The drive keys of each top-level vdev (a pool without vdevs is one group)."""
    for pool in snapshot.pools:
        tops = pool.root.children or (pool.root,)
        for top in tops:
            yield tuple(leaf.drive for leaf in top.leaves if leaf.drive)


def scanning(snapshot: HostSnapshot) -> frozenset[str]:
    """Keys of the drives whose pool scrubs, resilvers or rebuilds now."""
    found: set[str] = set()
    for pool in snapshot.pools:
        if pool.scan is not None and pool.scan.state is ScanState.RUNNING:
            found.update(pool.member_drives())
    return frozenset(found)


def candidates(snapshot: HostSnapshot, book: Book, now: float) -> list[Candidate]:
    """Every drive as the schedule sees it: its last tests from the book or its own log."""
    bays = {s.drive: s.bay for s in snapshot.slots if s.drive is not None}
    busy = scanning(snapshot)
    found = []
    for drive in snapshot.drives:
        page = book.get(drive.key)
        log_short, log_long = log_times(drive, now)
        found.append(
            Candidate(
                drive.key,
                drive.dev,
                drive.identity.model,
                bays.get(drive.key),
                drive.power,
                _latest(page.last_short if page else None, log_short),
                _latest(page.last_long if page else None, log_long),
                page is not None and page.running is not None,
                drive.key in busy,
                page.note_at + RETRY_S if page is not None and page.note_at is not None else None,
                NO_SELFTEST if is_virtual(drive.identity) else None,
            )
        )
    return found


def _latest(a: float | None, b: float | None) -> float | None:
    return max((t for t in (a, b) if t is not None), default=None)


def schedule(
    snapshot: HostSnapshot, book: Book, policy: SelftestPolicy, now: float
) -> tuple[Decision, ...]:
    """What the schedule says of every drive now (`[selftest] hours` in local time)."""
    hour = time.localtime(now).tm_hour
    groups = list(vdev_groups(snapshot))
    return plan(candidates(snapshot, book, now), groups, policy, now, hour=hour)


def _result(drive: Drive, run: Run, progress: Progress, now: float) -> Result:
    """How the test ended: the report's own verdict (ATA's status code, the simulator), else
    the drive's newest log entry when SMART was read after the test started (an older read
    would show the previous test), else unknown."""
    if progress.passed is not None:
        return Result(run.kind, progress.line, progress.passed, now)
    newest = drive.self_tests[0] if drive.self_tests else None
    fresh = drive.smart_read_at is not None and drive.smart_read_at > run.started_at
    if newest is not None and newest.passed is not None and fresh:
        return Result(run.kind, newest.status, newest.passed, now)
    return Result(run.kind, progress.line or "ended (no result read)", None, now)


def failed_notice(host: str, drive: Drive, result: Result) -> Notice:
    """The one-off notice of a newly failed self-test."""
    message = f"{result.kind.value} self-test failed on {drive.label}: {result.status}"
    alert = Alert(
        f"{EVENT_KEY}:{drive.key}", Health.CRITICAL, Subject.DRIVE, drive.dev, message, result.at
    )
    return Notice(NoticeKind.EVENT, dataclasses.replace(alert, host=host), result.at)


async def follow(
    snapshot: HostSnapshot, book: Book, tester: Tester, now: float, *, every_s: float = 0.0
) -> Outcome:
    """Read the progress of every running test (not more often than `every_s` each); record
    the ended ones."""
    out = Outcome(dict(book))
    drives = {d.key: d for d in snapshot.drives}
    for key, page in book.items():
        run, drive = page.running, drives.get(key)
        if run is None:
            continue
        if not due(run.read_at, now, every_s):
            continue
        if drive is None or drive.power.spun_down:
            if now - run.started_at > GIVE_UP_S:
                out.book[key] = dataclasses.replace(page, running=None, note="no end seen")
            continue
        progress = await tester.progress(drive, run, now)
        if progress.running is False:
            result = _result(drive, run, progress, now)
            out.book[key] = finished(page, result)
            out.lines.append(f"{drive.dev}: {run.kind.value} self-test ended: {result.status}")
            if result.passed is False:
                out.notices.append(failed_notice(snapshot.host, drive, result))
        elif progress.running:
            left = progress.remaining_percent
            out.book[key] = dataclasses.replace(
                page, running=dataclasses.replace(run, remaining_percent=left, read_at=now)
            )
        elif now - run.started_at > GIVE_UP_S:
            out.book[key] = dataclasses.replace(page, running=None, note="no end seen")
    return out


async def start(
    book: Book, drive: Drive, kind: SelftestKind, tester: Tester, now: float
) -> tuple[Book, StartAnswer, str]:
    """Start `kind` on `drive` and record what happened; returns the book, smartctl's answer
    and one line for the log."""
    answer = await tester.start(drive, kind)
    page = book.get(drive.key) or DriveTests(drive.key, drive.dev)
    page = dataclasses.replace(page, dev=drive.dev)
    if answer.outcome is StartOutcome.STARTED:
        page = dataclasses.replace(page, running=Run(kind, now), note=None, note_at=None)
        line = f"{drive.dev}: {kind.value} self-test started"
    elif answer.outcome is StartOutcome.BUSY:
        page = dataclasses.replace(page, running=Run(kind, now), note=answer.line, note_at=None)
        line = f"{drive.dev}: a self-test already runs ({answer.line})"
    elif answer.outcome is StartOutcome.ASLEEP:
        page = dataclasses.replace(page, note="asleep: tried again later", note_at=now)
        line = f"{drive.dev}: asleep, {kind.value} self-test tried again later"
    else:
        page = dataclasses.replace(page, note=answer.line, note_at=now)
        line = f"{drive.dev}: {kind.value} self-test not started: {answer.line}"
    return {**book, drive.key: page}, answer, line


async def follow_and_start(
    snapshot: HostSnapshot,
    book: Book,
    tester: Tester,
    policy: SelftestPolicy,
    now: float,
    *,
    every_s: float = 0.0,
) -> Outcome:
    """One cycle: follow the running tests (each read at most every `every_s`), then start the
    due ones (see the module doc)."""
    out = await follow(snapshot, book, tester, now, every_s=every_s)
    drives = {d.key: d for d in snapshot.drives}
    for decision in schedule(snapshot, out.book, policy, now):
        if decision.start is None:
            continue
        out.book, _, line = await start(out.book, drives[decision.key], decision.start, tester, now)
        out.lines.append(line)
    return out
