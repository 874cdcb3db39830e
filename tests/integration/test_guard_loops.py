"""The device-in-use guard on real loop devices (root): one holding a mounted btrfs, one with an
ext4 signature, one held open by another process (exclusively, and plainly). Every write profile
is refused, even with the right confirmation typed, and a checksum of each device's data is the
same afterwards. A free loop device, confirmed, is written: the checks would have seen a write.

Loop devices and mounts are always undone in teardown, even on failure.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import os
import subprocess
import sys
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
from tests.conftest import require_tool

pytestmark = pytest.mark.integration
MIB = 1 << 20
WRITERS = ("randrw", "fill", "dd", "wsc", "cdm")


def need_root() -> None:
    if os.geteuid() != 0:
        require_tool("nastui-needs-root-for-loop-devices", "(run the tests as root)")


@contextlib.contextmanager
def loop_device(tmp_path: Path, name: str, size_mib: int = 64) -> Iterator[str]:
    """A loop device over a new file; detached (and unmounted) afterwards, whatever happens."""
    need_root()
    require_tool("losetup", "util-linux")
    backing = tmp_path / f"{name}.img"
    with backing.open("wb") as f:
        f.truncate(size_mib * MIB)
    device = subprocess.run(
        ["losetup", "-f", "--show", str(backing)], capture_output=True, text=True, check=True
    ).stdout.strip()
    try:
        yield device
    finally:
        subprocess.run(["umount", device], capture_output=True, check=False)
        subprocess.run(["losetup", "-d", device], capture_output=True, check=False)


@contextlib.contextmanager
def mounted(device: str, where: Path) -> Iterator[Path]:
    where.mkdir()
    subprocess.run(["mount", device, str(where)], capture_output=True, check=True)
    try:
        yield where
    finally:
        subprocess.run(["umount", str(where)], capture_output=True, check=False)


@contextlib.contextmanager
def frozen(where: Path) -> Iterator[Path]:
    """The filesystem at `where` flushed and frozen (fsfreeze): it writes nothing of its own
    (journal commits, atime), so its device's checksum changes only if something else writes
    to the device itself, which the freeze does not stop."""
    subprocess.run(["fsfreeze", "--freeze", str(where)], capture_output=True, check=True)
    try:
        yield where
    finally:
        subprocess.run(["fsfreeze", "--unfreeze", str(where)], capture_output=True, check=False)


@contextlib.contextmanager
def holder(device: str, *, exclusive: bool) -> Iterator[int]:
    """Another process holding the device open (O_EXCL, or a plain open)."""
    flags = "os.O_RDONLY | os.O_EXCL" if exclusive else "os.O_RDONLY"
    code = (
        f"import os, sys, time\nos.open({device!r}, {flags})\n"
        "print('held', flush=True)\ntime.sleep(120)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
        yield proc.pid
    finally:
        proc.kill()
        proc.wait()


def sh(*argv: str) -> None:
    """Run a setup command (mkfs, dd, sync); it must succeed."""
    subprocess.run(argv, capture_output=True, check=True)


def checksum(device: str) -> str:
    digest = hashlib.sha256()
    with Path(device).open("rb") as f:
        while chunk := f.read(MIB):
            digest.update(chunk)
    return digest.hexdigest()


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
            assert any(f"open by pid {pid}" in u for u in target.in_use), target.in_use
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
