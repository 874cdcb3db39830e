"""The seam between the box and everything else: a `Backend` produces `HostSnapshot`s and
offers what the features do to the box beyond reading it.

The real local backend and the simulator both implement it, so the UI, the CLI, the daemons
and the tests never know which one they are reading or acting on: the swap's hands
(`nastui.swap.logic.hands.SwapHands`) and the self-test runner
(`nastui.selftest.logic.tester.Tester`) are the machine's or the simulator's. (The locate LEDs
are the session's `Locator`, made for the same box.)

A poll may be given a deadline (`reads_until`): by then it publishes what it has, and the slow
reads it started (SMART) go on, for a later poll on the same event loop to take up.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
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

    def collect_at_once(self) -> HostSnapshot | None:
        """`collect` without an event loop, by a backend whose reads never wait (the
        simulator's); None: this backend's reads need the loop (the machine's commands)."""
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


# The event loop's time by which a poll publishes what it has (None: each collector waits for
# its reads as long as it does by itself). A context variable, so the `Backend` protocol and
# the simulator know nothing of it: only the collectors that wait read it.
_READ_DEADLINE: ContextVar[float | None] = ContextVar("nastui_read_deadline", default=None)


def read_deadline() -> float | None:
    """The deadline `reads_until` set for the poll running now, in event-loop time."""
    return _READ_DEADLINE.get()


@contextlib.contextmanager
def reads_until(deadline: float | None) -> Iterator[None]:
    """Within the block, polls wait for their slow reads no later than `deadline` (the event
    loop's time; None: as long as each collector does by itself)."""
    token = _READ_DEADLINE.set(deadline)
    try:
        yield
    finally:
        _READ_DEADLINE.reset(token)
