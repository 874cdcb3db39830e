"""The device-in-use guard against everything Linux stacks on a block device, on real loop
devices (root): a loop device at an offset with a mounted ext4 on it, loop on loop, a loop whose
backing file lives on a (lazily unmounted) filesystem on the target, a partition table, swap,
md 0.90 / 1.0 superblocks and ZFS labels only at the end of the device, an LVM label at sector 1,
processes holding the device open (read-only, read-write, exclusively), and `--root //`.
Partitions and their holders (this kernel has neither partition tables nor dm/md) and LIO
exports come through a `--root` tree naming the real device. Every writing profile is refused,
confirmed as a user would, with the reason named, and the sha256 of every device involved is
the same afterwards.
"""

from __future__ import annotations

import contextlib
import gzip
import os
import struct
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from nastui.bench.profiles import PROFILES
from nastui.bench.runner import BenchRunner
from nastui.collectors.fio_host import LocalBenchHost
from nastui.collectors.fio_target import inspect_target
from nastui.collectors.labels import zfs_label_offsets
from nastui.model import RunState
from tests.blocklab import (
    MIB,
    attached,
    checksum,
    frozen,
    mapped_then_closed,
    mkfs_ext4,
    mounted,
    opened,
    sh,
)
from tests.conftest import require_tool
from tests.fakepools import FIXTURES
from tests.fakesys import FakePartition, add_class_block
from tests.integration.test_guard_loops import every_write_refused, holder, loop_device

pytestmark = pytest.mark.integration


def sums(*devices: str) -> list[str]:
    sh("sync")
    return [checksum(d) for d in devices]


async def refused_for(device: str, tmp_path: Path, reason: str) -> None:
    """Every writing profile refused on `device`, each naming `reason`."""
    target = await inspect_target(device)
    assert any(reason in use for use in target.in_use), target.in_use
    for message in await every_write_refused(device, tmp_path):
        assert "in use, nothing written" in message and reason in message, message


async def test_a_loop_at_an_offset_with_a_mounted_filesystem(tmp_path: Path) -> None:
    with loop_device(tmp_path, "offset") as target, attached("-o", "1M", target) as upper:
        mkfs_ext4(upper)
        with mounted(upper, tmp_path / "mnt") as mnt:
            (mnt / "precious").write_bytes(os.urandom(MIB))
            with frozen(mnt):
                before = sums(target)
                name, upper_name = Path(target).name, Path(upper).name
                await refused_for(target, tmp_path, f"{name}: {upper_name} over it at offset {MIB}")
                await refused_for(target, tmp_path, f"({upper_name}: mounted at {mnt}")
                assert sums(target) == before


async def test_loop_on_loop(tmp_path: Path) -> None:
    with loop_device(tmp_path, "lower") as target, attached(target) as upper:
        sh("dd", "if=/dev/urandom", f"of={upper}", "bs=1M", "count=2", "conv=fsync")
        before = sums(target, upper)
        await refused_for(target, tmp_path, f"{Path(target).name}: {Path(upper).name} over it")
        assert sums(target, upper) == before


async def test_a_loop_backed_by_a_file_on_a_lazily_unmounted_filesystem(tmp_path: Path) -> None:
    """The mount is gone from mountinfo; the filesystem lives on through the loop's file."""
    with loop_device(tmp_path, "fs", 32) as target:
        mkfs_ext4(target)
        where = tmp_path / "mnt"
        with mounted(target, where):
            (where / "disk.img").write_bytes(bytes(MIB))
        with mounted(target, where, "-o", "ro"), attached("-r", str(where / "disk.img")) as inner:
            sh("umount", "-l", str(where))
            before = sums(target, inner)
            target_info = await inspect_target(target)
            assert not any("mounted" in u for u in target_info.in_use), target_info.in_use
            # the kernel names the file from the detached mount's root now: "/disk.img"
            reason = f"{Path(target).name}: a file on it (/disk.img): the backing file of "
            reason += Path(inner).name
            await refused_for(target, tmp_path, reason)
            assert sums(target, inner) == before


async def test_a_partition_table(tmp_path: Path) -> None:
    """This kernel has no partition support (sysfs partitions and their holders are covered by
    the --root tree below); the table itself refuses: GPT at sector 1 and its backup at the end."""
    require_tool("sfdisk", "fdisk")
    with loop_device(tmp_path, "parts") as target:
        sh("sh", "-c", f"printf 'label: gpt\\n,16M\\n,\\n' | sfdisk -q {target}")
        before = sums(target)
        await refused_for(target, tmp_path, "GPT header at 512 (nastui)")
        await refused_for(target, tmp_path, f"GPT backup header at {64 * MIB - 512} (nastui)")
        assert sums(target) == before


@contextlib.contextmanager
def swapped_on(device: str) -> Iterator[None]:
    sh("swapon", device)
    try:
        yield
    finally:
        subprocess.run(["swapoff", device], capture_output=True, check=False)


async def test_swap_on_the_device(tmp_path: Path) -> None:
    require_tool("mkswap", "util-linux")
    with loop_device(tmp_path, "swap", 16) as target:
        sh("mkswap", "-q", target)
        with swapped_on(target):
            before = sums(target)
            await refused_for(target, tmp_path, f"swap on {target}")
            assert sums(target) == before


def write_at(device: str, offset: int, data: bytes) -> None:
    fd = os.open(device, os.O_WRONLY)
    try:
        os.pwrite(fd, data, offset)
        os.fsync(fd)
    finally:
        os.close(fd)


def md_superblock(major: int, order: str = "<") -> bytes:
    """The first words of an md superblock: magic, major, minor version."""
    return struct.pack(f"{order}III", 0xA92B4EFC, major, 0)


SIZE = 64 * MIB


@pytest.mark.parametrize(
    ("kind", "offset", "data", "reason"),
    [
        ("md-1.0", ((SIZE >> 9) - 16 & ~7) << 9, md_superblock(1), "md 1.0 superblock"),
        ("md-0.90", SIZE - 64 * 1024, md_superblock(0), "md 0.90 superblock"),
        ("md-0.90-be", SIZE - 64 * 1024, md_superblock(0, ">"), "md 0.90 superblock"),
        ("lvm-sector-1", 512, b"LABELONE" + bytes(16) + b"LVM2 001", "LVM2 label at sector 1"),
        (
            "zfs-label-3",
            zfs_label_offsets(SIZE)[3] + 128 * 1024,
            struct.pack("<Q", 0x00BAB10C),
            "ZFS label 3",
        ),
        (
            "zfs-label-2",
            zfs_label_offsets(SIZE)[2] + 128 * 1024 + 5 * 1024,
            struct.pack(">Q", 0x00BAB10C),
            "ZFS label 2",
        ),
        ("gpt-backup", SIZE - 512, b"EFI PART", "GPT backup header"),
    ],
)
async def test_a_label_away_from_offset_zero(
    tmp_path: Path, kind: str, offset: int, data: bytes, reason: str
) -> None:
    with loop_device(tmp_path, kind, SIZE // MIB) as target:
        write_at(target, offset, data)
        before = sums(target)
        await refused_for(target, tmp_path, reason)
        assert sums(target) == before


@pytest.mark.parametrize("mode", ["O_RDONLY", "O_RDWR", "O_RDONLY | os.O_EXCL"])
async def test_a_process_holding_it_open_in_any_mode(tmp_path: Path, mode: str) -> None:
    with loop_device(tmp_path, "held") as target:
        sh("dd", "if=/dev/urandom", f"of={target}", "bs=1M", "count=4", "conv=fsync")
        before = sums(target)
        with opened(target, mode) as pid:
            await refused_for(target, tmp_path, f"by pid {pid}")
        assert sums(target) == before


def cli(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nastui", *argv], capture_output=True, text=True, check=False
    )


@pytest.mark.parametrize("root", ["//", "/./", "fake"])
async def test_root_never_weakens_the_check(tmp_path: Path, root: str) -> None:
    """`--root //` is the real root; a fake tree adds what it says, never hides the machine."""
    where = root
    if root == "fake":
        where = str(tmp_path / "empty-tree")
        sh("mkdir", where)
    with loop_device(tmp_path, "rooted") as target:
        sh("dd", "if=/dev/urandom", f"of={target}", "bs=1M", "count=4", "conv=fsync")
        before = sums(target)
        with holder(target, exclusive=False) as pid:
            info = await inspect_target(target, root=Path(where))
            assert any(f"by pid {pid}" in u for u in info.in_use), info.in_use
            done = cli("bench", "run", "randrw", target, "--root", where, "--confirm", target)
            assert done.returncode == 77, done.stdout + done.stderr
            assert f"by pid {pid}" in done.stdout + done.stderr
        assert sums(target) == before


async def test_a_fake_tree_adds_holders_and_exports(tmp_path: Path) -> None:
    """What a --root tree says (a partition's dm holder, a LIO backstore) refuses a real device."""
    with loop_device(tmp_path, "faked") as target:
        name = Path(target).name
        number = (Path("/sys/class/block") / name / "dev").read_text().strip()
        tree = tmp_path / "tree"
        block = tree / "sys/class/block"
        for dev, devno in ((name, number), (f"{name}p1", "259:250"), ("dm-250", "253:250")):
            (block / dev).mkdir(parents=True)
            (block / dev / "dev").write_text(devno + "\n")
        (block / name / f"{name}p1").mkdir()
        (block / name / f"{name}p1" / "partition").write_text("1\n")
        (block / f"{name}p1" / "holders").mkdir()
        (block / f"{name}p1" / "holders" / "dm-250").mkdir()
        store = tree / "sys/kernel/config/target/core/iblock_0/disk1"
        store.mkdir(parents=True)
        (store / "udev_path").write_text(target + "\n")
        (tree / "sys/dev/block").mkdir(parents=True)
        (tree / "sys/dev/block" / number).symlink_to(block / name)
        before = sums(target)
        info = await inspect_target(target, root=tree)
        assert f"{name}: partition {name}p1 ({name}p1: held by dm-250)" in info.in_use, info.in_use
        assert f"{name}: exported by LIO backstore iblock_0/disk1 ({target})" in info.in_use
        assert sums(target) == before


async def test_a_use_that_began_after_the_inspection(tmp_path: Path) -> None:
    """Once held O_EXCL the device is inspected again: a loop set up on it (and mounted) after the
    first look stops the run before anything is written."""
    with loop_device(tmp_path, "late") as target:
        free = await inspect_target(target)
        assert free.in_use == ()
        with attached("-o", "1M", target) as upper:
            mkfs_ext4(upper)
            with mounted(upper, tmp_path / "mnt"):
                before = sums(target)
                bench = BenchRunner(LocalBenchHost(), host_name="test", runs_dir=None)
                run = await bench.run(PROFILES["randrw"].defaults, free, confirm=target)
                assert run.state is RunState.REFUSED, run.message
                assert (
                    f"{Path(target).name}: {Path(upper).name} over it at offset {MIB}"
                    in run.message
                )
                assert run.steps == () and run.samples == ()
                assert sums(target) == before


async def test_a_mapped_file_on_a_lazily_unmounted_filesystem(tmp_path: Path) -> None:
    with loop_device(tmp_path, "mapped", 32) as target:
        mkfs_ext4(target)
        where = tmp_path / "mnt"
        with mounted(target, where):
            (where / "data").write_bytes(bytes(8192))
        with (
            mounted(target, where, "-o", "ro"),
            mapped_then_closed(where / "data", writable=False) as pid,
        ):
            sh("umount", "-l", str(where))
            before = sums(target)
            name = Path(target).name
            await refused_for(
                target, tmp_path, f"{name}: a file on it (/data): mapped by pid {pid}"
            )
            assert sums(target) == before


# label 0 of a whole-disk vdev's partition, as OpenZFS 2.3.2 wrote it (pool "labz")
ZFS_LABEL = gzip.decompress((FIXTURES / "zpool/lab/vdev_label_0__2.3.2_labz.bin.gz").read_bytes())


def write_zfs_labels(device: str, start: int, size: int) -> None:
    """The label at the four offsets of a ZFS vdev of `size` bytes at byte `start` of `device`."""
    for offset in zfs_label_offsets(size):
        write_at(device, start + offset, ZFS_LABEL)


def whole_disk_vdev(tmp_path: Path, target: str, *, first: int = 2048) -> tuple[Path, str]:
    """A --root tree giving the real device `target` the partitions `zpool create POOL DISK`
    makes (1 from sector `first`, up to the 8 MiB partition 9 at the end): the kernel here has
    no partition tables. Returns the tree and partition 1's name."""
    name = Path(target).name
    number = (Path("/sys/class/block") / name / "dev").read_text().strip()
    sectors = SIZE // 512
    vdev = FakePartition(f"{name}p1", "259:251", first, sectors - 16384 - first)
    reserved = FakePartition(f"{name}p9", "259:259", sectors - 16384, 16384)
    return add_class_block(tmp_path / "tree", name, number, (vdev, reserved)), vdev.name


async def test_a_whole_disk_zfs_vdev_names_its_pool(tmp_path: Path) -> None:
    """`zpool create labz DISK` puts the vdev and its four labels on partition 1: a write to
    the disk is refused naming the pool, read through the disk at partition 1's offsets."""
    with loop_device(tmp_path, "zdisk", SIZE // MIB) as target:
        tree, part = whole_disk_vdev(tmp_path, target)
        write_zfs_labels(target, MIB, SIZE - 9 * MIB)
        before = sums(target)
        info = await inspect_target(target, root=tree)
        pool = f"ZFS pool labz (vdev {part}, its labels 0, 1, 2, 3) (nastui)"
        assert pool in info.in_use, info.in_use
        assert any(f"partition {part} (bytes" in use for use in info.in_use), info.in_use
        done = cli("bench", "run", "randrw", target, "--root", str(tree), "--confirm", target)
        assert done.returncode == 77, done.stdout + done.stderr
        assert "ZFS pool labz (vdev " in done.stdout + done.stderr
        assert sums(target) == before


async def test_a_zfs_label_on_the_target_itself_names_its_pool(tmp_path: Path) -> None:
    """The vdev given as the target (the partition, or a disk ZFS was given whole)."""
    with loop_device(tmp_path, "zpart", SIZE // MIB) as target:
        write_zfs_labels(target, 0, SIZE)
        before = sums(target)
        await refused_for(target, tmp_path, "ZFS label 0 at 0 (pool labz) (nastui)")
        await refused_for(target, tmp_path, f"ZFS label 3 at {SIZE - 256 * 1024} (pool labz)")
        assert sums(target) == before


@pytest.mark.parametrize("fault", ["read-error", "no-offsets", "no-name"])
async def test_a_partition_whose_labels_cannot_be_read_is_still_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fault: str
) -> None:
    """Partition 1's labels unreadable (an I/O error there), its offsets unknown (sysfs gives
    no `start`), or a list naming no pool: refused as before, naming the partition."""
    with loop_device(tmp_path, "zbroken", SIZE // MIB) as target:
        tree, part = whole_disk_vdev(tmp_path, target)
        write_zfs_labels(target, MIB, SIZE - 9 * MIB)
        if fault == "no-offsets":
            (tree / "sys/class/block" / Path(target).name / part / "start").unlink()
        if fault == "no-name":
            for offset in zfs_label_offsets(SIZE - 9 * MIB):
                write_at(target, MIB + offset + 16 * 1024, b"\x07" * 64)
        pread = os.pread

        def failing(fd: int, length: int, at: int) -> bytes:
            if MIB <= at < SIZE - 8 * MIB:
                raise OSError(5, "Input/output error")
            return pread(fd, length, at)

        if fault == "read-error":
            monkeypatch.setattr(os, "pread", failing)
        before = sums(target)
        info = await inspect_target(target, root=tree)
        named = "ZFS labels 0, 1, 2, 3 on " + part + " (no pool name in them) (nastui)"
        assert [u for u in info.in_use if "ZFS" in u] == ([named] if fault == "no-name" else [])
        assert any(f"partition {part}" in use for use in info.in_use), info.in_use
        assert sums(target) == before
