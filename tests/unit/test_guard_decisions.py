"""The guard's decisions (pure) and its workspace on real directories: who may write, what must
be typed, and fresh directories that are always removed. The guard on real loop devices is in
tests/integration/test_guard_loops.py."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from nastui.bench.guard import (
    GuardRefused,
    fresh_directory,
    refusal,
    remove_fresh,
    workspace,
)
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
    fresh = fresh_directory(tmp_path, "r1")
    assert fresh.name == "nastui-bench-r1" and oct(fresh.stat().st_mode & 0o777) == "0o700"
    with pytest.raises(GuardRefused, match="already exists"):
        fresh_directory(tmp_path, "r1")
    (fresh / "data").write_bytes(b"x")
    remove_fresh(fresh)
    assert not fresh.exists()
    with pytest.raises(ValueError, match="not a benchmark's own"):
        remove_fresh(tmp_path)
    with pytest.raises(GuardRefused, match="not a directory"):
        fresh_directory(tmp_path / "missing", "r2")


def test_workspace_cleans_up_on_failure(tmp_path: Path) -> None:
    keep = tmp_path / "keep.txt"
    keep.write_text("mine")
    target = BenchTarget(str(tmp_path), TargetKind.DIRECTORY)
    with pytest.raises(RuntimeError), workspace(target, "r3", writing=True) as path:
        assert path.parent.name == "nastui-bench-r3"
        path.write_bytes(b"test file")
        raise RuntimeError("fio died")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt"]


def test_reading_a_device_does_not_hold_it() -> None:
    with workspace(DEV, "r4", writing=False) as path:
        assert path == Path(DEV.path)


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
