"""Issue 20's attacks on the benchmark guard, on real loop devices (root).

The victim is a mounted ext4 on a loop device, frozen, its raw bytes compared before and after
(or a file's or device's bytes where the victim is a process's). Each attack ran on the guard
before the footprint rule and changed the victim; each must now change nothing:

- the target's path swapped to the victim between fio steps;
- a loop device at an offset stacked on the mounted victim;
- a loop device at an offset over the victim's backing file;
- a loop device over a file another process holds open read-write;
- a process that mapped the target MAP_SHARED and closed its descriptor;
- a thread that holds the target open in a descriptor table of its own;
- a loop device over the target, mounted while the benchmark runs (stopped within a second,
  the partial result kept, the reason said);
- a target path with a trailing space (fio strips it) or a control character.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import fcntl
import os
import struct
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from nastui.bench.profiles import PROFILES
from nastui.bench.runner import BenchRunner, Event, SampleReady, StepStarted
from nastui.collectors.fio_host import LocalBenchHost
from nastui.collectors.fio_target import inspect_target
from nastui.model import BenchRun, BenchSettings, RunState
from tests.blocklab import (
    MIB,
    attached,
    changed_bytes,
    checksum,
    frozen,
    image,
    mapped_then_closed,
    mkfs_ext4,
    mounted,
    mounted_elsewhere,
    opened,
    opened_by_own_node,
    opened_in_thread,
    read_all,
    sh,
    victim_fs,
)
from tests.conftest import require_tool
from tests.integration.test_guard_stacks import cli

pytestmark = pytest.mark.integration


def small(profile: str, **changes: object) -> BenchSettings:
    base = PROFILES[profile].defaults
    runtime = 1.0 if base.runtime_s else None
    return dataclasses.replace(base, size_bytes=4 * MIB, runtime_s=runtime, **changes)  # type: ignore[arg-type]


async def bench(
    path: str, settings: BenchSettings, on_event: object = None, confirm: str | None = None
) -> BenchRun:
    """`path` inspected and benchmarked as the CLI does, confirmed as a user would."""
    target = await inspect_target(path)
    runner = BenchRunner(
        LocalBenchHost(),
        host_name="test",
        runs_dir=None,
        on_event=on_event,  # type: ignore[arg-type]
    )
    return await runner.run(settings, target, confirm=confirm or target.confirm_token)


def refused_naming(run: BenchRun, changed: Callable[[], int], *names: str) -> None:
    """Refused, naming `names`, with nothing run and nothing changed (`changed()` bytes)."""
    sh("sync")
    figures = (run.state, changed())
    print(f"{run.state.value}, {figures[1]} bytes changed: {run.message}")
    assert figures == (RunState.REFUSED, 0), run.message
    assert run.steps == () and run.samples == (), run.message
    for name in names:
        assert name in run.message, run.message


async def test_the_path_swapped_between_steps(tmp_path: Path) -> None:
    """fio reopened the path for every step: once it named the victim, the victim was written
    (266,683,272 of 268,435,456 bytes in the issue). The device is named once now."""
    require_tool("fio", "fio")
    with attached(str(image(tmp_path / "t.img", 16))) as target, victim_fs(tmp_path) as victim:
        link = tmp_path / "L"
        link.symlink_to(target)
        before = checksum(target)

        def swap(event: Event) -> None:
            if isinstance(event, StepStarted) and event.index == 0:
                (tmp_path / "L.new").symlink_to(victim.device)
                (tmp_path / "L.new").replace(link)

        run = await bench(str(link), small("dd"), on_event=swap, confirm=str(link))
        assert run.state is RunState.COMPLETE, run.message
        assert victim.changed() == 0
        assert checksum(target) != before  # the device named at the start was written


async def test_a_loop_at_an_offset_on_the_mounted_victim(tmp_path: Path) -> None:
    with victim_fs(tmp_path) as victim, attached("-o", "1M", victim.device) as target:
        run = await bench(target, small("randrw"))
        refused_naming(run, victim.changed, Path(victim.device).name, f"mounted at {victim.mount}")


async def test_a_loop_at_an_offset_over_the_victims_backing_file(tmp_path: Path) -> None:
    with victim_fs(tmp_path) as victim, attached("-o", "1M", str(victim.image)) as target:
        run = await bench(target, small("randrw"))
        refused_naming(run, victim.changed, str(victim.image), Path(victim.device).name)


async def test_a_loop_over_a_file_another_process_holds_open(tmp_path: Path) -> None:
    backing = image(tmp_path / "fs.img", 32)
    with attached(str(backing)) as fs_device:
        mkfs_ext4(fs_device)
        with mounted(fs_device, tmp_path / "fs") as mnt:
            data = mnt / "data.img"
            data.write_bytes(os.urandom(8 * MIB))
            sh("sync")
            before = read_all(data)
            with opened(data, "O_RDWR") as pid, attached(str(data)) as target:
                run = await bench(target, small("randrw"))
                changed = lambda: changed_bytes(before, read_all(data))  # noqa: E731
                refused_naming(run, changed, f"open by pid {pid}", str(data))


Attacker = Callable[[str], contextlib.AbstractContextManager[int]]


async def a_process_using_the_target(tmp_path: Path, attacker: Attacker, named: str) -> None:
    """A target full of data that another process (`attacker`) uses: refused, naming it."""
    with attached(str(image(tmp_path / "t.img", 16))) as target:
        sh("dd", "if=/dev/urandom", f"of={target}", "bs=1M", "count=16", "conv=fsync")
        before = read_all(target)
        with attacker(target) as pid:
            run = await bench(target, small("randrw"))
            changed = lambda: changed_bytes(before, read_all(target))  # noqa: E731
            refused_naming(run, changed, named.format(pid=pid))


async def test_a_mapping_whose_descriptor_is_closed(tmp_path: Path) -> None:
    await a_process_using_the_target(tmp_path, mapped_then_closed, "mapped by pid {pid}")


async def test_a_thread_with_its_own_descriptor_table(tmp_path: Path) -> None:
    await a_process_using_the_target(tmp_path, opened_in_thread, "in its thread")


async def test_a_node_of_its_own_for_the_target(tmp_path: Path) -> None:
    """Another name for the device (a node made with mknod elsewhere, then removed) is the
    same device: its user is found by the device number, not by a path under /dev."""

    def private_node(target: str) -> contextlib.AbstractContextManager[int]:
        return opened_by_own_node(target, tmp_path / "node")

    await a_process_using_the_target(tmp_path, private_node, "open by pid {pid}")


SLOW_WRITER = (
    "[j]\nioengine=libaio\ndirect=1\nrw=randwrite\nbs=4k\nrate_iops=50\ntime_based\nruntime=20\n"
)


async def test_a_loop_mounted_on_the_target_while_it_runs(tmp_path: Path) -> None:
    """fio kept writing 7.6 s after the mount. The footprint is watched every half second: the
    new loop device stops fio, the partial result is kept and the reason said."""
    require_tool("fio", "fio")
    with attached(str(image(tmp_path / "t.img", 64))) as target:
        with attached("-o", "1M", target) as upper:  # a filesystem 1 MiB in, then let go
            mkfs_ext4(upper)
        attack: dict[str, float | str] = {}

        def mount_it() -> None:
            with attached("-o", "1M", target) as upper, mounted(upper, tmp_path / "mnt"):
                attack["loop"], attack["at"] = Path(upper).name, time.monotonic()
                while "ended" not in attack:
                    time.sleep(0.05)

        def start_attack(event: Event) -> None:
            if isinstance(event, SampleReady) and "started" not in attack:
                attack["started"] = 1.0
                threading.Thread(target=mount_it, daemon=True).start()

        settings = dataclasses.replace(PROFILES["custom"].defaults, job_text=SLOW_WRITER)
        run = await bench(target, settings, on_event=start_attack)
        ended = time.monotonic()
        attack["ended"] = 1.0
        await asyncio.sleep(0.2)
        assert run.state is RunState.REFUSED, run.message
        assert "stopped by the guard" in run.message and str(attack["loop"]) in run.message
        assert len(run.steps) == 1 and run.samples, "the partial result is kept"
        late = ended - float(attack["at"])
        print(f"fio stopped {late:.2f} s after the loop device was mounted")
        assert late < 10.0, "stopped long before its 20 s runtime"


@pytest.mark.parametrize("suffix", [" ", "\x01", "\t", "\n"], ids=["space", "ctrl-a", "tab", "lf"])
async def test_a_name_fio_would_read_differently(tmp_path: Path, suffix: str) -> None:
    """fio strips the trailing space of "L ": it opened "L", the victim (6.7 MB changed)."""
    require_tool("fio", "fio")
    with attached(str(image(tmp_path / "t.img", 16))) as target, victim_fs(tmp_path) as victim:
        (tmp_path / f"L{suffix}").symlink_to(target)
        (tmp_path / "L").symlink_to(victim.device)
        name = str(tmp_path / f"L{suffix}")
        done = cli("bench", "run", "randrw", name, "--size", "4M", "--confirm", name, "--no-save")
        assert done.returncode == 64, done.stdout + done.stderr
        assert "whitespace or control characters" in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr
        assert victim.changed() == 0


LOOP_GET_STATUS64, LOOP_SET_STATUS64 = 0x4C05, 0x4C04
_INFO = struct.Struct("=5Q4I64s64s32s2Q")


def move_loop(device: str, offset: int) -> None:
    """Change a bound loop device's offset (LOOP_SET_STATUS64: allowed while it is open)."""
    fd = os.open(device, os.O_RDONLY)
    try:
        fields = list(_INFO.unpack(fcntl.ioctl(fd, LOOP_GET_STATUS64, bytes(_INFO.size))))
        fields[3] = offset
        fcntl.ioctl(fd, LOOP_SET_STATUS64, _INFO.pack(*fields))
    finally:
        os.close(fd)


@contextlib.contextmanager
def neighbours(tmp_path: Path) -> Iterator[tuple[str, str, str]]:
    """One 48 MiB device; the target: a loop over its first 8 MiB; a neighbour: a loop over
    16-32 MiB with a mounted, frozen ext4. Yields (device, target, neighbour)."""
    with (
        attached(str(image(tmp_path / "d.img", 48))) as disk,
        attached("--sizelimit", "8M", disk) as target,
        attached("-o", "16M", "--sizelimit", "16M", disk) as neighbour,
    ):
        mkfs_ext4(neighbour)
        with mounted(neighbour, tmp_path / "mnt") as mnt, frozen(mnt):
            sh("sync")
            yield disk, target, neighbour


async def test_the_targets_offset_moved_while_it_runs(tmp_path: Path) -> None:
    """Not in the issue: the target's loop device moved, mid-run, over a mounted neighbour's
    range of the same device. The footprint is not what was inspected: fio is stopped."""
    require_tool("fio", "fio")
    with neighbours(tmp_path) as (_disk, target, _neighbour):
        before = read_all(tmp_path / "d.img")[16 * MIB : 32 * MIB]
        moved: dict[str, float] = {}

        def move(event: Event) -> None:
            if isinstance(event, SampleReady) and not moved:
                move_loop(target, 16 * MIB)
                moved["at"] = time.monotonic()

        settings = dataclasses.replace(PROFILES["custom"].defaults, job_text=SLOW_WRITER)
        run = await bench(target, settings, on_event=move)
        late = time.monotonic() - moved["at"]
        sh("sync")
        changed = changed_bytes(before, read_all(tmp_path / "d.img")[16 * MIB : 32 * MIB])
        print(f"stopped {late:.2f} s after the move, {changed} bytes changed; {run.message}")
        assert run.state is RunState.REFUSED and "stopped by the guard" in run.message
        assert "what the target writes to changed" in run.message, run.message
        assert late < 10.0


async def test_a_neighbour_beside_the_footprint_is_not_a_reason(tmp_path: Path) -> None:
    """Not in the issue, the other way round: loop devices over one device at ranges that do
    not overlap (offsets, size limits) leave each other alone, and nothing else is written."""
    require_tool("fio", "fio")
    with neighbours(tmp_path) as (disk, target, _neighbour):
        before = read_all(tmp_path / "d.img")
        run = await bench(target, small("randrw"))
        assert run.state is RunState.COMPLETE, run.message
        sh("sync")
        after = read_all(tmp_path / "d.img")
        assert after[8 * MIB :] == before[8 * MIB :]
        assert after[: 8 * MIB] != before[: 8 * MIB]
        with attached("-o", "7M", "--sizelimit", "2M", disk) as overlapping:
            run = await bench(target, small("randrw"))
            refused_naming(run, lambda: 0, f"{Path(overlapping).name} over it at offset")


async def test_the_second_device_of_a_mounted_btrfs(tmp_path: Path) -> None:
    """Not in the issue: mountinfo names one device of a multi-device btrfs; the others are
    found through /sys/fs/btrfs/FSID/devices (the kernel's exclusive claim refuses too)."""
    require_tool("mkfs.btrfs", "btrfs-progs")
    first, second = image(tmp_path / "a.img", 128), image(tmp_path / "b.img", 128)
    with attached(str(first)) as one, attached(str(second)) as two:
        sh("mkfs.btrfs", "-q", "-f", "-d", "raid1", "-m", "raid1", one, two)
        with mounted(one, tmp_path / "pool") as pool:
            sh("sync")
            target = await inspect_target(two)
            assert any(f"mounted at {pool} (btrfs)" in u for u in target.in_use), target.in_use
            before = read_all(second)
            run = await bench(two, small("randrw"))
            refused_naming(run, lambda: changed_bytes(before, read_all(second)), "btrfs")


async def test_a_mount_in_another_mount_namespace(tmp_path: Path) -> None:
    """Not in the issue: a container's mount is not in nastui's mountinfo; every mount
    namespace a process lives in is read too."""
    require_tool("unshare", "util-linux")
    backing = image(tmp_path / "v.img", 32)
    with attached(str(backing)) as victim:
        mkfs_ext4(victim)
        where = tmp_path / "elsewhere"
        with mounted_elsewhere(victim, where), attached("-o", "1M", victim) as target:
            before = read_all(backing)
            run = await bench(target, small("randrw"))
            changed = lambda: changed_bytes(before, read_all(backing))  # noqa: E731
            refused_naming(run, changed, f"mounted at {where} (ext4) in the mount namespace")
