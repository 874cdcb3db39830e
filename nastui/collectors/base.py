"""The seam between collectors and everything else: a `Backend` produces `HostSnapshot`s.

The real local backend, the simulator and (later) SNMP fleet hosts all implement it, so the UI,
the CLI, the daemon and the tests never know which one they are reading.
"""

from __future__ import annotations

from typing import Protocol

from nastui.model import HostSnapshot


class Backend(Protocol):
    """A source of snapshots for one host."""

    @property
    def host(self) -> str:
        """The host name snapshots are published under."""
        ...

    async def collect(self) -> HostSnapshot:
        """Collect everything once. Never raises for one failing item: see `HostSnapshot.errors`."""
        ...
