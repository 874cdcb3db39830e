"""The daemon's log: one line per event on stdout, flushed at once.

Under systemd (JOURNAL_STREAM set) each line starts with its syslog priority, `<4>` for a
warning, which journald turns into the entry's priority and strips; on a terminal the lines
are plain.
"""

from __future__ import annotations

from collections.abc import Mapping
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
