"""Moving a simulated snapshot from simulator time onto the wall clock (pure).

The simulator computes every scenario at fixed times around `SIM_EPOCH` (deterministic: the
state at sim time t depends only on scenario, seed and t). A demo session on the wall clock
runs it at `wall - offset` and shifts what it reports by `offset`, so every timestamp a front
end, the daemon or the alert log sees is a wall-clock time. `shift_snapshot` moves each field
that holds a point in time (durations, rates and counts stay as they are).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from nastui.model import Drive, HostSnapshot, Pool, ScanProgress

if TYPE_CHECKING:  # the fleet's model, loaded where a fleet is polled
    from nastui.model import FleetHost


def _at(value: float | None, dt: float) -> float | None:
    return None if value is None else value + dt


def shift_scan(scan: ScanProgress | None, dt: float) -> ScanProgress | None:
    """A scan with its start and end moved by `dt` seconds."""
    if scan is None:
        return None
    return dataclasses.replace(
        scan, started_at=_at(scan.started_at, dt), ended_at=_at(scan.ended_at, dt)
    )


def _drive(drive: Drive, dt: float) -> Drive:
    temp = drive.temperature
    moved = dataclasses.replace(temp, measured_at=temp.measured_at + dt) if temp else None
    return dataclasses.replace(drive, temperature=moved, smart_read_at=_at(drive.smart_read_at, dt))


def _pool(pool: Pool, dt: float) -> Pool:
    return dataclasses.replace(
        pool, scan=shift_scan(pool.scan, dt), last_scrub=shift_scan(pool.last_scrub, dt)
    )


def shift_snapshot(snapshot: HostSnapshot, dt: float) -> HostSnapshot:
    """`snapshot` with every point in time moved by `dt` seconds (itself when `dt` is 0):
    when it was taken, drive readings, scans, and the `since` of any alert already in it."""
    if dt == 0:
        return snapshot
    return dataclasses.replace(
        snapshot,
        taken_at=snapshot.taken_at + dt,
        drives=tuple(_drive(d, dt) for d in snapshot.drives),
        pools=tuple(_pool(p, dt) for p in snapshot.pools),
        alerts=tuple(dataclasses.replace(a, since=a.since + dt) for a in snapshot.alerts),
    )


def shift_fleet_host(host: FleetHost, dt: float) -> FleetHost:
    """A fleet host's poll, its snapshot included, moved by `dt` seconds."""
    if dt == 0:
        return host
    return dataclasses.replace(
        host,
        snapshot=shift_snapshot(host.snapshot, dt) if host.snapshot else None,
        polled_at=_at(host.polled_at, dt),
        last_contact=_at(host.last_contact, dt),
    )
