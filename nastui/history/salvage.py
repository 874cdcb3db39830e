"""A damaged history file: moved aside, a new one started, what matters carried over.

A history file with a corrupt page (a crash of the disk, not of SQLite) answers some queries
and fails others ("database disk image is malformed"), and writing on into it can only spread
the damage. The daemon's decision: keep watching and alerting, move the damaged file aside
(with its rollback journal, so that SQLite never applies a hot journal to the new file) as
`history.sqlite.damaged-YYYYMMDDTHHMMSS`, start a new one, and copy over from the old one what
is still readable of what changes what the daemon says: the acknowledgements and the named
state (the alert book and each host's last snapshot). Trends and the alert log stay in the
moved file, for an operator to inspect or `.recover` with the sqlite3 shell; nothing is deleted.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass
from pathlib import Path

from nastui.history.db import History, HistoryError

JOURNAL = "-journal"


@dataclass(frozen=True, slots=True)
class Salvaged:
    """A damaged file moved aside and its replacement.

    Attributes:
        history: the new, empty history (with what was salvaged).
        aside: where the damaged file is now.
        acks: acknowledgements carried over.
        states: named states carried over (the alert book, the last snapshots).
    """

    history: History
    aside: Path
    acks: int
    states: int

    def describe(self, why: str) -> str:
        """One line: what was wrong, where the file went, what was kept."""
        return (
            f"history {self.history.path}: {why}: moved aside to {self.aside.name} and a new one "
            f"started ({self.acks} acknowledgement(s) and {self.states} saved state(s) carried "
            "over; older trends and the alert log stay in the moved file)"
        )


def move_aside(path: Path, now: float | None = None) -> Path:
    """Rename `path` (and its journal, when there is one) to `<name>.damaged-<time>`.

    Raises:
        OSError: the rename failed.
    """
    stamp = time.strftime("%Y%m%dT%H%M%S", time.localtime(now))
    aside = path.with_name(f"{path.name}.damaged-{stamp}")
    n = 1
    while aside.exists():
        n += 1
        aside = path.with_name(f"{path.name}.damaged-{stamp}-{n}")
    path.rename(aside)
    journal = path.with_name(path.name + JOURNAL)
    with contextlib.suppress(FileNotFoundError):
        journal.rename(aside.with_name(aside.name + JOURNAL))
    return aside


def _carry_over(aside: Path, new: History) -> tuple[int, int]:
    """Copy the acknowledgements and the named state still readable in `aside` into `new`."""
    try:
        old = History.open(aside, readonly=True)
    except HistoryError:
        return 0, 0
    acks = states = 0
    try:
        with contextlib.suppress(HistoryError):
            for ack in old.acks():
                new.add_ack(ack)
                acks += 1
        with contextlib.suppress(HistoryError):
            for name, text in old.states().items():
                new.put_state(name, text)
                states += 1
    finally:
        old.close()
    return acks, states


def start_over(path: Path, now: float | None = None) -> Salvaged:
    """Move the damaged `path` aside, open a new history there and carry over what can be.

    Raises:
        HistoryError: the file cannot be moved, or the new one cannot be made (kind FULL when
            there is no space for it).
    """
    try:
        aside = move_aside(path, now)
    except OSError as exc:
        raise HistoryError(f"history {path}: damaged, and cannot be moved aside: {exc}") from None
    history = History.open(path)
    acks, states = _carry_over(aside, history)
    return Salvaged(history, aside, acks, states)
