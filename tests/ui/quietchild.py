"""A bare Textual app on `QuietLinuxDriver`, for `test_quietinput`: counts the input thread's
`select` calls and writes one line per key it gets ("escape 3": the key, then the count); `z`
suspends and resumes the driver as a Ctrl+Z and `fg` would."""

from __future__ import annotations

import selectors
import sys
from pathlib import Path
from typing import Any

from textual import events
from textual.app import App, ComposeResult
from textual.widgets import Static

from nastui.ui.quietinput import QuietLinuxDriver

CALLS = [0]
_select = selectors.SelectSelector.select


def counted(self: selectors.SelectSelector, timeout: float | None = None) -> Any:
    """`SelectSelector.select`, counted."""
    CALLS[0] += 1
    return _select(self, timeout)


class KeyLog(App[None]):
    """Writes each key with the count of `select` calls so far; `q` quits."""

    def __init__(self, log: Path) -> None:
        super().__init__(driver_class=QuietLinuxDriver)
        self.key_log = log

    def compose(self) -> ComposeResult:
        yield Static("ready")

    def on_key(self, event: events.Key) -> None:
        with self.key_log.open("a") as out:
            out.write(f"{event.key} {CALLS[0]}\n")
        if event.key == "q":
            self.exit()
        if event.key == "z" and self._driver is not None:  # what SIGTSTP, then SIGCONT, do
            self._driver.suspend_application_mode()
            self._driver.resume_application_mode()


if __name__ == "__main__":
    selectors.SelectSelector.select = counted  # type: ignore[method-assign]
    KeyLog(Path(sys.argv[1])).run()
