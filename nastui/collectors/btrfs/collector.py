"""btrfs filesystems through btrfs-progs (via the runner) and /proc/self/mountinfo.

`btrfs filesystem show --raw` lists every filesystem with its devices; mountinfo says where
each is mounted. That listing scans every block device (libblkid probes them and btrfs-progs
reads each btrfs member's superblock), which would wake a drive in standby at every poll: it
runs on the first poll and again only when the block devices or the btrfs mounts change (a
filesystem that is not mounted changes only then). Polls in between ask for the mounted ones
alone (`--mounted`: the kernel answers through ioctls on the mount point, no device is read)
and keep the unmounted ones from the last scan. For a mounted one, `btrfs device stats`,
`btrfs scrub status --raw` and `-R` (exact counters) and `btrfs replace status -1` run on the
mount point, concurrently. An unmounted filesystem is listed only when devices are missing (a
pool that could not mount); a complete unmounted one (a backup disk on the shelf) is none of
nastui's business.

btrfs-progs needs root for all of this; without it, one `CollectorError` line says so. Output
that is not understood never drops a filesystem: the lines become the pool's `notes` (or, before
any filesystem in `filesystem show`, one `CollectorError` each).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from nastui.collectors import sysfs
from nastui.collectors.btrfs.pool import BtrfsFacts, btrfs_pool, merge_scrub
from nastui.collectors.btrfs.scrub import BtrfsScrub, parse_scrub_status
from nastui.collectors.btrfs.text import (
    BtrfsFs,
    BtrfsReplace,
    parse_device_stats_report,
    parse_filesystem_show_report,
    parse_replace_status,
)
from nastui.collectors.runner import CommandResult, run
from nastui.collectors.sysfs import Mount, read_int
from nastui.model import CollectorError, Pool
from nastui.model.errors import ParseError

SOURCE = "btrfs"
NOT_INSTALLED = "btrfs not found: btrfs pools are not read (install btrfs-progs)"
NEEDS_ROOT = (
    "btrfs-progs needs root to read filesystems, scrubs and device errors: btrfs pools are "
    "not read (run nastui as root)"
)
PROFILES = ("single", "dup", "raid0", "raid1", "raid1c3", "raid1c4", "raid10", "raid5", "raid6")
_DENIED = ("Operation not permitted", "Permission denied")
_NO_OPTION = ("invalid option", "unrecognized option")


def show_argv() -> tuple[str, ...]:
    """Every btrfs filesystem with its devices, sizes in bytes."""
    return ("btrfs", "filesystem", "show", "--raw")


def mounted_show_argv() -> tuple[str, ...]:
    """The mounted filesystems only, from the kernel (no device is read)."""
    return ("btrfs", "filesystem", "show", "--raw", "--mounted")


def scan_key(root: Path, mounts: list[Mount]) -> tuple[str, tuple[str, ...]]:
    """What a full device scan depends on: the block devices (/proc/partitions: names, numbers
    and sizes) and the btrfs mounts. Equal keys, equal unmounted filesystems."""
    partitions = sysfs.read_table(root / "proc/partitions")
    return partitions, tuple(sorted(f"{m.source} {m.mountpoint}" for m in mounts))


def stats_argv(mountpoint: str) -> tuple[str, ...]:
    """Per-device error counters."""
    return ("btrfs", "device", "stats", mountpoint)


def scrub_argv(mountpoint: str, *, raw_counters: bool) -> tuple[str, ...]:
    """Scrub status: exact byte figures (`--raw`), or the kernel's counters (`-R`)."""
    return ("btrfs", "scrub", "status", "-R" if raw_counters else "--raw", mountpoint)


def plain_scrub_argv(mountpoint: str) -> tuple[str, ...]:
    """Scrub status in rounded units, for btrfs-progs before `--raw` (5.9 and older)."""
    return ("btrfs", "scrub", "status", mountpoint)


def replace_argv(mountpoint: str) -> tuple[str, ...]:
    """Replace status, printed once."""
    return ("btrfs", "replace", "status", "-1", mountpoint)


def parse_mountinfo(text: str) -> list[Mount]:
    """The btrfs mounts of a /proc/self/mountinfo (other lines are skipped)."""
    return [m for m in sysfs.parse_mountinfo(text) if m.fs_type == "btrfs"]


def mount_of(fs: BtrfsFs, mounts: list[Mount], root: Path) -> Mount | None:
    """Where `fs` is mounted: a mount whose device is one of its devices (the top-level
    subvolume's mount preferred), matched by path or by the kernel names sysfs lists."""
    paths = {d.path for d in fs.devices if d.path}
    names = {Path(p).name for p in paths}
    sys_devices = root / "sys/fs/btrfs" / fs.uuid / "devices"
    names |= set(sysfs.list_names(sys_devices))
    candidates = [m for m in mounts if m.source in paths or Path(m.source).name in names]
    candidates.sort(key=lambda m: (m.root != "/", len(m.mountpoint)))
    return candidates[0] if candidates else None


def data_profile(root: Path, uuid: str) -> str | None:
    """The data profile from /sys/fs/btrfs/UUID/allocation/data ("raid1+single" mid-convert)."""
    data = root / "sys/fs/btrfs" / uuid / "allocation/data"
    found = [p for p in PROFILES if (data / p).is_dir()]
    return "+".join(found) or None


def _denied(result: CommandResult) -> bool:
    return any(d in result.stderr for d in _DENIED)


def _parse_scrub(result: CommandResult) -> BtrfsScrub | None:
    if not result.ok:
        return None
    return parse_scrub_status(result.stdout)


class BtrfsCollector:
    """Runs btrfs-progs once per poll for every filesystem found."""

    def __init__(self, root: Path = Path("/"), *, timeout: float = 20.0) -> None:
        self._root = root
        self._timeout = timeout
        self._scanned_key: tuple[str, tuple[str, ...]] | None = None
        self._unmounted: list[BtrfsFs] = []

    async def _run(self, argv: tuple[str, ...]) -> CommandResult:
        return await run(argv, timeout=self._timeout)

    async def _facts(self, fs: BtrfsFs, mount: Mount | None, now: float) -> BtrfsFacts:
        sectorsize = read_int(self._root / "sys/fs/btrfs" / fs.uuid / "sectorsize") or 4096
        profile = data_profile(self._root, fs.uuid)
        if mount is None:
            return BtrfsFacts(profile=profile, sectorsize=sectorsize)
        where = mount.mountpoint
        stats, human, raw, replace = await asyncio.gather(
            self._run(stats_argv(where)),
            self._run(scrub_argv(where, raw_counters=False)),
            self._run(scrub_argv(where, raw_counters=True)),
            self._run(replace_argv(where)),
        )
        if not human.ok and any(s in human.stderr for s in _NO_OPTION):
            human = await self._run(plain_scrub_argv(where))  # no --raw before btrfs-progs 5.10
        said, counted = _parse_scrub(human), _parse_scrub(raw)
        ended = said is not None and said.state not in ("never", "running")
        if ended and (counted is None or counted.bytes_done is None):
            # The moment a scrub ends, the running scrub's socket is gone before its status
            # file is complete: `-R` asked then has no counters; asked again it has them.
            counted = _parse_scrub(await self._run(scrub_argv(where, raw_counters=True)))
        replaced: BtrfsReplace | None = None
        notes: list[str] = []
        if replace.ok:
            try:
                replaced = parse_replace_status(replace.stdout, now)
            except ParseError as exc:
                notes.append(str(exc))
        counters, stat_notes = parse_device_stats_report(stats.stdout)
        return BtrfsFacts(
            mountpoint=where,
            degraded_mount="degraded" in mount.options.split(","),
            stats=counters,
            scrub=merge_scrub(said, counted),
            replace=replaced,
            profile=profile,
            sectorsize=sectorsize,
            notes=(*stat_notes, *notes),
        )

    async def _pool(self, fs: BtrfsFs, mounts: list[Mount], now: float) -> Pool | None:
        mount = mount_of(fs, mounts, self._root)
        if mount is None and fs.missing_count == 0:
            return None
        return btrfs_pool(fs, await self._facts(fs, mount, now))

    async def _listing(self, mounts: list[Mount]) -> tuple[CommandResult, list[BtrfsFs], list[str]]:
        """`filesystem show`: the full scan when its key changed (or `--mounted` fails), else
        the mounted filesystems with the unmounted ones kept from the last scan."""
        key = scan_key(self._root, mounts)
        if key == self._scanned_key:
            mounted = await self._run(mounted_show_argv())
            if mounted.ok:
                filesystems, stray = parse_filesystem_show_report(mounted.stdout)
                seen = {fs.uuid for fs in filesystems}
                kept = [fs for fs in self._unmounted if fs.uuid not in seen]
                return mounted, [*filesystems, *kept], stray
        show = await self._run(show_argv())
        filesystems, stray = parse_filesystem_show_report(show.stdout)
        if show.ok:
            self._scanned_key = key
            self._unmounted = [fs for fs in filesystems if mount_of(fs, mounts, self._root) is None]
        return show, filesystems, stray

    async def collect(self, now: float) -> tuple[tuple[Pool, ...], tuple[CollectorError, ...]]:
        """Every btrfs pool worth showing, and one line per failure; never raises."""
        mounts = parse_mountinfo(sysfs.read_table(self._root / "proc/self/mountinfo"))
        show, filesystems, stray = await self._listing(mounts)
        if show.not_found:
            return (), (CollectorError(SOURCE, NOT_INSTALLED),)
        if not show.stdout.strip() and _denied(show):
            return (), (CollectorError(SOURCE, NEEDS_ROOT),)
        if not show.ok and not show.stdout.strip():
            return (), (CollectorError(SOURCE, f"btrfs filesystem show failed: {show.describe()}"),)
        results = await asyncio.gather(*(self._pool(fs, mounts, now) for fs in filesystems))
        pools = tuple(r for r in results if r is not None)
        return pools, tuple(CollectorError(SOURCE, line) for line in stray)
