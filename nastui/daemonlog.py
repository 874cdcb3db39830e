"""The daemons' log (the monitoring daemon's, fand's, the self-test duty's): one line
per event on stdout, flushed at once.

Under systemd (JOURNAL_STREAM set) each line starts with its syslog priority, `<4>` for a
warning, which journald turns into the entry's priority and strips; on a terminal the lines
are plain.

`Repeats` keeps an event that comes back every period (a BIOS taking a fan back every few
seconds) to one line for the first, then a count at most once a `window`, and the rest when
the daemon stops: never a line per period, never silent.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TextIO

INFO, WARNING, ERROR = 6, 4, 3


class Log:
    """Writes log lines; remembers them too (for tests and `--once` summaries)."""

    def __init__(self, out: TextIO, env: Mapping[str, str] | None = None) -> None:
        self._out = out
        self._journal = bool((env or {}).get("JOURNAL_STREAM"))
        self.lines: list[str] = []

    def _emit(self, priority: int, message: str) -> None:
        self.lines.append(message)
        prefix = f"<{priority}>" if self._journal else ""
        self._out.write(f"{prefix}{message}\n")
        self._out.flush()

    def info(self, message: str) -> None:
        """Something changed as planned."""
        self._emit(INFO, message)

    def warning(self, message: str) -> None:
        """A fail-safe engaged, a reload refused: someone should look."""
        self._emit(WARNING, message)

    def error(self, message: str) -> None:
        """A fan could not be written."""
        self._emit(ERROR, message)


@dataclass
class Repeats:
    """Runs of one identical event: the first is told in full, the rest counted.

    Attributes:
        window: seconds between two count lines while the run goes on.
        what: the event of the current run; None before the first.
        count: events of the run not yet told.
        since: when the last line about the run was due (monotonic seconds).
    """

    window: float = 60.0
    what: str | None = None
    count: int = 0
    since: float = 0.0

    def seen(self, what: str, now: float) -> tuple[bool, list[tuple[str, int, float]]]:
        """Another `what` at `now`: whether to tell it in full (the first of its run), and the
        counts due ((event, times, over seconds), the previous run's when this one differs)."""
        if what == self.what:
            self.count += 1
            return False, self.due(now)
        counts = self.due(now, final=True)
        self.what, self.count, self.since = what, 0, now
        return True, counts

    def due(self, now: float, *, final: bool = False) -> list[tuple[str, int, float]]:
        """The count to tell now: once a window has passed since the last line, or at once
        when `final` (the daemon stops, another event starts); empty when nothing waits."""
        if self.what is None or not self.count or not (final or now - self.since >= self.window):
            return []
        told = [(self.what, self.count, now - self.since)]
        self.count, self.since = 0, now
        return told
