"""`BenchHost`: what a benchmark needs from the machine, handed in by the front end.

This package may not import the collectors, so the front end passes an object with these
methods: `nastui.collectors.fio_host.LocalBenchHost` on a real machine (the one subprocess
runner, /proc/diskstats, smartctl), `nastui.bench.replay.ReplayHost` for the demo and tests.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from nastui.model import BenchTarget, UnseenProcess

Pairs = tuple[tuple[str, str], ...]
LineHandler = Callable[[str], None]


class Outcome(Protocol):
    """How a program ended (`nastui.collectors.runner.CommandResult` fits)."""

    @property
    def returncode(self) -> int | None:
        """Exit status; negative for a signal; None when abandoned."""
        ...

    @property
    def stdout(self) -> str:
        """Output not handed to a line handler."""
        ...

    @property
    def ok(self) -> bool:
        """Started, finished in time and exited 0."""
        ...

    def describe(self) -> str:
        """One line: what ran and how it ended."""
        ...


@dataclass(frozen=True, slots=True)
class SimulatedOutcome:
    """How a step ended on a host that runs no programs (the demo's model, a replay)."""

    returncode: int | None
    stdout: str = ""
    stderr: str = ""
    error: str | None = None

    @property
    def ok(self) -> bool:
        """Exited 0."""
        return self.returncode == 0

    def describe(self) -> str:
        """One line."""
        return self.error or f"exited {self.returncode}"


class BenchHost(Protocol):
    """The machine a benchmark runs on."""

    @property
    def python(self) -> str:
        """The interpreter that runs `python -m nastui.bench.wsc`."""
        ...

    async def stream(
        self,
        argv: Sequence[str],
        *,
        timeout: float,
        on_stdout: LineHandler,
        on_stderr: LineHandler,
        stop: asyncio.Event,
    ) -> Outcome:
        """Run a step, handing each output line over as it arrives (`runner.stream`)."""
        ...

    async def run(self, argv: Sequence[str], *, timeout: float) -> Outcome:
        """Run a short command and collect its output (`runner.run`)."""
        ...

    def now(self) -> float:
        """A monotonic clock in seconds: when the disk counters were read."""
        ...

    def disk_bytes(self, dev: str) -> tuple[int, int] | None:
        """Bytes read and written by block device `dev` since boot (/proc/diskstats)."""
        ...

    async def smart(self, target: BenchTarget) -> Pairs | None:
        """SMART counters of the target's device as (name, value) pairs; None without SMART."""
        ...

    async def in_use(self, target: BenchTarget) -> tuple[str, ...]:
        """What uses the target device now (asked again once it is held O_EXCL, with the
        held descriptor's path as `target.path`, so nothing that began using it since the
        first inspection is overwritten)."""
        ...

    async def uses_now(self, target: BenchTarget) -> tuple[str, ...]:
        """The watch's look while a run writes: who else uses the target's footprint now, and
        whether the footprint is still `target.footprint` (no signature probes: quick)."""
        ...

    def unseen(self) -> tuple[UnseenProcess, ...]:
        """The processes the watch's last look (`uses_now`) could not look into: /proc
        refused their descriptors, directories or maps (not a reason to stop the run)."""
        ...
