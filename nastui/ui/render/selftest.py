"""The drive detail's self-test block: the test nastui runs on the drive (progress) and the last
result it saw, above the drive's own self-test log."""

from __future__ import annotations

from rich.text import Text

from nastui.selftest.logic.book import DriveTests
from nastui.selftest.logic.view import page_lines


def selftest_text(page: DriveTests | None, log: Text, now: float) -> Text:
    """`log` (the drive's self-test log) under nastui's lines for `page`; `log` alone when
    nastui never started a test on the drive."""
    if page is None:
        return log
    text = Text()
    for line in page_lines(page, now):
        failed = page.result is not None and page.result.passed is False and "FAILED" in line
        text.append(line + "\n", style="bold red" if failed else "")
    text.append_text(log)
    return text
