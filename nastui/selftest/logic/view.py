"""Self-tests as people read them: one drive's running test and last result (drive detail,
`nastui selftest status`), the schedule's answer (`nastui selftest schedule`), and both as JSON.
"""

from __future__ import annotations

import time
from typing import Any

from nastui.core import units
from nastui.selftest.logic.book import DriveTests
from nastui.selftest.logic.plan import Decision


def when(at: float | None) -> str:
    """A Unix time as "2026-11-25 12:00 UTC" ("never" for None, "now" for 0: never tested)."""
    if at is None:
        return "never"
    if at == 0:
        return "now"
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(at))


def running_line(page: DriveTests | None, now: float) -> str:
    """The test running on the drive, or "no test running"."""
    if page is None or page.running is None:
        return "no test running"
    run = page.running
    left = (
        f"{run.remaining_percent}% left" if run.remaining_percent is not None else "progress unread"
    )
    return f"{run.kind.value} test running, {left} (started {units.age(now - run.started_at)})"


def result_line(page: DriveTests | None) -> str:
    """The last result nastui saw, or "no result yet"."""
    if page is None or page.result is None:
        return "no result seen yet"
    result = page.result
    verdict = {True: "PASSED", False: "FAILED", None: "ended"}[result.passed]
    return f"last {result.kind.value} test {verdict}: {result.status} ({when(result.at)})"


def page_lines(page: DriveTests | None, now: float) -> list[str]:
    """Running test, last result and the last start that did not happen (drive detail)."""
    lines = [running_line(page, now), result_line(page)]
    if page is not None and page.note:
        lines.append(f"last start: {page.note}")
    return lines


def page_json(page: DriveTests | None) -> dict[str, Any]:
    """One drive's book page as JSON (nulls where nothing is known)."""
    run = page.running if page else None
    result = page.result if page else None
    return {
        "running": None
        if run is None
        else {
            "kind": run.kind.value,
            "started_at": run.started_at,
            "remaining_percent": run.remaining_percent,
            "read_at": run.read_at,
        },
        "last_result": None
        if result is None
        else {
            "kind": result.kind.value,
            "status": result.status,
            "passed": result.passed,
            "at": result.at,
        },
        "last_short": page.last_short if page else None,
        "last_long": page.last_long if page else None,
        "note": page.note if page else None,
    }


def decision_line(decision: Decision) -> str:
    """One drive's schedule: what starts now or why not, and the next due times."""
    action = f"start {decision.start.value} now" if decision.start else decision.reason
    return (
        f"{decision.dev:<10} short due {when(decision.short_due):<21} "
        f"long due {when(decision.long_due):<21} {action}"
    )


def decision_json(decision: Decision) -> dict[str, Any]:
    """One drive's schedule as JSON."""
    return {
        "drive": decision.key,
        "dev": decision.dev,
        "start_now": decision.start.value if decision.start else None,
        "reason": decision.reason,
        "short_due": decision.short_due,
        "long_due": decision.long_due,
    }
