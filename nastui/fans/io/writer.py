"""`FanWriter`: the one path every fan write takes.

A driver never opens a sysfs file or starts ipmitool itself: it asks the writer, which
- records every write as one line (`take()` hands them to the daemon's log),
- in dry-run mode records the write and does nothing else,
- runs commands through the runner it was given (the daemon passes `collectors.runner.run`,
  which this layer may not import), and
- turns every failure into a `DriverError` naming what was written where.

Files are opened with O_NONBLOCK and never created: a sysfs attribute ignores the flag, while a
FIFO where an attribute should be fails at once instead of blocking the loop (a write to a
FIFO nobody reads is ENXIO). Reads go through `safeio.read_bounded`: a regular file of at most
a page, or nothing.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Protocol

from nastui.safeio import read_bounded

SYSFS_PAGE = 4096  # the most a sysfs attribute holds


class DriverError(Exception):
    """A fan write that did not happen (the caller then tries full speed)."""


class CommandOutcome(Protocol):
    """What the runner returns (`nastui.collectors.runner.CommandResult` fits)."""

    @property
    def ok(self) -> bool:
        """Started, finished in time and exited 0."""
        ...

    def describe(self) -> str:
        """One line: what ran and how it ended."""
        ...


RunCommand = Callable[[tuple[str, ...]], Awaitable[CommandOutcome]]


class FanWriter:
    """Writes sysfs values and runs fan commands, recording each; or only records (dry run)."""

    def __init__(self, run: RunCommand | None = None, *, dry_run: bool = False) -> None:
        """Set up.

        Args:
            run: runs an argv and returns its outcome; None: commands fail (hwmon-only rigs).
            dry_run: record the writes without doing them.
        """
        self._run = run
        self.dry_run = dry_run
        self._done: list[str] = []

    def take(self) -> list[str]:
        """The writes recorded since the last call, one line each, oldest first."""
        done, self._done = self._done, []
        return done

    def read(self, path: Path) -> str | None:
        """A sysfs value, stripped; None when it cannot be read, or is not a regular file of
        at most a page (`safeio`: a FIFO or a device in its place is not read). Reads are not
        recorded."""
        try:
            data = read_bounded(path, SYSFS_PAGE)
        except OSError:
            return None
        return data.decode("ascii", errors="replace").strip()

    def write(self, path: Path, value: int) -> None:
        """Write `value` to a sysfs attribute (at once: sysfs writes do not block).

        Raises:
            DriverError: the write failed (missing file, permission, the driver refused it).
        """
        self._done.append(f"{path} = {value}")
        if self.dry_run:
            return
        try:
            fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC)
            try:
                os.write(fd, f"{value}\n".encode("ascii"))
            finally:
                os.close(fd)
        except OSError as exc:
            raise DriverError(f"cannot write {value} to {path}: {exc.strerror or exc}") from None

    async def run(self, argv: Sequence[str]) -> None:
        """Run a fan command.

        Raises:
            DriverError: it could not be started, timed out or exited non-zero.
        """
        args = tuple(argv)
        self._done.append(shlex.join(args))
        if self.dry_run:
            return
        if self._run is None:
            raise DriverError(f"cannot run {args[0]}: no command runner given")
        outcome = await self._run(args)
        if not outcome.ok:
            raise DriverError(outcome.describe())

    def note(self, what: str) -> None:
        """Record a write that goes nowhere (the simulator's fans)."""
        self._done.append(what)
