"""The self-test book: per drive, the last short and long test, the one running and the last
result, as kept in `selftests.json` in the state directory (pure: values and their JSON).

A file that cannot be read as one gives an empty book (the schedule then reads the drives' own
self-test logs); an entry that cannot be read is dropped alone.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Any

from nastui.model import Drive
from nastui.safeio import loads_json
from nastui.selftest.logic.plan import SelftestKind

BOOK_VERSION = 1
HOUR_S = 3600.0


@dataclass(frozen=True, slots=True)
class Run:
    """A test nastui started and has not seen end.

    Attributes:
        kind: short or long.
        started_at: Unix time it was started.
        remaining_percent: how much is left, as last read (None: not read yet).
        read_at: Unix time of that reading.
    """

    kind: SelftestKind
    started_at: float
    remaining_percent: int | None = None
    read_at: float | None = None


@dataclass(frozen=True, slots=True)
class Result:
    """A finished test: its kind, the drive's words, pass/fail (None: aborted, unknown), when."""

    kind: SelftestKind
    status: str
    passed: bool | None
    at: float


@dataclass(frozen=True, slots=True)
class DriveTests:
    """One drive's page of the book."""

    key: str
    dev: str
    last_short: float | None = None
    last_long: float | None = None
    running: Run | None = None
    result: Result | None = None
    note: str | None = None  # the last start that did not happen, and why
    note_at: float | None = None  # when: no new start on the drive for a while after it


Book = dict[str, DriveTests]


def finished(page: DriveTests, result: Result) -> DriveTests:
    """`page` after its running test ended with `result`."""
    page = dataclasses.replace(page, running=None, result=result, note=None)
    if result.kind is SelftestKind.LONG:
        return dataclasses.replace(page, last_long=result.at)
    return dataclasses.replace(page, last_short=result.at)


def log_times(drive: Drive, now: float) -> tuple[float | None, float | None]:
    """When the drive's own log says its last short and long tests ran (from power-on hours:
    approximate, and None where the log has none or cannot be placed)."""
    hours = drive.power_on_hours
    found: dict[SelftestKind, float] = {}
    for test in drive.self_tests:
        if hours is None or test.lifetime_hours is None or not hours - test.lifetime_hours >= 0:
            continue
        kind = SelftestKind.LONG if _is_long(test.kind) else SelftestKind.SHORT
        found.setdefault(kind, now - (hours - test.lifetime_hours) * HOUR_S)
    return found.get(SelftestKind.SHORT), found.get(SelftestKind.LONG)


def _is_long(kind: str) -> bool:
    words = kind.lower()
    return "extended" in words or "long" in words


def _float(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _run(item: object) -> Run | None:
    if not isinstance(item, dict) or item.get("kind") not in ("short", "long"):
        return None
    started = _float(item.get("started_at"))
    if started is None:
        return None
    left = item.get("remaining_percent")
    left = left if isinstance(left, int) and 0 <= left <= 100 else None
    return Run(SelftestKind(item["kind"]), started, left, _float(item.get("read_at")))


def _result(item: object) -> Result | None:
    if not isinstance(item, dict) or item.get("kind") not in ("short", "long"):
        return None
    at = _float(item.get("at"))
    passed = item.get("passed")
    if at is None or not isinstance(passed, bool | None):
        return None
    return Result(SelftestKind(item["kind"]), str(item.get("status", ""))[:200], passed, at)


def _page(key: str, item: Any) -> DriveTests | None:
    if not isinstance(item, dict) or not isinstance(item.get("dev"), str):
        return None
    note = item.get("note")
    return DriveTests(
        key,
        item["dev"][:64],
        _float(item.get("last_short")),
        _float(item.get("last_long")),
        _run(item.get("running")),
        _result(item.get("result")),
        note[:200] if isinstance(note, str) else None,
        _float(item.get("note_at")),
    )


def decode_book(text: str) -> Book:
    """The book in `text` (empty when it is not one)."""
    try:
        data = loads_json(text) if text.strip() else {}
    except ValueError:
        return {}
    drives = data.get("drives") if isinstance(data, dict) else None
    if not isinstance(drives, dict):
        return {}
    pages = ((str(k), _page(str(k), v)) for k, v in drives.items())
    return {k: page for k, page in pages if page is not None}


def encode_book(book: Book) -> str:
    """The book as the JSON kept in the state directory."""
    drives = {}
    for key, page in sorted(book.items()):
        item = dataclasses.asdict(page)
        del item["key"]
        drives[key] = item
    return json.dumps({"version": BOOK_VERSION, "drives": drives}, indent=1) + "\n"
