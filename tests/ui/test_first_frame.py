"""The first frame in a real terminal is painted once, in full, with the first snapshot on it.

A full frame costs most of a second on a 115200-baud serial console: Textual would paint the
screen three times on start-up (empty, laid out, filled) if the interface did not hold its first
paint until the first snapshot is laid out. Here `nastui --demo` runs in an 80x24 pseudo-terminal
and every byte it writes is read: each screen line is written in full (a cursor move to its first
column) once, and what follows only rewrites the cells that changed. Structural, not timed.
"""

from __future__ import annotations

import os
import re
import sys

import pytest

from tests.integration.test_terminal import Pty, pty_env
from tests.waiting import wait_for

ROWS = 24
# A cursor move to the first column of a line: how Textual starts each line of a full paint.
LINE_START = re.compile(rb"\x1b\[(\d+);1H")


def first_frames(argv: list[str], term: str) -> bytes:
    """What `argv` writes in an 80x24 pty until its screen has been still for a second."""
    tty = Pty(argv, pty_env(term))
    try:
        wait_for(lambda: tty.drawn(b"fan-wall-2", quiet=1.0), what="the first frame")
        os.write(tty.fd, b"q")
        wait_for(tty.ended, what="the exit after q", shown=lambda: tty.output[-500:])
    finally:
        tty.close()
    return bytes(tty.output)


def full_lines(output: bytes) -> dict[int, int]:
    """How many times each screen line was started at its first column."""
    counts: dict[int, int] = {}
    for match in LINE_START.finditer(output):
        row = int(match.group(1))
        counts[row] = counts.get(row, 0) + 1
    return counts


@pytest.mark.parametrize(
    ("term", "extra"), [("xterm-256color", []), ("vt100", ["--ascii"]), ("linux", [])]
)
def test_the_screen_is_painted_in_full_once(term: str, extra: list[str]) -> None:
    output = first_frames([sys.executable, "-m", "nastui", "--demo", *extra], term)
    counts = full_lines(output)
    assert set(counts) >= set(range(1, ROWS + 1)), counts  # the whole screen was drawn
    # The key bar never changes: drawn once means the screen was painted in full once.
    assert counts[ROWS] == 1, counts
    # Nor the grid's rows below its title: no line of the bay grid was painted twice.
    assert all(counts[row] == 1 for row in range(3, 15)), counts
