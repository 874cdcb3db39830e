"""One-line summaries of a snapshot's parts, shared by `nastui status` and the dashboard (pure)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from nastui.core import units
from nastui.core.glyphs import Glyphs
from nastui.core.scanning.words import eta_text
from nastui.model import (
    Drive,
    Health,
    HostSnapshot,
    Pool,
    ScanProgress,
    ScanState,
    Thresholds,
    Vdev,
)


@dataclass(frozen=True, slots=True)
class DriveCounts:
    """How many drives, where and in what state."""

    total: int
    in_bays: int
    standby: int
    by_health: dict[Health, int]


def drive_counts(snapshot: HostSnapshot) -> DriveCounts:
    """Count the snapshot's drives by placement, power and verdict."""
    placed = {s.drive for s in snapshot.slots if s.drive}
    by_health = dict.fromkeys(Health, 0)
    for drive in snapshot.drives:
        by_health[drive.verdict.health] += 1
    return DriveCounts(
        total=len(snapshot.drives),
        in_bays=sum(1 for d in snapshot.drives if d.key in placed),
        standby=sum(1 for d in snapshot.drives if d.power.spun_down),
        by_health=by_health,
    )


def hottest(snapshot: HostSnapshot) -> Drive | None:
    """The hottest drive with a temperature (spun-down drives' last readings count too)."""
    with_temp = [d for d in snapshot.drives if d.temperature is not None]
    return max(
        with_temp, key=lambda d: d.temperature.celsius if d.temperature else 0.0, default=None
    )


STALE_MARK = "~"


def stale_reading(drive: Drive, now: float, limits: Thresholds) -> bool:
    """Whether the drive's temperature is an old one: it is asleep (its last reading), or the
    reading is older than `limits.stale_after_s`."""
    temp = drive.temperature
    return temp is not None and (drive.power.spun_down or temp.age(now) > limits.stale_after_s)


def reading_age(drive: Drive, now: float, limits: Thresholds) -> str | None:
    """What makes a drive's temperature old, in words ("asleep, read 41 min ago", "read 12
    min ago"); None for a fresh one."""
    temp = drive.temperature
    if temp is None or not stale_reading(drive, now, limits):
        return None
    ago = f"read {units.age(temp.age(now))}"
    return f"asleep, {ago}" if drive.power.spun_down else ago


def temp_label(drive: Drive, now: float, limits: Thresholds, *, degree: str = "") -> str:
    """A drive's temperature in a few characters: "36", "36°", "36~" when the reading is stale
    or the drive is asleep (its last reading), "?" when there is none."""
    temp = drive.temperature
    if temp is None:
        return "?"
    stale = stale_reading(drive, now, limits)
    return f"{temp.celsius:.0f}{degree}" + (STALE_MARK if stale else "")


def scan_text(scan: ScanProgress, now: float, tool: str | None = None) -> str:
    """A scan as one line.

    Running: "scrub 41.2%, 1.1 GiB/s, ETA 4h12m, 0 errors" (with the `tool`'s own time left
    when it printed one: "ETA 4h12m (zpool)"); finished: "scrub finished 12 days ago in 9h05m,
    0 errors"; paused, pending and canceled say so.
    """
    kind = scan.kind.value
    errors = f"{scan.errors} errors" if scan.errors is not None else "errors unknown"
    if scan.state in (ScanState.RUNNING, ScanState.PAUSED):
        percent = f"{scan.percent:.1f}%" if scan.percent is not None else "?%"
        paused = " (paused)" if scan.state is ScanState.PAUSED else ""
        eta = eta_text(scan, tool)
        return f"{kind} {percent}{paused}, {units.rate(scan.rate_bytes_per_s)}, {eta}, {errors}"
    if scan.state is ScanState.PENDING:
        return f"{kind} pending"
    ended = units.age(now - scan.ended_at if scan.ended_at is not None else None, unknown="")
    took = f" in {units.duration(scan.duration)}" if scan.duration is not None else ""
    verb = "canceled" if scan.state is ScanState.CANCELED else "finished"
    return f"{kind} {verb} {ended}{took}, {errors}".replace("  ", " ")


def _used(pool: Pool) -> str:
    if pool.used_percent is not None:
        return f"{pool.used_percent:.0f}% of {units.size(pool.size_bytes)}"
    return units.size(pool.size_bytes, unknown="size ?")


def space_text(pool: Pool) -> str:
    """A pool's space: "40% of 73.7 TiB, frag 3%", "1.8 TiB" (md), "size ?"."""
    frag = pool.fragmentation_percent
    return _used(pool) + (f", frag {frag}%" if frag is not None else "")


def pool_text(pool: Pool, now: float) -> str:
    """A pool as one line: name, kind, state, space used, scan."""
    scan = pool.scan or pool.last_scrub
    scan_part = scan_text(scan, now) if scan else "no scrub on record"
    return f"{pool.name} {pool.kind.value} {pool.state.value}, {_used(pool)}, {scan_part}"


def tree_rows(
    vdev: Vdev, glyphs: Glyphs, indent: str = "", last: bool = True, top: bool = True
) -> Iterator[tuple[str, Vdev]]:
    """(prefix, vdev) for a vdev tree drawn with branch glyphs, depth first."""
    yield ("" if top else indent + (glyphs.tree_last if last else glyphs.tree_branch)), vdev
    child_indent = "" if top else indent + ("  " if last else glyphs.tree_pipe)
    for i, child in enumerate(vdev.children):
        yield from tree_rows(child, glyphs, child_indent, i == len(vdev.children) - 1, False)
