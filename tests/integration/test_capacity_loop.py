"""Capacity from real filesystems on loop devices, as `nastui status` reads a NAS:

- a btrfs filled past 80 %: the pool collector's usage, and the capacity alert it raises;
- an ext4 mounted on a block device: its usage as md arrays get it (the filesystem mounted on
  the array, through /proc/self/mountinfo and statvfs). No md module here: a loop device
  stands in for /dev/mdN, through the same code.

Loop devices and mounts are removed in the fixtures' teardown whatever happens. Needs root,
btrfs-progs, e2fsprogs and loop (CI runs as root).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from nastui.collectors.pools import PoolCollector
from nastui.collectors.presence import with_fs_usage
from nastui.core.assess import assess
from nastui.model import Health, HostSnapshot, Pool, PoolKind, PoolState, Thresholds, Vdev
from tests.conftest import STRICT, require_tool

pytestmark = pytest.mark.integration

MIB = 2**20


def sh(*argv: str) -> str:
    return subprocess.run(argv, check=True, capture_output=True, text=True, timeout=120).stdout


def quiet(*argv: str) -> None:
    subprocess.run(argv, check=False, capture_output=True, timeout=120)


def _needs(*tools: tuple[str, str]) -> None:
    for tool, package in (*tools, ("losetup", "util-linux")):
        require_tool(tool, package)
    if os.geteuid() != 0:
        (pytest.fail if STRICT else pytest.skip)("filesystems on loop devices need root")


def fill(path: Path, mib: int) -> None:
    with path.open("wb") as f:
        for _ in range(mib):
            f.write(os.urandom(MIB))
    os.sync()


def _mounted_loop(tmp_path: Path, size_mib: int, mkfs: list[str]) -> Iterator[tuple[str, Path]]:
    image, mnt = tmp_path / "disk.img", tmp_path / "mnt"
    mnt.mkdir()
    with image.open("wb") as f:
        f.truncate(size_mib * MIB)
    loop, mounted = "", False
    try:
        loop = sh("losetup", "-f", "--show", str(image)).strip()
        sh(*mkfs, loop)
        sh("mount", loop, str(mnt))
        mounted = True
        yield loop, mnt
    finally:
        if mounted:
            for _ in range(20):
                if subprocess.run(["umount", str(mnt)], check=False).returncode == 0:
                    break
                time.sleep(0.5)
            else:
                quiet("umount", "-l", str(mnt))
        if loop:
            quiet("losetup", "-d", loop)


@pytest.fixture
def btrfs_fs(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    _needs(("btrfs", "btrfs-progs"), ("mkfs.btrfs", "btrfs-progs"))
    label = f"nastui-cap-{os.getpid()}"
    mkfs = ["mkfs.btrfs", "-f", "-q", "-L", label, "-d", "single", "-m", "single"]
    yield from _mounted_loop(tmp_path, 512, mkfs)


@pytest.fixture
def ext4_fs(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    _needs(("mkfs.ext4", "e2fsprogs"))
    yield from _mounted_loop(tmp_path, 256, ["mkfs.ext4", "-q", "-F", "-m", "0"])


def test_a_filling_btrfs_raises_a_capacity_alert(btrfs_fs: tuple[str, Path]) -> None:
    _, mnt = btrfs_fs
    fill(mnt / "data", 440)
    report = asyncio.run(PoolCollector(Path("/"), interval=0.0).collect(time.time()))
    (pool,) = [p for p in report.pools if p.mountpoint == str(mnt)]
    assert pool.kind is PoolKind.BTRFS
    assert pool.used_percent is not None and 80 <= pool.used_percent <= 100, pool
    snapshot = assess(HostSnapshot("nas", time.time(), pools=(pool,)), Thresholds(), time.time())
    (alert,) = [a for a in snapshot.alerts if a.key == f"pool:{pool.name}:capacity"]
    assert alert.health in (Health.WARNING, Health.CRITICAL)
    assert alert.value == int(pool.used_percent)
    assert alert.message.startswith(f"{int(pool.used_percent)}% full (")


def test_md_usage_is_the_mounted_filesystems(ext4_fs: tuple[str, Path]) -> None:
    loop, mnt = ext4_fs
    fill(mnt / "data", 150)
    name = Path(loop).name  # "loop7": matched as /dev/loop7 in mountinfo, as md0 is
    array = Pool(name, PoolKind.MDRAID, PoolState.ONLINE, Vdev(name, "root", PoolState.ONLINE))
    (pool,) = with_fs_usage([array], Path("/"))
    stats = os.statvfs(mnt)
    used = (stats.f_blocks - stats.f_bfree) * stats.f_frsize
    assert pool.allocated_bytes == used
    assert pool.size_bytes == used + stats.f_bavail * stats.f_frsize
    assert pool.used_percent is not None and 55 <= pool.used_percent <= 70
