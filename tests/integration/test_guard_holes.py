"""A later red-team round on the benchmark guard, on real loop devices and btrfs (root).

Each attack here wrote where something else lived (or would have) before its fix:

- a device below the target, reached raw through a loop device, added to a mounted btrfs (or
  made swap and swapped on) while the run writes: a loop device claims nothing under it, so
  the kernel let it through and the watch stopped the run only after the writes had begun
  landing in the pool (the run now holds those devices O_EXCL with the target);
- a process holding the target, or the file under its loop device, only as a file registered
  with an io_uring, its own descriptor closed (the ring's fdinfo names the files now);
- a fill of a directory whose filesystem holds another loop device's image, or which lives on
  a sparse file whose own filesystem has less room: the other loop's writes failed (a run
  that may fill a filesystem is refused while something else needs its free space), also an
  image in a btrfs subvolume not mounted on its own (its st_dev is in no mount), or one set up
  while the fill runs (a directory being filled is watched now), and the same through a
  device: a loop device over a sparse file larger than its filesystem's room, beside another
  loop device's image;
- a loop device at an offset over a device holding an unmounted filesystem or an md member:
  the labels at the device's start are not the target's (the devices below are read too).

Already refused, but not covered before: a btrfs mounted only in a mount namespace no process
lives in (the mounted member, the second member, a loop device over it at an offset).
"""

from __future__ import annotations

import contextlib
import dataclasses
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from nastui.bench.profiles import PROFILES
from nastui.bench.runner import BenchRunner, Event, SampleReady, StepStarted
from nastui.collectors.fio_host import LocalBenchHost
from nastui.collectors.fio_target import inspect_target
from nastui.collectors.procuse import process_uses
from nastui.model import RunState
from tests.blocklab import (
    MIB,
    attached,
    changed_bytes,
    image,
    mkfs_ext4,
    mounted,
    mounted_in_a_kept_namespace,
    opened,
    read_all,
    registered_in_io_uring,
    sh,
)
from tests.conftest import require_tool
from tests.integration.test_guard_attacks import (
    a_process_using_the_target,
    bench,
    refused_naming,
    small,
)
from tests.integration.test_guard_stacks import md_superblock, write_at

pytestmark = pytest.mark.integration

SHORT_WRITER = (
    "[j]\nioengine=libaio\ndirect=1\nrw=randwrite\nbs=4k\nrate_iops=200\ntime_based\nruntime=3\n"
)


def during_the_run(
    attack: list[list[str]],
) -> tuple[object, list[subprocess.CompletedProcess[str]]]:
    """An `on_event` that runs `attack`'s commands once the first sample is in (the tool is
    writing), and the list their results land in."""
    results: list[subprocess.CompletedProcess[str]] = []
    started = threading.Event()

    def on_event(event: Event) -> None:
        if isinstance(event, SampleReady) and not started.is_set():
            started.set()
            for argv in attack:
                results.append(subprocess.run(argv, capture_output=True, text=True, check=False))
                if results[-1].returncode != 0:
                    break

    return on_event, results


@contextlib.contextmanager
def btrfs_pool(tmp_path: Path) -> Iterator[Path]:
    """A mounted btrfs RAID1 on two loop devices; every device added to it is removed after."""
    require_tool("mkfs.btrfs", "btrfs-progs")
    first, second = image(tmp_path / "a.img", 256), image(tmp_path / "b.img", 256)
    with attached(str(first)) as one, attached(str(second)) as two:
        sh("mkfs.btrfs", "-q", "-f", "-d", "raid1", "-m", "raid1", one, two)
        with mounted(one, tmp_path / "pool") as pool:
            yield pool


def attach(*args: str) -> str:
    """`losetup -f --show ARGS` (the caller detaches it)."""
    argv = ["losetup", "-f", "--show", *args]
    return subprocess.run(argv, capture_output=True, text=True, check=True).stdout.strip()


def undo(*argv: str) -> None:
    """Undo what an attack may have done (it may not have)."""
    subprocess.run(argv, capture_output=True, check=False)


def pool_devices(pool: Path) -> str:
    return subprocess.run(
        ["btrfs", "filesystem", "show", str(pool)], capture_output=True, text=True, check=True
    ).stdout


@contextlib.contextmanager
def below_a_loop(tmp_path: Path) -> Iterator[tuple[str, str]]:
    """A blank loop device (the lower) and the target: a loop device over it at 1 MiB."""
    with (
        attached(str(image(tmp_path / "d.img", 256))) as lower,
        attached("-o", "1M", lower) as target,
    ):
        yield lower, target


async def test_a_btrfs_device_add_below_the_target_while_it_runs(tmp_path: Path) -> None:
    """`btrfs device add` of the device under the target's loop went through mid-run: the
    pool took it as its third member while fio wrote into it. The run holds it O_EXCL now:
    the kernel refuses the add, the run completes, the pool keeps its two devices."""
    require_tool("fio", "fio")
    with btrfs_pool(tmp_path) as pool, below_a_loop(tmp_path) as (lower, target):
        inspected = await inspect_target(target)
        assert inspected.in_use == (), inspected.in_use
        on_event, results = during_the_run([["btrfs", "device", "add", "-f", lower, str(pool)]])
        try:
            settings = dataclasses.replace(PROFILES["custom"].defaults, job_text=SHORT_WRITER)
            run = await bench(target, settings, on_event)
        finally:
            if lower in pool_devices(pool):
                undo("btrfs", "device", "remove", lower, str(pool))
        added = results[0]
        print(f"btrfs device add: exit {added.returncode}: {added.stderr.strip()}")
        assert added.returncode != 0, "the device under the target joined the pool mid-run"
        assert "busy" in added.stderr.lower(), added.stderr
        assert run.state is RunState.COMPLETE, run.message
        assert lower not in pool_devices(pool)


async def test_swap_on_the_device_below_the_target_while_it_runs(tmp_path: Path) -> None:
    """mkswap and swapon of the device under the target's loop went through mid-run (the
    kernel then swaps pages into bytes fio overwrites). Both are refused by the hold now."""
    require_tool("fio", "fio")
    require_tool("swapon", "util-linux")
    with below_a_loop(tmp_path) as (lower, target):
        before = read_all(lower)[:MIB]
        on_event, results = during_the_run([["mkswap", lower], ["swapon", lower]])
        try:
            settings = dataclasses.replace(PROFILES["custom"].defaults, job_text=SHORT_WRITER)
            run = await bench(target, settings, on_event)
        finally:
            undo("swapoff", lower)
        print("; ".join(f"{r.args[0]}: exit {r.returncode} {r.stderr.strip()}" for r in results))
        assert results[-1].returncode != 0, "the device under the target became swap mid-run"
        assert read_all(lower)[:MIB] == before, "mkswap wrote its signature"
        assert run.state is RunState.COMPLETE, run.message


async def test_a_device_below_already_claimed_refuses_naming_it(tmp_path: Path) -> None:
    """The other way round: a lower claimed before the hold (here by another process's
    O_EXCL open between the look and the hold) refuses with a line naming it and the target."""
    with below_a_loop(tmp_path) as (lower, target):
        inspected = await inspect_target(target)
        assert inspected.lowers == ((lower, inspected.lowers[0][1]),), inspected.lowers
        with opened(lower, "O_RDONLY | os.O_EXCL"):
            runner = BenchRunner(LocalBenchHost(), host_name="test", runs_dir=None)
            run = await runner.run(PROFILES["randrw"].defaults, inspected, confirm=target)
        assert run.state is RunState.REFUSED and run.steps == (), run.message
        assert f"{lower} (the target {target} writes to it through a loop device)" in run.message
        assert "busy" in run.message


async def test_a_process_holding_the_target_only_in_an_io_uring(tmp_path: Path) -> None:
    """The target device registered with another process's io_uring, its descriptor closed:
    /proc/PID/fd showed only "anon_inode:[io_uring]" and the run wrote all 16 MiB."""
    await a_process_using_the_target(
        tmp_path, registered_in_io_uring, "registered with an io_uring of pid {pid}"
    )


async def test_a_backing_file_held_only_in_an_io_uring(tmp_path: Path) -> None:
    """The same through a file: a loop device over a file another process writes through its
    io_uring (a database's data file, say)."""
    data = image(tmp_path / "data.img", 16)
    data.write_bytes(bytes(range(256)) * (16 * MIB // 256))
    before = read_all(data)
    with registered_in_io_uring(data) as pid, attached(str(data)) as target:
        run = await bench(target, small("randrw"))
        changed = lambda: changed_bytes(before, read_all(data))  # noqa: E731
        refused_naming(run, changed, f"registered with an io_uring of pid {pid}", str(data))


@pytest.mark.parametrize("how", ["deleted", "ring-closed"])
def test_an_io_uring_whose_files_cannot_be_told_is_named_as_unseen(
    tmp_path: Path, how: str
) -> None:
    """A ring's file whose name leads nowhere (deleted), or a ring the process only maps (its
    descriptor closed after registering it with the task), cannot be told: the process is
    named in the unseen line, never dropped in silence."""
    data = image(tmp_path / "gone.img", 1)
    with registered_in_io_uring(data, ring_closed=how == "ring-closed") as pid:
        if how == "deleted":
            data.unlink()
        found = process_uses()
    unseen = [p for p in found.unseen if p.pid == pid]
    assert [p.why for p in unseen] == ["io_uring files unnamed"], found.unseen


@contextlib.contextmanager
def image_on(where: Path, name: str, size_mib: int, *mount: str) -> Iterator[tuple[str, Path]]:
    """A sparse image in `where`, a loop device over it (`mount` options: "-r") and an ext4
    on it, mounted: (the loop device, its mount point)."""
    backing = image(where / f"{name}.img", size_mib)
    with attached(*mount, str(backing)) as device:
        if not mount:
            mkfs_ext4(device)
        with mounted(device, where.parent / f"{name}-mnt", *(("-o", "ro") if mount else ())) as at:
            yield device, at


def entries(where: Path) -> list[str]:
    return sorted(p.name for p in where.iterdir())


async def test_a_fill_beside_a_loop_image_on_the_same_filesystem(tmp_path: Path) -> None:
    """The fill took all but 64 MiB of a filesystem holding another loop device's sparse
    image: that loop's writes then failed ("critical space allocation error ... potential data
    loss" from the ext4 on it, while dd said it wrote). Refused now, naming the loop device;
    a read-only loop device over a file there needs no space and is not a reason."""
    require_tool("fio", "fio")
    with image_on(tmp_path, "host", 256) as (_host, shared):
        with image_on(shared, "guest", 128) as (guest, guest_mnt):
            before = entries(shared)
            run = await bench(str(shared), small("fill", file_bytes=16 * MIB))
            assert run.state is RunState.REFUSED, run.message
            assert f"{Path(guest).name} (mounted at {guest_mnt} (ext4)) writes into" in run.message
            assert "losetup -r" in run.message and entries(shared) == before
        (shared / "ro.img").write_bytes(bytes(MIB))
        with attached("-r", str(shared / "ro.img")):
            run = await bench(str(shared), small("fill", file_bytes=16 * MIB))
            assert run.state is RunState.COMPLETE, run.message


async def test_a_fill_of_a_filesystem_on_a_sparse_file_with_less_room_below(
    tmp_path: Path,
) -> None:
    """Nesting: the filesystem filled lives on a sparse 256 MiB file on a 64 MiB filesystem.
    Filling it filled that one too and failed its own writes. Refused now, naming the file."""
    require_tool("fio", "fio")
    with (
        image_on(tmp_path, "small", 64) as (_small, below),
        image_on(below, "big", 256) as (_big, filled),
    ):
        run = await bench(str(filled), small("fill", file_bytes=16 * MIB))
        assert run.state is RunState.REFUSED, run.message
        assert f"lives on {below / 'big.img'}, a sparse file" in run.message


@pytest.mark.parametrize(
    ("kind", "reason"),
    [("ext4", "ext4 signature (blkid)"), ("md-1.2", "md 1.2 superblock at 4096 (nastui)")],
)
async def test_an_unmounted_format_below_a_loop_at_an_offset(
    tmp_path: Path, kind: str, reason: str
) -> None:
    """A loop device at 1 MiB over a device holding an unmounted ext4 (or an md member not
    assembled): the target's own labels show nothing of it and the run wrote over the ext4's
    inode tables. The devices below are read as the target is now."""
    with attached(str(image(tmp_path / "lower.img", 64))) as lower:
        if kind == "ext4":
            mkfs_ext4(lower)
        else:
            write_at(lower, 4096, md_superblock(1))
        before = read_all(lower)
        with attached("-o", "1M", lower) as target:
            run = await bench(target, small("randrw"))
            changed = lambda: changed_bytes(before, read_all(lower))  # noqa: E731
            refused_naming(run, changed, f"{Path(lower).name} (the target writes to this device")
            assert reason in run.message, run.message


async def test_a_format_of_a_device_laid_over_the_lower_from_byte_0_is_that_ones(
    tmp_path: Path,
) -> None:
    """The other way round: an ext4 at the lower's start belongs to a loop device laid over it
    from byte 0 and 8 MiB long; the target, beside it at 16 MiB, is written."""
    require_tool("fio", "fio")
    with (
        attached(str(image(tmp_path / "lower.img", 64))) as lower,
        attached("--sizelimit", "8M", lower) as first,
    ):
        mkfs_ext4(first)
        with attached("-o", "16M", lower) as target:
            run = await bench(target, small("randrw"))
            assert run.state is RunState.COMPLETE, run.message


async def test_a_fill_beside_a_loop_image_in_another_subvolume(tmp_path: Path) -> None:
    """A btrfs subvolume not mounted on its own has a st_dev of its own that no mount shows:
    a loop device's image there shares the free space of the pool the fill takes (btrfs
    copies on write: every write to the image takes new blocks). Refused, naming it."""
    require_tool("fio", "fio")
    with btrfs_pool(tmp_path) as pool:
        sh("btrfs", "subvolume", "create", str(pool / "vm"))
        with attached(str(image(pool / "vm" / "disk.img", 32))) as guest:
            run = await bench(str(pool), small("fill", file_bytes=16 * MIB))
            assert run.state is RunState.REFUSED, run.message
            assert f"{Path(guest).name} writes into {pool / 'vm' / 'disk.img'}" in run.message


@pytest.mark.parametrize("target", ["the-member-mounted", "the-second-member", "a-loop-over-it"])
async def test_a_btrfs_mounted_only_in_a_namespace_no_process_lives_in(
    tmp_path: Path, target: str
) -> None:
    """Already refused (not covered before): a btrfs RAID1 mounted by its first device in a
    mount namespace kept by `unshare --mount=FILE` alone; no process's mountinfo shows it.
    The kernel's claim on its devices and their signatures still refuse every way in."""
    require_tool("mkfs.btrfs", "btrfs-progs")
    require_tool("unshare", "util-linux")
    first, second = image(tmp_path / "a.img", 256), image(tmp_path / "b.img", 256)
    with attached(str(first)) as one, attached(str(second)) as two:
        sh("mkfs.btrfs", "-q", "-f", "-d", "raid1", "-m", "raid1", one, two)
        with mounted_in_a_kept_namespace(one, tmp_path / "pool", tmp_path / "ns"):
            before = read_all(first), read_all(second)
            with contextlib.ExitStack() as stack:
                path = {"the-member-mounted": one, "the-second-member": two}.get(target)
                if path is None:
                    path = stack.enter_context(attached("-o", "1M", one))
                run = await bench(path, small("randrw"))

                def changed() -> int:
                    return sum(
                        changed_bytes(b, read_all(i))
                        for b, i in zip(before, (first, second), strict=True)
                    )

                refused_naming(run, changed, "btrfs")


async def test_a_loop_image_set_up_on_the_filesystem_while_a_fill_runs(tmp_path: Path) -> None:
    """A directory target was never watched: a loop device set up over a sparse image on
    the filesystem as the fill began starved as above. The fill is watched now: stopped,
    naming it, its files removed."""
    require_tool("fio", "fio")
    with image_on(tmp_path, "host", 512) as (_host, shared):
        image(shared / "late.img", 128)
        late: dict[str, str] = {}

        def attach_late(event: Event) -> None:
            if isinstance(event, StepStarted) and not late:
                late["loop"] = attach(str(shared / "late.img"))

        try:
            run = await bench(str(shared), small("fill", file_bytes=16 * MIB), attach_late)
        finally:
            if late:
                undo("losetup", "-d", late["loop"])
        print(run.message)
        assert run.state is RunState.REFUSED and "stopped by the guard" in run.message
        assert f"{Path(late['loop']).name} writes into {shared / 'late.img'}" in run.message
        assert entries(shared) == ["late.img", "lost+found"]


async def test_a_device_over_a_sparse_file_larger_than_its_filesystems_room(
    tmp_path: Path,
) -> None:
    """The device form of the fill: the target, a loop device over a 512 MiB sparse file on a
    256 MiB filesystem that also holds another loop device's image. Writing the target fills
    that filesystem, and the other loop device's writes fail. Refused, naming it."""
    with (
        image_on(tmp_path, "host", 256) as (_host, shared),
        image_on(shared, "guest", 64) as (guest, guest_mnt),
        attached(str(image(shared / "target.img", 512))) as target,
    ):
        run = await bench(target, small("randrw"))
        assert run.state is RunState.REFUSED and run.steps == (), run.message
        assert f"{shared / 'target.img'} (the target's writes fill" in run.message
        assert f"{Path(guest).name} (mounted at {guest_mnt} (ext4)) writes" in run.message
