"""Inspecting a benchmark target before anything touches it: what it is and what uses it.

`inspect_target` reads, under `root`, for a block device:
- identity from sysfs (`nastui.collectors.sysfs`; a partition's whole disk), size, loop backing;
- what uses it or anything stacked on it (`BenchTarget.in_use`, see
  `nastui.collectors.blockstack`): partitions, holders (md, dm/LVM, bcache), loop devices on it
  or on a file on it (any offset), mounts, swap, other processes with any of these open, LIO and
  NVMe-oF exports; signatures (`blkid -p -o export`, `wipefs --no-act --json`) and labels at
  every offset their formats use (`nastui.collectors.labels`: md 0.90/1.x, LVM at sectors 0-3,
  ZFS's four labels, bcache, LUKS, swap, GPT backup);
`root` is normalized once ("//" is "/"); under a fake tree the real machine is checked as well,
so `--root` can add reasons to refuse a real device but never remove one.
and for a directory: its filesystem, size and free space, and the device under it. Both get the
machine's RAM and the ZFS ARC's maximum, for the page-cache warning. Nothing here writes.
"""

from __future__ import annotations

import dataclasses
import json
import os
import stat
from collections.abc import Awaitable, Callable
from pathlib import Path

from nastui.collectors import runner
from nastui.collectors.blockstack import is_real_root, normal_root, stack_of, uses_of
from nastui.collectors.labels import find_labels
from nastui.collectors.sysfs import (
    TABLE_LIMIT,
    identity_of,
    links_by_target,
    parse_mountinfo,
    read_int,
    read_text,
    resolved,
)
from nastui.model import BenchTarget, TargetKind

RunFn = Callable[..., Awaitable[runner.CommandResult]]
PROBE_TIMEOUT_S = 15.0


class TargetError(Exception):
    """The target cannot be benchmarked at all (missing, a regular file, unreadable)."""


def parse_swaps(text: str) -> list[str]:
    """Swap areas from /proc/swaps.

    # Sample: /dev/sda2                               partition	8388604		0		-2
    """
    return [line.split()[0] for line in text.splitlines()[1:] if line.split()]


def parse_blkid(text: str) -> dict[str, str]:
    """`blkid -p -o export DEV` as a dict.

    # Sample: TYPE=ext4     USAGE=filesystem     PTTYPE=gpt
    """
    pairs = (line.split("=", 1) for line in text.splitlines() if "=" in line)
    return {k.strip(): v.strip() for k, v in pairs}


def parse_wipefs(text: str) -> list[str]:
    """Signature types from `wipefs --no-act --json DEV` (empty when it found none).

    # Sample: {"signatures": [{"device": "loop0", "offset": "0x438", "type": "ext4"}]}
    """
    try:
        data = json.loads(text)
    except ValueError:
        return []
    found = data.get("signatures") if isinstance(data, dict) else None
    if not isinstance(found, list):
        return []
    return [f"{s.get('type')} at {s.get('offset')}" for s in found if isinstance(s, dict)]


def parse_meminfo_total(text: str) -> int | None:
    """MemTotal in bytes from /proc/meminfo.

    # Sample: MemTotal:       24684092 kB
    """
    for line in text.splitlines():
        if line.startswith("MemTotal:"):
            parts = line.split()
            return int(parts[1]) * 1024 if len(parts) >= 2 and parts[1].isdigit() else None
    return None


def parse_arc_max(text: str) -> int | None:
    """The ARC's maximum size (c_max) in bytes from /proc/spl/kstat/zfs/arcstats.

    # Sample: c_max                           4    8317517824
    """
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0] == "c_max" and parts[2].isdigit():
            return int(parts[2])
    return None


def _devno(rdev: int) -> str:
    return f"{os.major(rdev)}:{os.minor(rdev)}"


def _block_name(root: Path, devno: str) -> str | None:
    target = resolved(root / "sys/dev/block" / devno)
    return target.name if target is not None else None


def whole_disk(root: Path, name: str) -> str:
    """A partition's disk ("sdc1" -> "sdc"); a disk itself otherwise."""
    block = root / "sys/class/block" / name
    target = resolved(block) if (block / "partition").exists() else None
    return target.parent.name if target is not None else name


def _read(path: Path) -> str:
    return read_text(path, TABLE_LIMIT) or ""


def read_labels(device: str, size: int | None) -> list[str]:
    """Labels at every offset their formats use (`nastui.collectors.labels`), read-only."""
    try:
        fd = os.open(device, os.O_RDONLY | os.O_CLOEXEC)
    except OSError as exc:
        return [f"labels not checked: {device}: {exc.strerror}"]
    try:
        end = size if size is not None else os.lseek(fd, 0, os.SEEK_END)
        labels = find_labels(lambda at, n: os.pread(fd, n, at), end)
        return [f"{label} (nastui)" for label in labels]
    except OSError as exc:
        return [f"labels not checked: {device}: {exc.strerror}"]
    finally:
        os.close(fd)


async def _signatures(device: str, run: RunFn) -> list[str]:
    found = []
    blkid = await run(("blkid", "-p", "-o", "export", device), timeout=PROBE_TIMEOUT_S)
    info = parse_blkid(blkid.stdout) if blkid.ok else {}
    for key in ("TYPE", "PTTYPE"):
        if key in info:
            found.append(f"{info[key]} signature (blkid)")
    wipefs = await run(("wipefs", "--no-act", "--json", device), timeout=PROBE_TIMEOUT_S)
    if wipefs.ok:
        found += [f"{s} signature (wipefs)" for s in parse_wipefs(wipefs.stdout)]
    elif wipefs.not_found and blkid.not_found:
        found.append("signatures not checked: blkid and wipefs missing (util-linux)")
    return found


def _uses(root: Path, name: str, rdev: int) -> list[str]:
    """What uses the device or anything stacked on it, seen under `root` and, when `root` is a
    fake tree, on the real machine too: `--root` never hides a use of a real device."""
    uses: list[str] = []
    views = [(root, True)] if is_real_root(root) else [(root, False), (Path("/"), True)]
    for where, real in views:
        real_name = name if where == root else _block_name(where, _devno(rdev)) or name
        layers = stack_of(where, real_name, _devno(rdev), real=real)
        uses += uses_of(where, layers, real=real)
    return uses


def _machine(root: Path, target: BenchTarget) -> BenchTarget:
    """`target` with the machine's RAM and ZFS ARC maximum."""
    return dataclasses.replace(
        target,
        ram_bytes=parse_meminfo_total(_read(root / "proc/meminfo")),
        arc_max_bytes=parse_arc_max(_read(root / "proc/spl/kstat/zfs/arcstats")),
    )


def describe_device(path: str, st: os.stat_result, root: Path) -> BenchTarget:
    """A block device: identity, size and every sign of use sysfs and /proc show."""
    name = _block_name(root, _devno(st.st_rdev)) or Path(path).resolve().name
    disk = whole_disk(root, name)
    links = links_by_target(root / "dev/disk/by-id").get(disk, [])
    identity = identity_of(root, disk, links)
    uses = _uses(root, name, st.st_rdev)
    sectors = read_int(root / "sys/class/block" / name / "size")
    uses += read_labels(path, None)
    target = BenchTarget(
        path=path,
        kind=TargetKind.DEVICE,
        dev=name,
        identity=identity,
        size_bytes=None if sectors is None else sectors * 512,
        in_use=tuple(dict.fromkeys(uses)),
        backing=read_text(root / "sys/class/block" / name / "loop/backing_file"),
    )
    return _machine(root, target)


def inspect_directory(path: str, st: os.stat_result, root: Path) -> BenchTarget:
    """A directory: its filesystem, space and the device under it."""
    real = os.path.realpath(path)
    mounts = parse_mountinfo(_read(root / "proc/self/mountinfo"))
    under = [
        m for m in mounts if real == m.mountpoint or real.startswith(m.mountpoint.rstrip("/") + "/")
    ]
    mount = max(under, key=lambda m: len(m.mountpoint), default=None)
    name = _block_name(root, _devno(st.st_dev))
    if name is None and mount is not None and mount.source.startswith("/dev/"):
        name = Path(os.path.realpath(mount.source)).name
    disk = whole_disk(root, name) if name else None
    identity = None
    if disk is not None and (root / "sys/class/block" / disk).exists():
        identity = identity_of(root, disk, links_by_target(root / "dev/disk/by-id").get(disk, []))
    vfs = os.statvfs(path)
    target = BenchTarget(
        path=path,
        kind=TargetKind.DIRECTORY,
        dev=name,
        identity=identity,
        size_bytes=vfs.f_blocks * vfs.f_frsize,
        free_bytes=vfs.f_bavail * vfs.f_frsize,
        fs_type=mount.fs_type if mount else None,
    )
    return _machine(root, target)


def _stat(path: str) -> os.stat_result:
    try:
        return Path(path).stat()
    except OSError as exc:
        raise TargetError(f"{path}: {exc.strerror}") from exc


async def inspect_target(
    path: str, *, root: Path = Path("/"), run: RunFn = runner.run
) -> BenchTarget:
    """What `path` is and what uses it (see the module docstring).

    Raises:
        TargetError: it does not exist, or is neither a block device nor a directory.
    """
    root = normal_root(root)
    st = _stat(path)
    if stat.S_ISBLK(st.st_mode):
        target = describe_device(path, st, root)
        uses = (*target.in_use, *await _signatures(path, run))
        return dataclasses.replace(target, in_use=tuple(dict.fromkeys(uses)))
    if stat.S_ISDIR(st.st_mode):
        return inspect_directory(path, st, root)
    raise TargetError(
        f"{path} is neither a block device nor a directory: name a directory (nastui writes its "
        "test files in a fresh directory inside it) or a whole device such as /dev/disk/by-id/..."
    )
