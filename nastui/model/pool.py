"""Storage pools of every kind (ZFS, mdraid, btrfs), their vdev trees and scan progress.

One `ScanProgress` covers scrub, resilver, resync, check, repair, recovery, reshape and btrfs
replace, so every front end draws progress the same way whatever the pool type.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum


class PoolKind(StrEnum):
    """The storage stack a pool belongs to."""

    ZFS = "zfs"
    MDRAID = "mdraid"
    BTRFS = "btrfs"


class PoolState(StrEnum):
    """Pool or vdev state, in ZFS vocabulary; mdraid and btrfs states are mapped onto it."""

    ONLINE = "ONLINE"
    DEGRADED = "DEGRADED"
    FAULTED = "FAULTED"
    OFFLINE = "OFFLINE"
    UNAVAIL = "UNAVAIL"
    REMOVED = "REMOVED"
    SUSPENDED = "SUSPENDED"
    INUSE = "INUSE"  # hot spare in use
    AVAIL = "AVAIL"  # hot spare available
    UNKNOWN = "UNKNOWN"


class ScanKind(StrEnum):
    """What kind of whole-pool pass is (or was) running."""

    SCRUB = "scrub"
    RESILVER = "resilver"
    RESYNC = "resync"
    CHECK = "check"
    REPAIR = "repair"
    RECOVERY = "recovery"
    RESHAPE = "reshape"
    REPLACE = "replace"
    REMOVE = "remove"  # ZFS top-level vdev removal (evacuation)
    EXPAND = "expand"  # ZFS raidz expansion


class ScanState(StrEnum):
    """Where a scan is in its life."""

    RUNNING = "running"
    PAUSED = "paused"
    PENDING = "pending"  # mdraid DELAYED/PENDING
    FINISHED = "finished"
    CANCELED = "canceled"


class ScrubAction(StrEnum):
    """What to do to a pool's scrub (or an md array's check)."""

    START = "start"  # start one; on ZFS also resumes a paused scrub
    PAUSE = "pause"  # ZFS only: keep the position, `start` resumes
    STOP = "stop"  # cancel it (ZFS `zpool scrub -s`, btrfs cancel, md back to idle)


@dataclass(frozen=True, slots=True)
class ScanProgress:
    """Progress of a scrub, resilver, resync, check or replace.

    Attributes:
        kind: scrub, resilver, ...
        state: running, paused, finished...
        started_at: Unix time it started, when known.
        ended_at: Unix time it finished or was canceled.
        bytes_done: bytes examined (issued, for ZFS) so far.
        bytes_total: bytes to examine in all.
        rate_bytes_per_s: smoothed rate from consecutive samples (or the tool's own figure).
        eta_seconds: estimated seconds to completion.
        errors: errors found so far.
        repaired_bytes: bytes repaired so far (ZFS "repaired" or "resilvered", btrfs corrected).
        reported_percent: the tool's own percentage, for the rare tool that prints nothing else
            (Solaris-era `zpool status`); `percent` prefers bytes done/total.
        reported_eta_seconds: the time left as the tool itself printed it ("07:58:49 to go"),
            kept as printed while `eta_seconds` is nastui's estimate from the smoothed rate.
    """

    kind: ScanKind
    state: ScanState
    started_at: float | None = None
    ended_at: float | None = None
    bytes_done: int | None = None
    bytes_total: int | None = None
    rate_bytes_per_s: float | None = None
    eta_seconds: float | None = None
    errors: int | None = None
    repaired_bytes: int | None = None
    reported_percent: float | None = None
    reported_eta_seconds: float | None = None

    @property
    def percent(self) -> float | None:
        """Completion in percent, from bytes done and total; 100 when finished."""
        if self.state is ScanState.FINISHED:
            return 100.0
        if self.bytes_done is None or not self.bytes_total:
            return self.reported_percent
        return min(100.0, 100.0 * self.bytes_done / self.bytes_total)

    @property
    def duration(self) -> float | None:
        """Seconds from start to end, for a finished scan."""
        if self.started_at is None or self.ended_at is None:
            return None
        return self.ended_at - self.started_at


@dataclass(frozen=True, slots=True)
class Vdev:
    """A node of the vdev tree: the pool root, a raidz/mirror group, or a leaf device.

    Attributes:
        name: as the tool prints it ("raidz3-0", "ata-HGST_HUS...", "sdc1").
        kind: "root", "raidz3", "mirror", "replacing", "spare", "disk", "log", "cache"...
        state: ONLINE, DEGRADED...
        read_errors, write_errors, checksum_errors: the error counters (None when not given).
        children: child vdevs in order.
        drive: `Drive.key` of the drive behind a leaf, when resolved.
        note: trailing status text, e.g. "(resilvering)" or "was /dev/sdk1".
    """

    name: str
    kind: str
    state: PoolState
    read_errors: int | None = None
    write_errors: int | None = None
    checksum_errors: int | None = None
    children: tuple[Vdev, ...] = ()
    drive: str | None = None
    note: str | None = None

    def walk(self, depth: int = 0) -> Iterator[tuple[int, Vdev]]:
        """This vdev and every descendant, depth-first, with their depth."""
        yield depth, self
        for child in self.children:
            yield from child.walk(depth + 1)

    @property
    def leaves(self) -> tuple[Vdev, ...]:
        """Leaf devices under this vdev."""
        return tuple(v for _, v in self.walk() if not v.children and v.kind == "disk")


@dataclass(frozen=True, slots=True)
class Pool:
    """A pool with its health, space, tree and scans.

    `size_bytes` is the usable size and `allocated_bytes` what is used of it, as `df` would
    count them, for every kind (the simulator reports the same):

    - ZFS: `zfs list` USED + AVAIL of the pool's root dataset, and USED: after raidz parity and
      mirror copies (24 x 4 TB in raidz3 is about 74 TiB), not `zpool list` SIZE/ALLOC, which
      are raw (87 TiB for the same pool) and surprise everyone who compares them with `df`.
    - mdraid: the filesystem mounted on the array, as `df` shows it (used + available, and
      used); unmounted: the array's size (/proc/mdstat blocks), allocated None (md does not
      know what a filesystem on it uses).
    - btrfs: the member devices' sizes divided by the data profile's copies (2 for raid1 and
      raid10, 3 for raid1c3, n/(n-1) for raid5...), and "FS bytes used" from
      `btrfs filesystem show`.

    Attributes:
        name: pool, md array or btrfs label/UUID.
        kind: zfs, mdraid or btrfs.
        state: overall state.
        root: the vdev tree (root node named after the pool).
        size_bytes, allocated_bytes: usable space and its use, when known (see above).
        fragmentation_percent: ZFS free-space fragmentation.
        scan: the scan running now, or the latest one if none runs.
        last_scrub: the last completed scrub/check (for the overdue warning).
        error_files: "errors: Permanent errors..." file list.
        status_text: the tool's status/action text for a degraded pool.
        scrub_schedule: the scrub timer or cron entry found for this pool, if any.
        uuid: the pool GUID (ZFS), array UUID (md) or filesystem UUID (btrfs), when known.
        mountpoint: where a btrfs filesystem is mounted (its scrubs run on the mount point).
        error_count: data errors the tool counts ("errors: 3 data errors"), when known; the
            file list may be shorter or absent.
        layout_change: a ZFS vdev removal or raidz expansion (running, or the last one).
        notes: what the parser met and did not understand, one line each naming the line (the
            rest of the pool is what it did understand).
    """

    name: str
    kind: PoolKind
    state: PoolState
    root: Vdev
    size_bytes: int | None = None
    allocated_bytes: int | None = None
    fragmentation_percent: int | None = None
    scan: ScanProgress | None = None
    last_scrub: ScanProgress | None = None
    error_files: tuple[str, ...] = ()
    status_text: str | None = None
    scrub_schedule: str | None = None
    uuid: str | None = None
    mountpoint: str | None = None
    error_count: int | None = None
    layout_change: ScanProgress | None = None
    notes: tuple[str, ...] = ()

    @property
    def used_percent(self) -> float | None:
        """Allocated share of the size, in percent."""
        if self.size_bytes is None or self.allocated_bytes is None or self.size_bytes == 0:
            return None
        return 100.0 * self.allocated_bytes / self.size_bytes

    def member_drives(self) -> tuple[str, ...]:
        """`Drive.key` of every drive in the tree."""
        return tuple(v.drive for _, v in self.root.walk() if v.drive)
