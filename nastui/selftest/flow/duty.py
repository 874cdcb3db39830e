"""The daemon's self-test duty: once per cycle, load the book from the state directory, follow
and start tests (`nastui.selftest.flow.cycle.follow_and_start`), keep the book, log what happened.

A book that cannot be read or written is one log line (once while it lasts), never a failed
cycle; without a state directory nothing is started (the results could not be followed), and
under `--root` nothing ever is (the tree's drives are not this machine's: one log line).
"""

from __future__ import annotations

from pathlib import Path

from nastui.collectors.confine import is_other_box
from nastui.control.statefile import StateError
from nastui.daemonlog import Log
from nastui.model import HostSnapshot
from nastui.selftest.flow.cycle import Outcome, follow_and_start
from nastui.selftest.io.tester import load_book, save_book
from nastui.selftest.logic.tester import Tester
from nastui.session import Session


class SelftestDuty:
    """Self-tests for the monitor (`nastui.daemon.monitor.Monitor`)."""

    def __init__(self, session: Session, log: Log, tester: Tester | None = None) -> None:
        self.session = session
        self.log = log
        self.tester = tester or session.backend.tester
        self._problem: str | None = None

    async def cycle(self, snapshot: HostSnapshot, now: float) -> Outcome | None:
        """One cycle's tests; None when there is nothing to do or the book is out of reach."""
        policy = self.session.config.selftest
        state_dir = self.session.state_dir
        if state_dir is None or not snapshot.drives:
            return None
        root = getattr(self.session.backend, "root", None)
        if isinstance(root, Path) and is_other_box(root):
            self._trouble(f"not started under --root {root}: its drives are not this machine's")
            return None
        try:
            book = load_book(state_dir)
        except StateError as exc:
            self._trouble(str(exc))
            return None
        if not policy.enabled and not any(p.running for p in book.values()):
            return None
        every = self.session.config.poll.smart_s  # progress read as often as SMART data
        out = await follow_and_start(snapshot, book, self.tester, policy, now, every_s=every)
        if out.book != book:
            try:
                save_book(state_dir, out.book)
            except StateError as exc:
                self._trouble(f"self-tests not kept: {exc}")
                return None
        self._problem = None
        for line in out.lines:
            self.log.info(f"selftest: {line}")
        return out

    def _trouble(self, text: str) -> None:
        if text != self._problem:
            self.log.error(f"selftest: {text}")
            self._problem = text
