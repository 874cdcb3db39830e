"""The demo's state file: `demo.json` in the demo state directory, written whole and atomically
(`nastui.control.statefile`). What it holds is in `nastui.core.demostate`."""

from __future__ import annotations

import contextlib
from pathlib import Path

from nastui.control.statefile import StateError, read_or_empty, write_atomic
from nastui.core.demostate import DEMO_FILE, DemoState, begin, decode, encode


class FileDemoStore:
    """A `nastui.core.demostate.DemoStore` in a directory."""

    def __init__(self, directory: Path) -> None:
        self.path = directory / DEMO_FILE

    def load(self) -> DemoState:
        """The saved state; an empty one when the file is missing or unreadable."""
        try:
            return decode(read_or_empty(self.path))
        except StateError:
            return DemoState()

    def save(self, state: DemoState) -> None:
        """Write the state (small, so always flushed to disk).

        Raises:
            StateError: it cannot be written (the message names the file and the fix).
        """
        write_atomic(self.path, encode(state), 0o600)


def open_demo(store: FileDemoStore, now: float) -> DemoState:
    """The state for a session opening at `now` (a new session is saved when it can be: a
    demo that cannot keep state still runs, on its own anchor)."""
    old = store.load()
    state = begin(old, now)
    if state is not old:
        with contextlib.suppress(StateError):
            store.save(state)
    return state
