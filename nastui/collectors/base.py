"""The seam between collectors and everything else: a `Backend` produces `HostSnapshot`s.

The real local backend, the simulator and (later) SNMP fleet hosts all implement it, so the UI,
the CLI, the daemon and the tests never know which one they are reading.
"""

from __future__ import annotations

from typing import Protocol

from nastui.model import FleetHost, HostSnapshot


class Backend(Protocol):
    """A source of snapshots for one host."""

    @property
    def host(self) -> str:
        """The host name snapshots are published under."""
        ...

    async def collect(self) -> HostSnapshot:
        """Collect everything once. Never raises for one failing item: see `HostSnapshot.errors`."""
        ...


class FleetSource(Protocol):
    """A source of fleet state: every configured remote host, polled together."""

    async def poll(self) -> tuple[FleetHost, ...]:
        """Poll every host once, in parallel; a dead host becomes a `FleetHost.error`."""
        ...

    def close(self) -> None:
        """Release sessions and threads."""
        ...
