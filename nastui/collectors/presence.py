"""Whether a pool stack is there to watch, and the filesystem usage of md arrays.

The rule (README, "Absent or broken"): a collector in `auto` mode whose subsystem is absent is
simply off, not UNKNOWN; one whose subsystem is there but cannot be read is UNKNOWN.

- ZFS is unreachable when neither `zpool` nor the zfs kernel module (`/sys/module/zfs`) is
  there, or when `zpool` says, in any release's words, that the module is not loaded or
  cannot be loaded, or that /dev/zfs is missing (`nastui.collectors.zfs.messages`). Then what
  the box had decides (`nastui.collectors.zfs.known`): no ZFS pool ever known, and ZFS is
  absent; pools known, and they are CRITICAL, not readable. A `zpool` that fails otherwise
  while the module is loaded, or a loaded module without `zpool`, is UNKNOWN.
- md is absent when there is no /proc/mdstat or it lists no arrays.
- btrfs is absent when no btrfs filesystem is registered with the kernel (/sys/fs/btrfs/UUID)
  or mounted and `btrfs` is not installed, or `btrfs filesystem show` finds none (or may not
  look, not being root, and the kernel knows none).
In mode `on` the collector always runs and absence is UNKNOWN; in mode `off` it never runs.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Protocol

from nastui.collectors import standin
from nastui.collectors.sysfs import Mount, list_names, read_mounts
from nastui.collectors.zfs.collector import NOT_INSTALLED, ZfsReport
from nastui.collectors.zfs.messages import UNREACHABLE, Meaning
from nastui.model import CollectorError, CollectorMode, CollectorState, Pool

DISABLED = "switched off in [collectors]"


class FsStats(Protocol):
    """What `os.statvfs` returns, as far as usage needs it."""

    @property
    def f_frsize(self) -> int: ...
    @property
    def f_blocks(self) -> int: ...
    @property
    def f_bfree(self) -> int: ...
    @property
    def f_bavail(self) -> int: ...


StatVfs = Callable[[str], FsStats]


def installed(tool: str) -> bool:
    """Whether `tool` can run: on PATH (the runner runs it from there), or as the runner's
    stand-in says (under `--root`: recorded in the capture bundle, else not run)."""
    return standin.installed(tool)


def zfs_module_loaded(root: Path) -> bool:
    """Whether the zfs kernel module is loaded."""
    return (root / "sys/module/zfs").is_dir()


def btrfs_known(root: Path) -> bool:
    """Whether the kernel knows a btrfs filesystem (registered or mounted)."""
    registered = root / "sys/fs/btrfs"
    if any(n != "features" and (registered / n).is_dir() for n in list_names(registered)):
        return True
    mounts = read_mounts(root)
    return any(m.fs_type == "btrfs" for m in mounts)


def state(name: str, mode: CollectorMode, absent: str | None) -> CollectorState:
    """The collector's state: disabled by `mode`, off when `absent` says why (auto), else on."""
    if mode is CollectorMode.OFF:
        return CollectorState(name, "disabled", DISABLED)
    if absent is not None and mode is CollectorMode.AUTO:
        return CollectorState(name, "off", absent)
    return CollectorState(name, "on")


def zfs_unreachable(root: Path, report: ZfsReport | None) -> str | None:
    """Why this box cannot reach ZFS at all (None: it can, or it failed some other way), after
    a poll that gave `report` (None: not run, there being neither `zpool` nor the module).
    Whether that means "no ZFS here" or "pools lost" is decided by the pools the box had."""
    if report is None:
        return f"{standin.absent('zpool', 'no zpool')}, no zfs module"
    if report.said in UNREACHABLE:
        what = "/dev/zfs missing" if report.said is Meaning.NO_DEVICE else "zfs module not loaded"
        return f"{what}, no ZFS pool known (zpool: {report.message})"
    if report.pools or zfs_module_loaded(root):
        return None
    if {e.message for e in report.errors} == {NOT_INSTALLED}:
        return "no zpool, no zfs module"
    return None


def md_absent(
    root: Path, pools: tuple[Pool, ...], errors: tuple[CollectorError, ...]
) -> str | None:
    """Why md counts as absent (None: present): no /proc/mdstat, or no arrays in it."""
    if pools or errors:
        return None
    if not (root / "proc/mdstat").exists():
        return "no /proc/mdstat (md module not loaded)"
    return "no md arrays"


def md_missing(root: Path) -> CollectorError:
    """The UNKNOWN line for md switched on without md."""
    where = "no /proc/mdstat" if not (root / "proc/mdstat").exists() else "no arrays"
    return CollectorError("md", f"md switched on in [collectors] but {where}: load md_mod")


def _mount_of(pool: Pool, mounts: list[Mount]) -> Mount | None:
    names = {f"/dev/{pool.name}", f"/dev/md/{pool.name}"}
    for mount in mounts:
        if mount.source in names:
            return mount
    return None


def with_fs_usage(pools: Iterable[Pool], root: Path, statvfs: StatVfs = os.statvfs) -> list[Pool]:
    """md arrays with the size and use of the filesystem mounted on them (as `df` shows it:
    size is used + available to users); arrays without a mounted filesystem are unchanged."""
    mounts = read_mounts(root)
    out = []
    for pool in pools:
        mount = _mount_of(pool, mounts)
        if mount is None:
            out.append(pool)
            continue
        try:
            stats = statvfs(str(root / mount.mountpoint.lstrip("/")))
        except OSError:
            out.append(pool)
            continue
        used = (stats.f_blocks - stats.f_bfree) * stats.f_frsize
        size = used + stats.f_bavail * stats.f_frsize
        out.append(dataclasses.replace(pool, size_bytes=size, allocated_bytes=used))
    return out
