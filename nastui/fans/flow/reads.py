"""Sensor reads bounded in time: the fan loop never waits on a read longer than a deadline.

A read can block for good: a hung drive behind drivetemp, an I2C chip that stopped
answering, a SMART read of a drive that stopped answering (a FIFO where a file should be no
longer blocks: sysfs reads go through `nastui.safeio`). Done on the control loop's thread, one
such read stops the loop: no fail-safe, and SIGTERM is never handled. So every read of a period (the
session's poll and the daemon's own hwmon re-read) runs on one reader thread with its own
event loop, and the control loop waits for it at most `deadline` seconds. A read that has not
finished by then is a `Stall`: the caller treats every sensor as lost (full speed). No second
read is started while one is stuck, so a hung file costs one thread, not one per period; when
it finally returns, the next period starts afresh.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from nastui.model import HostSnapshot

ReadJob = Callable[[], Awaitable[HostSnapshot]]


@dataclass(frozen=True, slots=True)
class Stall:
    """The period's reads have not finished: for how long, so far."""

    seconds: float

    @property
    def why(self) -> str:
        """One line for the log."""
        return f"sensor reads stalled for {self.seconds:.0f} s (a read that never returns)"


class BoundedReader:
    """Runs each period's reads on its own thread; waits for them at most `deadline` s."""

    def __init__(self, job: ReadJob, deadline: float) -> None:
        """Set up; the thread starts with the first read."""
        self._job = job
        self.deadline = deadline
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pending: concurrent.futures.Future[HostSnapshot] | None = None
        self._started = 0.0

    def _reader_loop(self) -> asyncio.AbstractEventLoop:
        if self._loop is None:
            loop = asyncio.new_event_loop()
            thread = threading.Thread(
                target=loop.run_forever, name="fand-reads", daemon=True
            )  # a daemon thread: a read stuck for good never holds the process at exit
            thread.start()
            self._loop = loop
        return self._loop

    async def read(self, interrupt: asyncio.Event | None = None) -> HostSnapshot | Stall:
        """This period's snapshot, or a `Stall` when the reads are not done by the deadline
        (or when `interrupt` is set first: a stop signal need not wait for the deadline).

        Raises what the reads raised (a bug in a collector ends the daemon, fans given back).
        """
        if self._pending is None:
            self._started = time.monotonic()
            self._pending = asyncio.run_coroutine_threadsafe(self._call(), self._reader_loop())
        pending = self._pending
        left = self.deadline - (time.monotonic() - self._started)
        if not pending.done() and left > 0:
            # asyncio.wait never cancels what it waits for: a slow read may still finish
            waits: set[asyncio.Future[Any]] = {asyncio.wrap_future(pending)}
            stop = asyncio.ensure_future(interrupt.wait()) if interrupt is not None else None
            if stop is not None:
                waits.add(stop)
            await asyncio.wait(waits, timeout=left, return_when=asyncio.FIRST_COMPLETED)
            if stop is not None:
                stop.cancel()
        if not pending.done():
            return Stall(time.monotonic() - self._started)
        self._pending = None
        return pending.result()

    async def _call(self) -> HostSnapshot:
        return await self._job()
