"""The `remove:` and `expand:` sections of `zpool status` text as a `ScanProgress` (pure).

A top-level vdev removal (OpenZFS 0.8+, `print_removal_status` in zpool_main.c) and a raidz
expansion (2.3+) copy data like a scan does, and zpool prints their progress the same way:

- remove: "Evacuation of mirror-1 in progress since DATE", then "X copied out of Y at R/s,
  P% done, 0h12m to go" (or ", (copy is slow, no estimated time)"), and "X memory used for
  removed device mappings"; ended: "Removal of vdev 1 copied 26.5K in 0h0m, completed on DATE"
  or "Removal of mirror-1 canceled on DATE".
- expand: "expansion of raidz2-0 in progress since DATE", then "62.9M / 129M copied at 550K/s,
  48.80% done, 00:02:02 to go" (or "(copy is slow, no estimated time)", or a pause "paused for
  resilver or clear"); ended: "expanded raidz2-0 copied 103T in 4 days 00:32:32, on DATE".

Lines no version prints are noted and skipped; an unknown first line is a `ParseError`.
"""

from __future__ import annotations

import re

from nastui.collectors.pools_parse import (
    decimal_points,
    parse_ctime,
    parse_duration,
    parse_size,
    percent_of,
)
from nastui.model import ScanKind, ScanProgress, ScanState
from nastui.model.errors import ParseError

WHAT = "zpool status remove/expand"

# Sample: Evacuation of /tmp/dsk1 in progress since Sun Feb  4 09:47:45 2018
# Sample: expansion of raidz2-0 in progress since Wed Aug  7 12:18:13 2024
_RUNNING = re.compile(
    r"^(?:Evacuation|[Ee]xpansion) of (?P<vdev>\S+) in progress since (?P<when>.+)$"
)
# Sample: Removal of vdev 1 copied 26.5K in 0h0m, completed on Sun Feb  4 09:47:46 2018
# Sample: expanded raidz2-0 copied 103T in 4 days 00:32:32, on Sat Feb 14 20:04:35 2026
_FINISHED = re.compile(
    r"^(?:Removal of vdev (?P<n>\d+)|expanded (?P<vdev>\S+)) copied (?P<amount>\S+) in "
    r"(?P<took>.+?), (?:completed )?on (?P<when>.+)$"
)
# Sample: Removal of mirror-1 canceled on Sun Feb  4 09:47:46 2018
_CANCELED = re.compile(r"^Removal of (?P<vdev>\S+) canceled on (?P<when>.+)$")
# Sample: 26.5K copied out of 26.5K at 26.5K/s, 100.00% done, 0h0m to go
# Sample: 62.9M / 129M copied at 550K/s, 48.80% done, 00:02:02 to go
# Sample: 89.2T / 88.4T copied at 84.6M/s, 100.93% done, (copy is slow, no estimated time)
_PROGRESS = re.compile(
    r"^(?P<done>\S+) (?:copied out of|/) (?P<total>\S+)(?: copied)? at (?P<rate>\S+)/s, "
    r"(?P<pct>[\d.]+)% done(?:, (?:(?P<eta>[^(,]+?) to go|\(copy is slow, no estimated time\)|"
    r"(?P<paused>paused.*)))?$"
)
# Sample: 1.58M memory used for removed device mappings
_MAPPINGS = re.compile(r"^\S+ memory used for removed device mappings$")


def _progress(started: float, lines: list[str], kind: ScanKind, notes: list[str]) -> ScanProgress:
    scan = ScanProgress(kind, ScanState.RUNNING, started_at=started)
    for line in lines:
        if _MAPPINGS.match(line):
            continue
        match = _PROGRESS.match(line)
        try:
            if match is None:
                raise ParseError(WHAT, "unexpected progress line", line=line)
            total, pct = parse_size(match["total"]), float(match["pct"])
            eta = float(parse_duration(match["eta"])) if match["eta"] else None
            scan = ScanProgress(
                kind,
                ScanState.PAUSED if match["paused"] else ScanState.RUNNING,
                started_at=started,
                bytes_done=percent_of(total, pct),
                bytes_total=total,
                rate_bytes_per_s=float(parse_size(match["rate"])),
                eta_seconds=eta,
                reported_percent=pct,
                reported_eta_seconds=eta,
            )
        except ValueError as exc:
            reason = exc.reason if isinstance(exc, ParseError) else str(exc)
            notes.append(str(ParseError(WHAT, reason, line=line)))
    return scan


def parse_layout(key: str, lines: list[str], notes: list[str]) -> ScanProgress | None:
    """The removal ("remove") or expansion ("expand") a section describes; None when empty.

    Raises:
        ParseError: a first line no OpenZFS version prints (or with an unreadable date).
    """
    if not lines:
        return None
    lines = decimal_points(lines)
    kind = ScanKind.REMOVE if key == "remove" else ScanKind.EXPAND
    first = lines[0]
    try:
        if (m := _RUNNING.match(first)) is not None:
            return _progress(parse_ctime(m["when"]), lines[1:], kind, notes)
        if (m := _FINISHED.match(first)) is not None:
            ended = parse_ctime(m["when"])
            return ScanProgress(
                kind,
                ScanState.FINISHED,
                started_at=ended - parse_duration(m["took"]),
                ended_at=ended,
                bytes_done=parse_size(m["amount"]),
                bytes_total=parse_size(m["amount"]),
            )
        if (m := _CANCELED.match(first)) is not None:
            return ScanProgress(kind, ScanState.CANCELED, ended_at=parse_ctime(m["when"]))
    except ValueError as exc:
        raise ParseError(WHAT, str(exc), line=first) from exc
    raise ParseError(WHAT, f"unknown {key} state", line=first)
