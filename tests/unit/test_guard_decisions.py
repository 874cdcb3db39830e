"""The guard's decisions (pure) and its workspace on real directories: who may write, what must
be typed, and fresh directories that are always removed. The guard on real loop devices is in
tests/integration/test_guard_loops.py."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

from nastui.bench.guard import (
    FRESH_PREFIX,
    FreshDirectory,
    GuardRefused,
    fills,
    refusal,
    workspace,
)
from nastui.bench.names import MAX_TRIES
from nastui.bench.profiles import PROFILES, plan
from nastui.collectors.fio_target import (
    parse_arc_max,
    parse_blkid,
    parse_meminfo_total,
    parse_swaps,
    parse_wipefs,
)
from nastui.collectors.sysfs import parse_mountinfo
from nastui.model import BenchTarget, DriveIdentity, TargetKind

DEV = BenchTarget(
    "/dev/disk/by-id/ata-HGST_X_PK1",
    TargetKind.DEVICE,
    dev="sdc",
    identity=DriveIdentity(serial="PK1", wwn="0x5000cca"),
)


def test_directories_and_reads_need_nothing() -> None:
    assert refusal(BenchTarget("/srv", TargetKind.DIRECTORY), writing=True, confirm=None) is None
    busy = dataclasses.replace(DEV, in_use=("mounted at /srv (ext4)",))
    assert refusal(busy, writing=False, confirm=None) is None


def test_a_run_that_may_fill_a_directory_someone_needs_the_space_of() -> None:
    """A fill, or a custom job of unknown size, refuses on a filesystem whose free space a
    loop device needs; a run of a set size leaving room, or a read, does not."""
    gib = 1 << 30
    srv = BenchTarget("/srv", TargetKind.DIRECTORY, free_bytes=100 * gib)
    starved = dataclasses.replace(srv, starved=("loop3 writes into /srv/vm.img",))
    fill = dataclasses.replace(PROFILES["fill"].defaults, file_bytes=gib)
    randrw = dataclasses.replace(PROFILES["randrw"].defaults, size_bytes=gib)
    assert fills(plan(fill, srv), srv)
    assert not fills(plan(randrw, srv), srv)
    assert fills(plan(randrw, srv), dataclasses.replace(srv, free_bytes=gib))
    for job, filling in (
        ("size=8M", False),
        ("size=200G", True),
        ("size=50%", True),
        ("", True),
    ):
        text = f"[global]\n{job}\n[j]\nrw=write\n"
        custom = dataclasses.replace(PROFILES["custom"].defaults, job_text=text)
        assert fills(plan(custom, srv), srv) is filling, job
    assert not fills(plan(PROFILES["cdm"].defaults, srv), srv)
    why = refusal(starved, writing=True, confirm=None, filling=True)
    assert (
        why
        == "/srv: the run may fill its filesystem, nothing written: loop3 writes into /srv/vm.img"
    )
    assert refusal(starved, writing=True, confirm=None, filling=False) is None
    assert refusal(srv, writing=True, confirm=None, filling=True) is None
    assert refusal(starved, writing=False, confirm=None, filling=True) is None


def test_device_in_use_is_refused_even_when_confirmed() -> None:
    busy = dataclasses.replace(DEV, in_use=("mounted at /srv (ext4)", "ext4 signature (blkid)"))
    why = refusal(busy, writing=True, confirm="PK1")
    assert why is not None
    assert "in use, nothing written: mounted at /srv (ext4); ext4 signature (blkid)" in why


def test_raw_writes_need_the_serial_not_the_device_name() -> None:
    assert refusal(DEV, writing=True, confirm="PK1") is None
    assert refusal(DEV, writing=True, confirm="  PK1 ") is None
    why = refusal(DEV, writing=True, confirm="/dev/sdc")
    assert why is not None and "type its serial number PK1" in why and "does not match" in why
    assert "does not match" not in (refusal(DEV, writing=True, confirm=None) or "")
    wwn_only = dataclasses.replace(DEV, identity=DriveIdentity(wwn="0x5000cca"))
    assert wwn_only.confirm_token == "0x5000cca"
    loop = BenchTarget("/dev/loop7", TargetKind.DEVICE, dev="loop7")
    assert loop.confirm_token == "/dev/loop7"
    assert "path (it reports no serial number)" in (refusal(loop, writing=True, confirm="x") or "")


def test_fresh_directory_is_new_private_and_removed(tmp_path: Path) -> None:
    with FreshDirectory(tmp_path, "r1") as place:
        fresh = tmp_path / f"{FRESH_PREFIX}r1"
        assert oct(fresh.stat().st_mode & 0o777) == "0o700"
        assert Path(place.path).parent.samefile(fresh)  # /proc/PID/fd/N/nastui-bench.dat
        Path(place.path).write_bytes(b"x")
        assert (fresh / "nastui-bench.dat").read_bytes() == b"x"
    assert not fresh.exists()
    with (
        pytest.raises(GuardRefused, match="not a directory"),
        FreshDirectory(tmp_path / "no", "r2"),
    ):
        pass


def test_a_name_taken_is_never_reused_the_next_free_one_is_made(tmp_path: Path) -> None:
    """Another run's directory (going on, or left by a kill), a file or a link with the name:
    each is left exactly as it was, and the run gets a directory of its own."""
    (tmp_path / f"{FRESH_PREFIX}r1-2").write_text("a file")
    (tmp_path / f"{FRESH_PREFIX}r1-3").symlink_to(tmp_path / "elsewhere")
    with FreshDirectory(tmp_path, "r1") as first, FreshDirectory(tmp_path, "r1") as second:
        Path(first.path).write_bytes(b"first")
        Path(second.path).write_bytes(b"second")
        assert (tmp_path / f"{FRESH_PREFIX}r1" / "nastui-bench.dat").read_bytes() == b"first"
        assert (tmp_path / f"{FRESH_PREFIX}r1-4" / "nastui-bench.dat").read_bytes() == b"second"
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        f"{FRESH_PREFIX}r1-2",
        f"{FRESH_PREFIX}r1-3",
    ]
    assert (tmp_path / f"{FRESH_PREFIX}r1-2").read_text() == "a file"
    assert not (tmp_path / "elsewhere").exists()


def test_when_every_name_is_taken_the_run_is_refused(tmp_path: Path) -> None:
    (tmp_path / f"{FRESH_PREFIX}r9").mkdir()
    for n in range(2, MAX_TRIES + 1):
        (tmp_path / f"{FRESH_PREFIX}r9-{n}").mkdir()
    before = sorted(tmp_path.iterdir())
    with pytest.raises(GuardRefused, match="already exist"), FreshDirectory(tmp_path, "r9"):
        pass
    assert sorted(tmp_path.iterdir()) == before


def test_the_fresh_directory_is_reached_through_descriptors(tmp_path: Path) -> None:
    """Renaming the directory, or swapping the path named for another, during the run changes
    nothing: the tools' path leads to the directory made, and it is the one removed."""
    inspected, other = tmp_path / "inspected", tmp_path / "other"
    inspected.mkdir()
    other.mkdir()
    link = tmp_path / "link"
    link.symlink_to(inspected)
    target = BenchTarget(str(link), TargetKind.DIRECTORY)
    with workspace(target, "r6", writing=True) as place:
        link.unlink()
        link.symlink_to(other)
        (inspected / f"{FRESH_PREFIX}r6").rename(inspected / "moved")
        Path(place.path).write_bytes(b"data")
        assert (inspected / "moved" / "nastui-bench.dat").read_bytes() == b"data"
        (inspected / "moved").rename(inspected / f"{FRESH_PREFIX}r6")
    assert list(other.iterdir()) == [] and list(inspected.iterdir()) == []


def test_a_directory_swapped_since_the_inspection_is_refused(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    st = (tmp_path / "a").stat()
    devno = f"{os.major(st.st_dev)}:{os.minor(st.st_dev)}"
    target = BenchTarget(str(tmp_path / "a"), TargetKind.DIRECTORY, devno=devno, inode=st.st_ino)
    (tmp_path / "a").rename(tmp_path / "c")
    (tmp_path / "b").rename(tmp_path / "a")
    refused = pytest.raises(GuardRefused, match="no longer the directory inspected")
    with refused, workspace(target, "r7", writing=True):
        pass
    assert list((tmp_path / "a").iterdir()) == [] and list((tmp_path / "c").iterdir()) == []


def test_workspace_cleans_up_on_failure(tmp_path: Path) -> None:
    keep = tmp_path / "keep.txt"
    keep.write_text("mine")
    target = BenchTarget(str(tmp_path), TargetKind.DIRECTORY)
    with pytest.raises(RuntimeError), workspace(target, "r3", writing=True) as place:
        assert Path(place.path).name == "nastui-bench.dat"
        Path(place.path).write_bytes(b"test file")
        raise RuntimeError("fio died")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt"]


def test_reading_a_device_still_goes_through_a_descriptor() -> None:
    null = BenchTarget("/dev/null", TargetKind.DEVICE)
    with pytest.raises(GuardRefused, match="cannot be opened"), workspace(DEV, "r4", writing=False):
        pass
    with workspace(null, "r4", writing=False) as place:  # not a block device: no number
        assert place.path.startswith(f"/proc/{os.getpid()}/fd/")


def test_exclusive_hold_refuses_a_missing_device() -> None:
    missing = BenchTarget("/dev/nastui-no-such-device", TargetKind.DEVICE)
    with (
        pytest.raises(GuardRefused, match="cannot be opened"),
        workspace(missing, "r5", writing=True),
    ):
        pass


# ---------------------------------------------------------------- what the inspection reads
def test_mountinfo() -> None:
    text = (
        "36 35 98:0 /mnt1 /mnt/parent rw,noatime master:1 - ext3 /dev/root rw,errors=continue\n"
        "40 31 0:38 / /srv/my\\040data rw,relatime - btrfs /dev/loop3 rw,space_cache=v2\n"
        "garbage line\n"
    )
    mounts = parse_mountinfo(text)
    assert [(m.devno, m.mountpoint, m.fs_type, m.source) for m in mounts] == [
        ("98:0", "/mnt/parent", "ext3", "/dev/root"),
        ("0:38", "/srv/my data", "btrfs", "/dev/loop3"),
    ]


def test_swaps_blkid_wipefs_meminfo_arcstats() -> None:
    swaps = "Filename\tType\tSize\tUsed\tPriority\n/dev/sda2  partition\t8388604\t0\t-2\n"
    assert parse_swaps(swaps) == ["/dev/sda2"]
    blkid = "DEVNAME=/dev/loop0\nUUID=8486\nTYPE=ext4\nUSAGE=filesystem\n"
    assert parse_blkid(blkid)["TYPE"] == "ext4"
    wipefs = '{"signatures": [{"device": "loop0", "offset": "0x438", "type": "ext4"}]}'
    assert parse_wipefs(wipefs) == ["ext4 at 0x438"]
    assert parse_wipefs('{\n   "signatures": [\n\n   ]\n}') == []
    assert parse_wipefs("not json") == []
    assert parse_meminfo_total("MemTotal:       24684092 kB\nMemFree: 1 kB\n") == 24684092 * 1024
    arc = "c                   4    4158758912\nc_max               4    8317517824\n"
    assert parse_arc_max(arc) == 8317517824
    assert parse_arc_max("") is None
