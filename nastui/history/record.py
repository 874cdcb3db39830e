"""What of a snapshot is worth keeping for months, as rows (pure).

Keeping every 30-second temperature of 24 drives for 90 days would be 6 million rows; a
temperature is kept when it moved by a degree or more, or when the last one kept for that drive
is 10 minutes old, which keeps the curve's shape at about a twentieth of the size. Counters
that predict failure (reallocated, pending, CRC, NVMe media errors, SAS grown defects) are kept
on every change; finished scrubs, resilvers and checks once each, with their duration.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from nastui.core.store import metrics_of
from nastui.model import Drive, HostSnapshot, PoolKind, ScanState

KEEP_EVERY_S = 600.0
KEEP_DELTA = 1.0
# Sample metric names: "temp:PK1334PBHDJ2SR", "scan:tank", "fan:cpu", "sensor:CPU Temp", "used:tank"
TRENDED = ("temp:", "scan:", "fan:", "sensor:", "used:")
WATCHED_ATA = {
    5: "Reallocated_Sector_Ct",
    10: "Spin_Retry_Count",
    187: "Reported_Uncorrect",
    188: "Command_Timeout",
    196: "Reallocated_Event_Count",
    197: "Current_Pending_Sector",
    198: "Offline_Uncorrectable",
    199: "UDMA_CRC_Error_Count",
}


@dataclass(frozen=True, slots=True)
class Sample:
    """One point of a trend line."""

    host: str
    metric: str
    at: float
    value: float


@dataclass(frozen=True, slots=True)
class CounterChange:
    """A failure-predicting counter of a drive that changed (or was seen for the first time)."""

    host: str
    drive: str
    counter: str  # "attr:197", "nvme:media_errors", "scsi:grown_defects"
    name: str
    at: float
    value: int
    previous: int | None


@dataclass(frozen=True, slots=True)
class ScanRecord:
    """A scrub, resilver or check that finished."""

    host: str
    pool: str
    kind: str
    state: str
    started_at: float | None
    ended_at: float | None
    errors: int | None
    bytes_done: int | None


def samples(
    snapshot: HostSnapshot, last_kept: Mapping[str, tuple[float, float]]
) -> Iterator[Sample]:
    """The trend samples of `snapshot` worth keeping, given the last kept (time, value) per
    metric of its host."""
    for metric, at, value in metrics_of(snapshot):
        if not metric.startswith(TRENDED):
            continue
        last = last_kept.get(metric)
        if last is not None:
            last_at, last_value = last
            if at <= last_at:
                continue
            if abs(value - last_value) < KEEP_DELTA and at - last_at < KEEP_EVERY_S:
                continue
        yield Sample(snapshot.host, metric, at, value)


def counters(drive: Drive) -> dict[str, tuple[str, int]]:
    """The failure-predicting counters of a drive: key -> (name, value)."""
    found: dict[str, tuple[str, int]] = {}
    for attr in drive.attributes:
        if attr.id in WATCHED_ATA and attr.raw is not None:
            found[f"attr:{attr.id}"] = (attr.name or WATCHED_ATA[attr.id], attr.raw)
    if drive.nvme is not None:
        for field in ("media_errors", "critical_warning", "percentage_used"):
            value = getattr(drive.nvme, field)
            if value is not None:
                found[f"nvme:{field}"] = (field, value)
    if drive.scsi is not None:
        for field in ("grown_defects", "uncorrected_read_errors", "uncorrected_write_errors"):
            value = getattr(drive.scsi, field)
            if value is not None:
                found[f"scsi:{field}"] = (field, value)
    return found


def counter_changes(
    snapshot: HostSnapshot, known: Mapping[tuple[str, str], int]
) -> Iterator[CounterChange]:
    """Counters whose value differs from the last one kept ((drive, counter) -> value)."""
    for drive in snapshot.drives:
        for key, (name, value) in counters(drive).items():
            previous = known.get((drive.key, key))
            if previous != value:
                yield CounterChange(
                    snapshot.host, drive.key, key, name, snapshot.taken_at, value, previous
                )


def finished_scans(snapshot: HostSnapshot) -> Iterator[ScanRecord]:
    """Every finished or canceled scan the snapshot shows (the database keeps each once)."""
    for pool in snapshot.pools:
        for scan in (pool.scan, pool.last_scrub):
            if scan is None or scan.state not in (ScanState.FINISHED, ScanState.CANCELED):
                continue
            if scan.started_at is None and scan.ended_at is None:
                continue
            yield ScanRecord(
                snapshot.host,
                pool.name,
                scan.kind.value,
                scan.state.value,
                scan.started_at,
                scan.ended_at,
                scan.errors,
                scan.bytes_done,
            )


def zfs_pool_names(snapshot: HostSnapshot) -> frozenset[str]:
    """The ZFS pools `snapshot` shows (kept so that a ZFS that later cannot be read is known to
    have had pools: `nastui.collectors.zfs.known`)."""
    return frozenset(p.name for p in snapshot.pools if p.kind is PoolKind.ZFS)
