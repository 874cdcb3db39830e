"""The `scan:` section of `zpool status` text as a `ScanProgress` (pure).

Every format OpenZFS has printed, from the oldest to 2.3:

- 0.7 and older: "12.3G scanned out of 1.2T at 100M/s, 3h2m to go" / "1.13G resilvered, 9.02% done"
- 0.8 to 2.1: "1.63T scanned at 40.8G/s, 845G issued at 20.6G/s, 9.15T total"
- 2.2 and later: "403M / 405M scanned at 100M/s, 68.4M / 405M issued at 10.0M/s"
- then "0B repaired, 16.91% done, 00:00:04 to go" (or "no estimated completion time")
- finished, canceled and paused scrubs, sequential (dRAID) rebuilds "resilver (draid1:...)",
  and the Solaris-era " scrub: resilver in progress, 0.14% done, 0h0m to go".

Sizes in these lines are rounded to three digits by the tool, so bytes done are taken as the
printed percentage of the printed total, which is finer than the rounded "issued" figure. The
tool's own "to go" is kept as `reported_eta_seconds` (nastui's smoothed estimate replaces
`eta_seconds` later). Given a `notes` list, a line no version prints is noted there and skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from nastui.collectors.pools_parse import (
    decimal_points,
    parse_ctime,
    parse_duration,
    parse_size,
    percent_of,
)
from nastui.model import ScanKind, ScanProgress, ScanState
from nastui.model.errors import ParseError

WHAT = "zpool status scan"

_KIND = r"(?:thorough )?(?P<kind>scrub|resilver)(?: \((?P<vdev>[^)]*)\))?"
# Sample: scrub repaired 0B in 08:54:08 with 0 errors on Sat Apr  9 21:18:09 2022
# Sample: resilvered (draid1:4d:11c:1s-0) 326G in 1 days 00:05:00 with 0 errors on Tue Nov 24 ...
_FINISHED = re.compile(
    r"^(?:thorough )?(?P<kind>scrub repaired|resilvered)(?: \((?P<vdev>[^)]*)\))? "
    r"(?P<amount>\S+) in (?P<took>.+?) with (?P<errors>\d+) errors on (?P<when>.+)$"
)
# Sample: scrub canceled on Tue Aug 30 07:07:22 2022
_CANCELED = re.compile(rf"^{_KIND} canceled on (?P<when>.+)$")
# Sample: resilver in progress since Tue Aug 30 07:14:26 2022
_RUNNING = re.compile(rf"^{_KIND} in progress since (?P<when>.+)$")
# Sample: scrub paused since Mon Jul 26 10:00:00 2021
_PAUSED = re.compile(r"^(?:thorough )?scrub paused since (?P<when>.+)$")
# Sample: scrub started on   Sun Jul 25 16:07:49 2021
_STARTED_ON = re.compile(r"^(?:thorough )?scrub started on\s+(?P<when>.+)$")
# Sample: 1.63T scanned at 40.8G/s, 845G issued at 20.6G/s, 9.15T total
# Sample: 3.51T scanned at 13.4G/s, 1.59T issued 6.07G/s, 6.13T total
# Sample: 1.63T scanned, 845G issued, 9.15T total
_SCANNED_08 = re.compile(
    r"^(?P<scanned>\S+) scanned(?: at \S+/s)?, (?P<issued>\S+) issued(?: (?:at )?(?P<rate>\S+)/s)?"
    r", (?P<total>\S+) total$"
)
# Sample: 403M / 405M scanned at 100M/s, 68.4M / 405M issued at 10.0M/s
# Sample: 403M / 405M scanned, 68.4M / 405M issued
_SCANNED_22 = re.compile(
    r"^(?P<scanned>\S+) / (?P<scan_total>\S+) scanned(?: at \S+/s)?, "
    r"(?P<issued>\S+) / (?P<total>\S+) issued(?: at (?P<rate>\S+)/s)?$"
)
# Sample: 12.3G scanned out of 1.2T at 100M/s, 3h2m to go
# Sample: 12.3G scanned out of 1.2T at 100M/s, (scan is slow, no estimated time)
# Sample: 12.3G scanned out of 1.2T
_SCANNED_OUT_OF = re.compile(
    r"^(?P<issued>\S+) scanned out of (?P<total>\S+)(?: at (?P<rate>\S+)/s)?"
    r"(?:, (?:(?P<eta>\S+) to go|\(scan is slow, no estimated time\)))?$"
)
# Sample: 1.13G resilvered, 9.02% done, 00:06:53 to go
# Sample: 0B repaired, 16.91% done, no estimated completion time
# Sample: 0B repaired, 16.91% done
_DONE = re.compile(
    r"^(?P<amount>\S+) (?:repaired|resilvered), (?P<pct>[\d.]+)% done"
    r"(?:, (?:(?P<eta>.+) to go|no estimated completion time))?$"
)
# Sample: resilver in progress, 0.14% done, 0h0m to go
# Sample: scrub in progress for 0h1m, 2.31% done, 0h45m to go
_OLD_RUNNING = re.compile(
    r"^(?P<kind>scrub|resilver) in progress(?: for \S+)?, (?P<pct>[\d.]+)% done, "
    r"(?P<eta>\S+) to go$"
)
# Sample: scrub completed after 0h0m with 0 errors on Tue Nov 28 02:04:11 2017
# Sample: resilver completed after 0h3m with 0 errors on Tue Nov 28 02:04:11 2017
# Sample: scrub stopped after 0h0m with 0 errors on Tue Nov 28 02:04:11 2017
_OLD_ENDED = re.compile(
    r"^(?P<kind>scrub|resilver) (?P<how>completed|stopped) after (?P<took>\S+) with "
    r"(?P<errors>\d+) errors on (?P<when>.+)$"
)
# Sample: error scrub in progress since Tue Aug 30 07:14:26 2022
# Sample: scrubbed 12 error blocks in 0 days 00:00:01 on Tue Aug 30 07:14:26 2022
# Sample: 50.00% done, issued I/O for 6 error blocks
_ERROR_SCRUB = re.compile(
    r"^(?:error scrub |scrubbed \d+ error blocks |[\d.]+% done, issued I/O for )"
)


@dataclass(frozen=True, slots=True)
class _Numbers:
    done: int | None
    total: int | None
    rate: float | None
    eta: float | None
    amount: int | None
    percent: float | None


def _kind(word: str) -> ScanKind:
    return ScanKind.RESILVER if word.startswith("resilver") else ScanKind.SCRUB


def _ended(line: str) -> ScanProgress | None:
    match = _FINISHED.match(line)
    if match is not None:
        ended = parse_ctime(match["when"])
        return ScanProgress(
            _kind(match["kind"].split()[0]),
            ScanState.FINISHED,
            started_at=ended - parse_duration(match["took"]),
            ended_at=ended,
            errors=int(match["errors"]),
            repaired_bytes=parse_size(match["amount"]),
        )
    match = _OLD_ENDED.match(line)
    if match is not None:
        ended = parse_ctime(match["when"])
        state = ScanState.FINISHED if match["how"] == "completed" else ScanState.CANCELED
        return ScanProgress(
            _kind(match["kind"]),
            state,
            started_at=ended - parse_duration(match["took"]),
            ended_at=ended,
            errors=int(match["errors"]),
        )
    match = _CANCELED.match(line)
    if match is not None:
        return ScanProgress(
            _kind(match["kind"]), ScanState.CANCELED, ended_at=parse_ctime(match["when"])
        )
    return None


def _numbers(lines: list[str], notes: list[str] | None) -> _Numbers:
    """Bytes done/total, the tool's rate and ETA from the lines after "in progress since"."""
    total: int | None = None
    rate: float | None = None
    eta: float | None = None
    pct: float | None = None
    amount: int | None = None
    issued: int | None = None
    for line in lines:
        try:
            if (m := _SCANNED_22.match(line) or _SCANNED_08.match(line)) is not None:
                total, issued = parse_size(m["total"]), parse_size(m["issued"])
                rate = float(parse_size(m["rate"])) if m["rate"] else None
            elif (m := _SCANNED_OUT_OF.match(line)) is not None:
                total, issued = parse_size(m["total"]), parse_size(m["issued"])
                rate = float(parse_size(m["rate"])) if m["rate"] else None
                eta = float(parse_duration(m["eta"])) if m["eta"] else eta
            elif (m := _DONE.match(line)) is not None:
                amount, pct = parse_size(m["amount"]), float(m["pct"])
                eta = float(parse_duration(m["eta"])) if m["eta"] else eta
            else:
                raise ParseError(WHAT, "unexpected progress line", line=line)
        except ValueError as exc:
            if notes is None:
                raise
            reason = exc.reason if isinstance(exc, ParseError) else str(exc)
            notes.append(str(ParseError(WHAT, reason, line=line)))
    done = percent_of(total, pct) if pct is not None else issued
    return _Numbers(done, total, rate, eta, amount, pct)


def _in_progress(first: str, rest: list[str], notes: list[str] | None) -> ScanProgress | None:
    state, kind, started = ScanState.RUNNING, ScanKind.SCRUB, None
    if (m := _RUNNING.match(first)) is not None:
        kind, started = _kind(m["kind"]), parse_ctime(m["when"])
    elif _PAUSED.match(first) is not None:
        state = ScanState.PAUSED
        if rest and (started_on := _STARTED_ON.match(rest[0])) is not None:
            started, rest = parse_ctime(started_on["when"]), rest[1:]
    elif (m := _OLD_RUNNING.match(first)) is not None:
        eta = float(parse_duration(m["eta"]))
        return ScanProgress(
            _kind(m["kind"]),
            ScanState.RUNNING,
            eta_seconds=eta,
            reported_percent=float(m["pct"]),
            reported_eta_seconds=eta,
        )
    else:
        return None
    numbers = _numbers(rest, notes)
    return ScanProgress(
        kind,
        state,
        started_at=started,
        bytes_done=numbers.done,
        bytes_total=numbers.total,
        rate_bytes_per_s=numbers.rate if state is ScanState.RUNNING else None,
        eta_seconds=numbers.eta if state is ScanState.RUNNING else None,
        repaired_bytes=numbers.amount,
        reported_percent=numbers.percent,
        reported_eta_seconds=numbers.eta if state is ScanState.RUNNING else None,
    )


def parse_scan(lines: list[str], notes: list[str] | None = None) -> ScanProgress | None:
    """The scan described by a `scan:` value and its continuation lines (whitespace-stripped).

    Returns None for "none requested" and for error scrubs (`zpool scrub -e`), which read only
    the blocks already known bad and say nothing of the rest of the pool.

    Raises:
        ParseError: a line no OpenZFS version prints (with `notes`: only for the first line,
            the one that says what the scan is; other lines are noted there and skipped).
    """
    lines = decimal_points(lines)
    if not lines or lines[0] == "none requested" or _ERROR_SCRUB.match(lines[0]):
        return None
    try:
        if len(lines) == 1 and (ended := _ended(lines[0])) is not None:
            return ended
        progress = _in_progress(lines[0], lines[1:], notes)
    except ValueError as exc:
        if isinstance(exc, ParseError):
            raise
        raise ParseError(WHAT, str(exc), line=lines[0]) from exc
    if progress is None:
        raise ParseError(WHAT, "unknown scan state", line=lines[0])
    return progress
