"""`PoolCollector`: ZFS, mdraid and btrfs pools of the machine, in one report.

Each stack is collected on its own, so a missing `zpool` (or ZFS module) is one error line and
the md arrays and btrfs filesystems still show. On top of the stacks' own records it
- resolves each leaf vdev to the `Drive.key` of the drive behind it (by-id names, /dev/sdX,
  partitions such as sdc1, ata-...-part1 or nvme0n1p3, by-partuuid and by-vdev aliases),
- fills in rate and ETA from consecutive samples (`nastui.core.scanning.tracker.ScanTracker`),
- attaches the scrub schedule found (`nastui.collectors.schedule`),
- records an md check that it saw finish (md keeps no such record itself),
- runs the tools at most every `interval` seconds, however often it is asked,
- leaves out a stack switched off in `[collectors]`, and turns a stack that is absent in
  `auto` mode into an "off" state instead of an error (`nastui.collectors.presence`), except
  a ZFS that had pools (`nastui.collectors.zfs.known`): pools it cannot read are CRITICAL,
- takes an md array's usage from the filesystem mounted on it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from nastui.collectors import presence, standin
from nastui.collectors.btrfs.collector import NEEDS_ROOT, BtrfsCollector
from nastui.collectors.btrfs.collector import NOT_INSTALLED as NO_BTRFS
from nastui.collectors.md.collector import collect_md
from nastui.collectors.schedule import ScrubSchedule, read_schedules, schedule_for
from nastui.collectors.zfs.collector import ZfsCollector, ZfsReport, pools_unreadable
from nastui.collectors.zfs.known import KnownPools
from nastui.core.scanning.tracker import ScanTracker
from nastui.model import (
    CollectorError,
    CollectorMode,
    CollectorsConfig,
    CollectorState,
    Drive,
    Pool,
    PoolKind,
    ScanKind,
    ScanProgress,
    ScanState,
    Vdev,
)

LINK_DIRS = ("by-id", "by-partuuid", "by-vdev", "by-path", "by-uuid", "by-partlabel", "by-label")
# Sample: sdc1  vdb3  xvda2  hdb1
_SD_PART = re.compile(r"^(?P<disk>(?:sd|vd|hd|xvd)[a-z]+)\d+$")
# Sample: nvme0n1p3  mmcblk0p1
_P_PART = re.compile(r"^(?P<disk>(?:nvme\d+n\d+|mmcblk\d+|loop\d+))p\d+$")
# Sample: ata-HGST_HUS724040ALA640_PK2334PBHDJ2SR-part1   wwn-0x5000cca22bc1a6e3-part1
_ID_PART = re.compile(r"^(?P<disk>.+)-part\d+$")
_CHECKS = (ScanKind.CHECK, ScanKind.REPAIR)


@dataclass(frozen=True)
class PoolReport:
    """Every pool found in one poll, one line per thing that failed, and what each stack's
    collector did (on, off: absent, disabled)."""

    pools: tuple[Pool, ...] = ()
    errors: tuple[CollectorError, ...] = ()
    states: tuple[CollectorState, ...] = ()


Stack = tuple[tuple[Pool, ...], tuple[CollectorError, ...], CollectorState]


def whole_disk(name: str) -> str:
    """The disk a partition name belongs to ("sdc1" -> "sdc", "x-part1" -> "x"); else `name`."""
    for pattern in (_ID_PART, _P_PART, _SD_PART):
        match = pattern.match(name)
        if match is not None:
            return match["disk"]
    return name


class LeafResolver:
    """Finds the drive behind a vdev name, through the drives' names and /dev/disk links."""

    def __init__(self, drives: Iterable[Drive], root: Path = Path("/")) -> None:
        self._root = root
        self._keys: dict[str, str] = {}
        for drive in drives:
            for name in (drive.dev, *drive.by_id, drive.by_path, drive.by_vdev):
                if name:
                    self._keys[name] = drive.key

    def _link_target(self, name: str) -> str | None:
        """The kernel name a /dev/disk/by-*/NAME link (or a /dev path) points at."""
        candidates = [self._root / name.lstrip("/")] if name.startswith("/dev/") else []
        candidates += [self._root / "dev/disk" / d / name for d in LINK_DIRS]
        for link in candidates:
            try:
                if link.is_symlink():
                    return Path(link.readlink()).name
            except OSError:
                continue
        return None

    def key(self, name: str) -> str | None:
        """`Drive.key` for a leaf named `name` (or with that path), or None."""
        short = name.removeprefix("/dev/disk/by-id/").removeprefix("/dev/")
        for candidate in (short, whole_disk(short)):
            if candidate in self._keys:
                return self._keys[candidate]
        target = self._link_target(name) or self._link_target(short.split("/")[-1])
        if target is not None:
            return self._keys.get(target) or self._keys.get(whole_disk(target))
        return None

    def tree(self, vdev: Vdev) -> Vdev:
        """`vdev` with `drive` filled in on every leaf that resolves."""
        if vdev.children:
            return dataclasses.replace(vdev, children=tuple(self.tree(c) for c in vdev.children))
        if vdev.kind != "disk" or vdev.drive is not None:
            return vdev
        key = self.key(vdev.name)
        return dataclasses.replace(vdev, drive=key) if key else vdev


def _seen_finishing(last: ScanProgress, now: float) -> ScanProgress:
    """An md check that was running at the last poll and is gone now."""
    complete = last.percent is not None and last.percent >= 99.0
    return dataclasses.replace(
        last,
        state=ScanState.FINISHED if complete else ScanState.CANCELED,
        ended_at=now,
        rate_bytes_per_s=None,
        eta_seconds=None,
    )


class PoolCollector:
    """Every pool under `root`: ZFS and btrfs through their tools, md from /proc and /sys."""

    def __init__(
        self,
        root: Path = Path("/"),
        *,
        interval: float = 10.0,
        timeout: float = 20.0,
        switches: CollectorsConfig | None = None,
        statvfs: presence.StatVfs | None = None,
        known_zfs: KnownPools | None = None,
    ) -> None:
        self._root = root
        self._interval = interval
        self._switches = switches or CollectorsConfig()
        self._statvfs = statvfs
        self._zfs = ZfsCollector(timeout=timeout)
        self._known_zfs = known_zfs or KnownPools(root)
        self._btrfs = BtrfsCollector(root, timeout=timeout)
        self._tracker = ScanTracker()
        self._md_checks: dict[str, ScanProgress] = {}
        self._md_ended: dict[str, ScanProgress] = {}
        self._last: PoolReport | None = None
        self._last_at = 0.0

    async def collect(self, now: float, drives: Iterable[Drive] = ()) -> PoolReport:
        """One poll (or the previous one, if it is less than `interval` old); never raises."""
        if self._last is not None and 0 <= now - self._last_at < self._interval:
            return self._last
        zfs_report, (btrfs, btrfs_errors, btrfs_state) = await asyncio.gather(
            self._zfs_read(now), self._btrfs_stack(now)
        )
        md, md_errors, md_state = self._md_stack()
        others = (p.name for p in (*md, *btrfs))
        zfs, zfs_errors, zfs_state = self._zfs_stack(zfs_report, now, others)
        found = (*zfs, *md, *btrfs)
        schedules = read_schedules(self._root) if found else []  # /etc is read only for pools
        resolver = LeafResolver(drives, self._root)
        pools = tuple(self._finish(pool, schedules, resolver, now) for pool in found)
        self._tracker.forget({f"{p.kind.value}:{p.name}" for p in pools})
        errors = (*zfs_errors, *md_errors, *btrfs_errors)
        self._last = PoolReport(pools, errors, (zfs_state, md_state, btrfs_state))
        self._last_at = now
        return self._last

    async def _zfs_read(self, now: float) -> ZfsReport | None:
        """One poll of `zpool`; None when it is not run: switched off, or in `auto` with
        neither `zpool` nor the zfs module on the box."""
        mode = self._switches.zfs
        if mode is CollectorMode.OFF:
            return None
        if (
            mode is CollectorMode.AUTO
            and not presence.installed("zpool")
            and not presence.zfs_module_loaded(self._root)
        ):
            return None
        report = await self._zfs.collect(now)
        self._known_zfs.saw(p.name for p in report.pools)
        return report

    def _zfs_stack(self, report: ZfsReport | None, now: float, others: Iterable[str]) -> Stack:
        """ZFS's part of the poll. A ZFS this box cannot reach is "off" in `auto` when no ZFS
        pool was ever known here, and CRITICAL, naming the pools, when some were."""
        mode = self._switches.zfs
        if mode is CollectorMode.OFF:
            return (), (), presence.state("zfs", mode, None)
        why = presence.zfs_unreachable(self._root, report)
        if why is None and report is not None:
            return report.pools, report.errors, presence.state("zfs", mode, None)
        known = self._known_zfs.names(now, others)
        if known:
            lost = pools_unreadable(report.said if report else None, known)
            return (), (lost,), presence.state("zfs", mode, None)
        errors = report.errors if report is not None and mode is CollectorMode.ON else ()
        return (), errors, presence.state("zfs", mode, why)

    async def _btrfs_stack(self, now: float) -> Stack:
        mode = self._switches.btrfs
        known = presence.btrfs_known(self._root)
        if mode is CollectorMode.OFF:
            return (), (), presence.state("btrfs", mode, None)
        if mode is CollectorMode.AUTO and not known and not presence.installed("btrfs"):
            why = f"{standin.absent('btrfs', 'no btrfs-progs')}, no btrfs filesystem"
            return (), (), presence.state("btrfs", mode, why)
        pools, errors = await self._btrfs.collect(now)
        absent = None
        if not pools and not known:
            said = {e.message for e in errors}
            if said <= {NO_BTRFS, NEEDS_ROOT}:
                absent = "no btrfs filesystem"
        if mode is CollectorMode.AUTO and absent:
            errors = ()
        return pools, errors, presence.state("btrfs", mode, absent)

    def _md_stack(self) -> Stack:
        mode = self._switches.md
        if mode is CollectorMode.OFF:
            return (), (), presence.state("md", mode, None)
        arrays, errors = collect_md(self._root)
        absent = presence.md_absent(self._root, arrays, errors)
        if absent and mode is CollectorMode.ON:
            errors = (presence.md_missing(self._root),)
        usage = presence.with_fs_usage(arrays, self._root, self._statvfs or os.statvfs)
        return tuple(usage), errors, presence.state("md", mode, absent)

    def _finish(
        self, pool: Pool, schedules: list[ScrubSchedule], resolver: LeafResolver, now: float
    ) -> Pool:
        key = f"{pool.kind.value}:{pool.name}"
        pool = dataclasses.replace(
            pool,
            root=resolver.tree(pool.root),
            scan=self._tracker.update(key, pool.scan, now),
            scrub_schedule=pool.scrub_schedule or schedule_for(pool, schedules),
        )
        return self._md_check(pool, now) if pool.kind is PoolKind.MDRAID else pool

    def _md_check(self, pool: Pool, now: float) -> Pool:
        """Remember a running md check; once it is gone, show it as finished (or stopped)."""
        scan = pool.scan
        if scan is not None and scan.kind in _CHECKS and scan.state is ScanState.RUNNING:
            self._md_checks[pool.name] = scan
            return pool
        last = self._md_checks.pop(pool.name, None)
        if last is not None and scan is None:
            self._md_ended[pool.name] = _seen_finishing(last, now)
        ended = self._md_ended.get(pool.name)
        if ended is None:
            return pool
        finished = ended if ended.state is ScanState.FINISHED else pool.last_scrub
        return dataclasses.replace(pool, scan=scan or ended, last_scrub=finished)
