"""A btrfs filesystem as a `Pool`: devices as leaves under the data profile, error counters from
`device stats`, the scrub (or a running `btrfs replace`, drawn as a resilver) as the scan (pure).

Size is usable size (see `nastui.model.pool.Pool`): the devices' total over the data profile's
copies. Counters map onto ZFS's columns: READ = read_io_errs, WRITE = write_io_errs + flush_io_errs,
CKSUM = corruption_errs + generation_errs. Scrub repairs are counted in sectors by btrfs;
`repaired_bytes` is corrected sectors x the filesystem's sector size.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from nastui.collectors.btrfs.scrub import BtrfsScrub
from nastui.collectors.btrfs.text import BtrfsDevice, BtrfsFs, BtrfsReplace
from nastui.collectors.pools_parse import percent_of
from nastui.core.scanning.tracker import current_scan
from nastui.model import Pool, PoolKind, PoolState, ScanKind, ScanProgress, ScanState, Vdev

_SCRUB_STATES = {
    "running": ScanState.RUNNING,
    "finished": ScanState.FINISHED,
    "canceled": ScanState.CANCELED,
    "interrupted": ScanState.CANCELED,
}
_REPLACE_STATES = {
    "running": ScanState.RUNNING,
    "finished": ScanState.FINISHED,
    "canceled": ScanState.CANCELED,
    "suspended": ScanState.PAUSED,
}
_NO_REDUNDANCY = frozenset({"single", "raid0"})
_COPIES = {"single": 1, "raid0": 1, "dup": 2, "raid1": 2, "raid10": 2, "raid1c3": 3, "raid1c4": 4}
_PARITY = {"raid5": 1, "raid6": 2}


@dataclass(frozen=True)
class BtrfsFacts:
    """Everything read about one filesystem besides `filesystem show`.

    Attributes:
        mountpoint: where it is mounted; None when it is not.
        degraded_mount: mounted with `-o degraded`.
        stats: device path -> `btrfs device stats` counters.
        scrub: the scrub record (human and raw forms merged).
        replace: the replace record.
        profile: the data profile ("raid1"; "raid1+single" while converting), if known.
        sectorsize: bytes per sector (scrub counts errors in sectors).
        notes: lines of the tools' output that were not understood, one each.
    """

    mountpoint: str | None = None
    degraded_mount: bool = False
    stats: dict[str, dict[str, int]] = field(default_factory=dict)
    scrub: BtrfsScrub | None = None
    replace: BtrfsReplace | None = None
    profile: str | None = None
    sectorsize: int = 4096
    notes: tuple[str, ...] = ()


def merge_scrub(human: BtrfsScrub | None, raw: BtrfsScrub | None) -> BtrfsScrub | None:
    """The `--raw` record (total, percent, rate, time left) with `-R`'s exact counters."""
    if human is None or raw is None:
        return human or raw
    human.counters.update(raw.counters)
    if raw.bytes_done is not None:
        human.bytes_done = raw.bytes_done
    human.notes = [*human.notes, *(n for n in raw.notes if n not in human.notes)]
    return human


def _counters(stats: dict[str, int] | None) -> tuple[int | None, int | None, int | None]:
    if stats is None:
        return None, None, None
    return (
        stats.get("read_io_errs"),
        stats.get("write_io_errs", 0) + stats.get("flush_io_errs", 0),
        stats.get("corruption_errs", 0) + stats.get("generation_errs", 0),
    )


def _leaf(device: BtrfsDevice, facts: BtrfsFacts) -> Vdev:
    if device.missing or device.path is None:
        name = f"devid {device.devid}" if device.devid is not None else "missing device"
        return Vdev(name, "disk", PoolState.UNAVAIL, note="missing")
    read, write, cksum = _counters(facts.stats.get(device.path))
    note = None
    if device.devid == 0:
        replace = facts.replace
        done = f", {replace.percent:.1f}%" if replace and replace.percent is not None else ""
        note = f"(replace target{done})"
    return Vdev(
        device.path.removeprefix("/dev/"), "disk", PoolState.ONLINE, read, write, cksum, note=note
    )


def _leaves(fs: BtrfsFs, facts: BtrfsFacts) -> tuple[Vdev, ...]:
    devices = sorted(fs.devices, key=lambda d: (d.devid == 0, d.devid or 0))
    leaves = [_leaf(d, facts) for d in devices]
    absent = fs.missing_count - sum(1 for d in fs.devices if d.missing)
    named = [n for n in dict.fromkeys(fs.warned_missing) if all(d.devid != n for d in fs.devices)]
    for i in range(max(0, absent)):
        name = f"devid {named[i]}" if i < len(named) else "missing device"
        leaves.append(Vdev(name, "disk", PoolState.UNAVAIL, note="missing"))
    return tuple(leaves)


def _state(fs: BtrfsFs, facts: BtrfsFacts) -> PoolState:
    if fs.missing_count == 0 and not facts.degraded_mount:
        return PoolState.ONLINE
    profiles = set((facts.profile or "").split("+"))
    if facts.mountpoint is not None and profiles & _NO_REDUNDANCY:
        return PoolState.FAULTED
    return PoolState.DEGRADED


def scrub_progress(scrub: BtrfsScrub | None, sectorsize: int) -> ScanProgress | None:
    """The scrub as a `ScanProgress`; None when it never ran."""
    if scrub is None or scrub.state not in _SCRUB_STATES:
        return None
    state = _SCRUB_STATES[scrub.state]
    ended = None
    if state is not ScanState.RUNNING and scrub.started_at is not None:
        ended = scrub.started_at + (scrub.duration_s or 0)
    corrected = scrub.counters.get("corrected_errors")
    return ScanProgress(
        ScanKind.SCRUB,
        state,
        started_at=scrub.started_at,
        ended_at=ended,
        bytes_done=scrub.bytes_done,
        bytes_total=scrub.bytes_total,
        rate_bytes_per_s=scrub.rate if state is ScanState.RUNNING else None,
        eta_seconds=scrub.time_left_s if state is ScanState.RUNNING else None,
        errors=scrub.errors,
        repaired_bytes=corrected * sectorsize if corrected is not None else None,
        reported_percent=scrub.percent,
    )


def replace_progress(replace: BtrfsReplace | None, fs: BtrfsFs) -> ScanProgress | None:
    """A `btrfs replace` as a resilver-like `ScanProgress`; its size is the chunks allocated on
    the target (devid 0), which the replace copies. None when none ever ran."""
    if replace is None or replace.state not in _REPLACE_STATES:
        return None
    state = _REPLACE_STATES[replace.state]
    target = next((d for d in fs.devices if d.devid == 0), None)
    total = target.used if target is not None and state is ScanState.RUNNING else None
    errors = None
    if replace.write_errors is not None and replace.read_errors is not None:
        errors = replace.write_errors + replace.read_errors
    return ScanProgress(
        ScanKind.REPLACE,
        state,
        started_at=replace.started_at,
        ended_at=replace.stopped_at,
        bytes_done=percent_of(total, replace.percent),
        bytes_total=total,
        errors=errors,
        reported_percent=replace.percent,
    )


def usable_size(raw: int, profile: str | None, devices: int) -> int | None:
    """Usable bytes of `raw` device bytes under a data profile; the most conservative profile
    while a conversion leaves two ("raid1+single"); None when the profile is unknown."""
    ratios = []
    for name in (profile or "").split("+"):
        if name in _COPIES:
            ratios.append(1 / _COPIES[name])
        elif name in _PARITY and devices > _PARITY[name]:
            ratios.append((devices - _PARITY[name]) / devices)
    return round(raw * min(ratios)) if ratios else None


def _status_text(fs: BtrfsFs, facts: BtrfsFacts, scrub: ScanProgress | None) -> str | None:
    parts = []
    if fs.missing_count:
        parts.append(
            f"{fs.missing_count} device(s) missing. Action: mount with -o degraded and replace "
            "the missing device with 'btrfs replace start -r'."
        )
    if facts.mountpoint is None:
        parts.append("Not mounted: scrub state and error counters need it mounted.")
    uncorrectable = facts.scrub.counters.get("uncorrectable_errors") if facts.scrub else None
    if uncorrectable and scrub is not None:
        parts.append(
            f"The last scrub found {uncorrectable} uncorrectable error(s): the kernel log "
            "names the damaged files."
        )
    return " ".join(parts) or None


def btrfs_pool(fs: BtrfsFs, facts: BtrfsFacts) -> Pool:
    """One filesystem as a pool."""
    state = _state(fs, facts)
    profile = facts.profile or "devices"
    group = Vdev(profile, profile.split("+")[0], state, children=_leaves(fs, facts))
    scrub = scrub_progress(facts.scrub, facts.sectorsize)
    replace = replace_progress(facts.replace, fs)
    scan = current_scan([s for s in (replace, scrub) if s is not None])
    real = [d for d in fs.devices if not d.missing and d.devid != 0]
    raw = sum(d.size or 0 for d in real)
    return Pool(
        name=fs.label or fs.uuid,
        kind=PoolKind.BTRFS,
        state=state,
        root=Vdev(fs.label or fs.uuid, "root", state, children=(group,)),
        size_bytes=usable_size(raw, facts.profile, len(real) + fs.missing_count) if raw else None,
        allocated_bytes=fs.bytes_used,
        scan=scan,
        last_scrub=scrub if scrub is not None and scrub.state is ScanState.FINISHED else None,
        status_text=_status_text(fs, facts, scrub),
        uuid=fs.uuid,
        mountpoint=facts.mountpoint,
        notes=(*fs.notes, *facts.notes, *(facts.scrub.notes if facts.scrub else ())),
    )
