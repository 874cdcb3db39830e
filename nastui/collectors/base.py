"""The seam between the box and everything else: a `Backend` produces `HostSnapshot`s and
offers what the features do to the box beyond reading it.

The real local backend and the simulator both implement it, so the UI, the CLI, the daemons
and the tests never know which one they are reading or acting on: the swap's hands
(`nastui.swap.logic.hands.SwapHands`) and the self-test runner
(`nastui.selftest.logic.tester.Tester`) are the machine's or the simulator's. (The locate LEDs
are the session's `Locator`, made for the same box.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # the features' code is loaded when a feature is used, not for the seam
    from nastui.model import FleetHost, HostSnapshot
    from nastui.selftest.logic.tester import Tester
    from nastui.swap.logic.hands import SwapHands


class Backend(Protocol):
    """A source of snapshots for one host."""

    @property
    def host(self) -> str:
        """The host name snapshots are published under."""
        ...

    async def collect(self) -> HostSnapshot:
        """Collect everything once. Never raises for one failing item: see `HostSnapshot.errors`."""
        ...

    @property
    def swap(self) -> SwapHands:
        """What a drive swap reads and writes on this box."""
        ...

    @property
    def tester(self) -> Tester:
        """What starts SMART self-tests on this box's drives and reads their progress."""
        ...


class FleetSource(Protocol):
    """A source of fleet state: every configured remote host, polled together."""

    async def poll(self) -> tuple[FleetHost, ...]:
        """Poll every host once, in parallel; a dead host becomes a `FleetHost.error`."""
        ...

    def close(self) -> None:
        """Release sessions and threads."""
        ...
