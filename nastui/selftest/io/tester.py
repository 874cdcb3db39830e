"""Starting SMART self-tests and reading their progress on a real machine, through smartctl.

    smartctl -n standby -t short|long /dev/DEV     start (a sleeping drive is left asleep:
                                                   smartctl answers "Device is in STANDBY
                                                   mode" with exit bit 1 and does nothing)
    smartctl -n standby -a /dev/DEV                progress ("Self-test execution status",
                                                   NVMe "Self-test status")

The argument lists are built by pure functions from an allowlisted kernel name; every call goes
through the runner given (`nastui.collectors.runner.run`). The book of tests is kept in
`selftests.json` in the state directory (`load_book`, `save_book`).
"""

from __future__ import annotations

import re
from pathlib import Path

from nastui.control.runproto import Runner
from nastui.control.statefile import read_or_empty, write_atomic
from nastui.model import Drive
from nastui.selftest.logic.book import Book, Run, decode_book, encode_book
from nastui.selftest.logic.plan import SelftestKind
from nastui.selftest.logic.text import (
    UNKNOWN_PROGRESS,
    Progress,
    StartAnswer,
    StartOutcome,
    start_answer,
    text_progress,
)

BOOK_FILE = "selftests.json"
# Sample: sda   sdaa   nvme0n1   vdb   (kernel names of whole disks only: allowlisted)
_DEV = re.compile(r"(?:sd[a-z]{1,4}|nvme\d{1,3}n\d{1,3}|vd[a-z]{1,3}|xvd[a-z]{1,3}|hd[a-z])")


def checked_dev(dev: str) -> str:
    """`dev` when it is a whole disk's kernel name nastui may test.

    Raises:
        ValueError: it is not one (the message names it).
    """
    if not _DEV.fullmatch(dev):
        raise ValueError(f"{dev!r} is not a whole disk's kernel name (sda, nvme0n1)")
    return dev


def start_argv(dev: str, kind: SelftestKind) -> tuple[str, ...]:
    """smartctl's command line starting `kind` on `dev` without waking it."""
    return ("smartctl", "-n", "standby", "-t", kind.value, f"/dev/{checked_dev(dev)}")


def progress_argv(dev: str) -> tuple[str, ...]:
    """smartctl's command line reading `dev`'s self-test status without waking it."""
    return ("smartctl", "-n", "standby", "-a", f"/dev/{checked_dev(dev)}")


class SmartctlTester:
    """Self-tests through smartctl on this machine."""

    def __init__(self, run: Runner, *, timeout: float = 20.0) -> None:
        self._run = run
        self._timeout = timeout

    async def start(self, drive: Drive, kind: SelftestKind) -> StartAnswer:
        """`smartctl -n standby -t KIND /dev/DEV`, and what it did."""
        try:
            argv = start_argv(drive.dev, kind)
        except ValueError as exc:
            return StartAnswer(StartOutcome.FAILED, str(exc))
        result = await self._run(argv, timeout=self._timeout)
        answer = start_answer(result.returncode, result.stdout, result.stderr)
        if answer.outcome is StartOutcome.FAILED and result.returncode is None:
            return StartAnswer(StartOutcome.FAILED, f"smartctl did not run: {answer.line}")
        return answer

    async def progress(self, drive: Drive, run: Run, now: float) -> Progress:
        """`smartctl -n standby -a /dev/DEV`'s self-test status (unknown when asleep)."""
        try:
            argv = progress_argv(drive.dev)
        except ValueError:
            return UNKNOWN_PROGRESS
        result = await self._run(argv, timeout=self._timeout)
        return text_progress(result.stdout)


def load_book(state_dir: Path) -> Book:
    """The book kept in `state_dir` (empty when there is none yet).

    Raises:
        StateError: the file is there and cannot be read.
    """
    return decode_book(read_or_empty(state_dir / BOOK_FILE))


def save_book(state_dir: Path, book: Book) -> None:
    """Keep `book` in `state_dir`.

    Raises:
        StateError: it cannot be written (the message names the file and why).
    """
    write_atomic(state_dir / BOOK_FILE, encode_book(book), 0o644, durable=False)
