"""The device-in-use guard on real loop devices (root): one holding a mounted btrfs, one with an
ext4 signature, one held open by another process (exclusively, and plainly). Every write profile
is refused, even with the right confirmation typed, and a checksum of each device's data is the
same afterwards. A free loop device, confirmed, is written: the checks would have seen a write.

Loop devices and mounts are always undone in teardown, even on failure.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from nastui.bench.guard import ExclusiveHold, GuardRefused
from nastui.bench.profiles import PROFILES
from nastui.bench.runner import BenchRunner
from nastui.collectors.fio_host import LocalBenchHost
from nastui.collectors.fio_target import inspect_target
from nastui.model import BenchSettings, RunState
from tests.blocklab import MIB, attached, checksum, image, mounted, opened, sh
from tests.conftest import require_tool

pytestmark = pytest.mark.integration
WRITERS = ("randrw", "fill", "dd", "wsc", "cdm")


@contextlib.contextmanager
def loop_device(tmp_path: Path, name: str, size_mib: int = 64) -> Iterator[str]:
    """A loop device over a new file; detached (and unmounted) afterwards, whatever happens."""
    with attached(str(image(tmp_path / f"{name}.img", size_mib))) as device:
        yield device


def holder(device: str, *, exclusive: bool) -> contextlib.AbstractContextManager[int]:
    """Another process holding the device open (O_EXCL, or a plain open)."""
    return opened(device, "O_RDONLY | os.O_EXCL" if exclusive else "O_RDONLY")


def small(profile: str) -> BenchSettings:
    base = PROFILES[profile].defaults
    return dataclasses.replace(base, size_bytes=4 * MIB, runtime_s=1.0 if base.runtime_s else None)


async def every_write_refused(device: str, tmp_path: Path) -> list[str]:
    """Run every writing profile, confirmed as a user would; return the refusals."""
    target = await inspect_target(device)
    host = LocalBenchHost()
    bench = BenchRunner(host, host_name="test", runs_dir=None)
    messages = []
    for profile in WRITERS:
        run = await bench.run(small(profile), target, confirm=target.confirm_token)
        assert run.state is RunState.REFUSED, (profile, run.message)
        assert run.steps == () and run.samples == ()
        messages.append(run.message)
    return messages


async def test_mounted_btrfs_is_refused(tmp_path: Path) -> None:
    require_tool("mkfs.btrfs", "btrfs-progs")
    with loop_device(tmp_path, "btrfs", 128) as device:
        sh("mkfs.btrfs", "-q", device)
        with mounted(device, tmp_path / "mnt") as mnt:
            (mnt / "precious").write_bytes(os.urandom(MIB))
            sh("sync")
            before = checksum(device)
            target = await inspect_target(device)
            assert any("mounted at" in u and "btrfs" in u for u in target.in_use), target.in_use
            assert any("btrfs signature" in u for u in target.in_use)
            messages = await every_write_refused(device, tmp_path)
            assert all("mounted at" in m for m in messages)
            with pytest.raises(GuardRefused, match="busy"), ExclusiveHold(device):
                pass
            assert checksum(device) == before


async def test_filesystem_signature_is_refused(tmp_path: Path) -> None:
    require_tool("mkfs.ext4", "e2fsprogs")
    require_tool("blkid", "util-linux")
    with loop_device(tmp_path, "ext4") as device:
        sh("mkfs.ext4", "-q", "-F", device)
        before = checksum(device)
        target = await inspect_target(device)
        assert "ext4 signature (blkid)" in target.in_use
        assert any(u.startswith("ext4 at 0x") for u in target.in_use)  # wipefs too
        messages = await every_write_refused(device, tmp_path)
        assert all("ext4 signature" in m for m in messages)
        assert checksum(device) == before


@pytest.mark.parametrize("exclusive", [True, False], ids=["o_excl", "plain"])
async def test_device_open_by_another_process_is_refused(tmp_path: Path, exclusive: bool) -> None:
    with loop_device(tmp_path, "held") as device:
        sh("dd", "if=/dev/urandom", f"of={device}", "bs=1M", "count=4")
        before = checksum(device)
        with holder(device, exclusive=exclusive) as pid:
            target = await inspect_target(device)
            assert any(f"by pid {pid}" in u for u in target.in_use), target.in_use
            await every_write_refused(device, tmp_path)
            if exclusive:
                with pytest.raises(GuardRefused, match="busy"), ExclusiveHold(device):
                    pass
        assert checksum(device) == before


async def test_a_free_device_confirmed_is_written(tmp_path: Path) -> None:
    """The control: without a user, the same checks see the write."""
    require_tool("fio", "fio")
    with loop_device(tmp_path, "free", 16) as device:
        before = checksum(device)
        target = await inspect_target(device)
        assert target.in_use == ()
        assert target.backing == str(tmp_path / "free.img")
        assert target.confirm_token == device  # a loop device has no serial
        bench = BenchRunner(LocalBenchHost(), host_name="test", runs_dir=None)
        run = await bench.run(PROFILES["randrw"].defaults, target, confirm="nope")
        assert run.state is RunState.REFUSED and "does not match" in run.message
        started = time.monotonic()
        run = await bench.run(PROFILES["randrw"].defaults, target, confirm=device)
        assert run.state is RunState.COMPLETE, run.message
        assert time.monotonic() - started < 60
        assert run.steps[0].bytes_done == 16 * MIB  # every block, once
        assert checksum(device) != before
