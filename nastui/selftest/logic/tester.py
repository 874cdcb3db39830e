"""`Tester`: what starts a SMART self-test and reads its progress, the seam between the
self-tests and the box.

The real machine's (`nastui.selftest.io.tester.SmartctlTester`: smartctl through the runner) and
the simulator's (`nastui.sim.selftest.SimTester`) each implement it, and a `Backend` offers its
own (`Backend.tester`), so the daemon's cycle and `nastui selftest` never ask which box they
are on.
"""

from __future__ import annotations

from typing import Protocol

from nastui.model import Drive
from nastui.selftest.logic.book import Run
from nastui.selftest.logic.plan import SelftestKind
from nastui.selftest.logic.text import Progress, StartAnswer


class Tester(Protocol):
    """Something that starts self-tests and reads their progress (smartctl, the simulator)."""

    async def start(self, drive: Drive, kind: SelftestKind) -> StartAnswer:
        """Start `kind` on `drive`; never raises for a tool failure."""
        ...

    async def progress(self, drive: Drive, run: Run, now: float) -> Progress:
        """How far the test `run` on `drive` is; unknown when it cannot be read."""
        ...
