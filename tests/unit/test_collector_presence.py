"""Absent vs broken pool stacks: an absent subsystem in `auto` is "off" (no UNKNOWN), a broken
one is UNKNOWN, `[collectors]` switches a stack on or off; md usage from the mounted fs."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import NamedTuple

import pytest

from nastui.collectors.btrfs import collector as btrfs
from nastui.collectors.pools import PoolCollector, PoolReport
from nastui.collectors.presence import with_fs_usage
from nastui.collectors.zfs import collector as zfs
from nastui.model import (
    CollectorError,
    CollectorMode,
    CollectorsConfig,
    CollectorState,
    Pool,
    PoolKind,
    PoolState,
    Vdev,
)
from tests.fakepools import FIXTURES, FakeTools, install, md_tree, write

MDSTAT = (
    "Personalities : [raid1]\n"
    "md0 : active raid1 sdb2[1] sdd3[0]\n"
    "      1046528 blocks super 1.2 [2/2] [UU]\n"
    "\nunused devices: <none>\n"
)
NO_ARRAYS = "Personalities : [raid1]\nunused devices: <none>\n"
NO_MODULE = (FIXTURES / "zpool/status/zpool_status__no_module.stderr").read_text()
ROOT = Vdev("md", "root", PoolState.ONLINE)
AUTO, ON, OFF = CollectorMode.AUTO, CollectorMode.ON, CollectorMode.OFF


@pytest.fixture
def tools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeTools:
    return install(tmp_path, monkeypatch)


def poll(root: Path, **modes: CollectorMode) -> PoolReport:
    collector = PoolCollector(root, switches=CollectorsConfig(**modes))
    return asyncio.run(collector.collect(1000.0))


def states(report: PoolReport) -> dict[str, tuple[str, str]]:
    return {s.name: (s.state, s.detail) for s in report.states}


def zpool_without_module(tools: FakeTools) -> None:
    for argv in (zfs.status_json_argv(), zfs.list_argv(), zfs.space_argv()):
        tools.answer(argv[0], " ".join(argv[1:]), err=NO_MODULE, code=1)


def test_a_box_without_any_stack_has_every_collector_off(tools: FakeTools, tmp_path: Path) -> None:
    report = poll(tmp_path / "root")
    assert report.errors == ()
    assert states(report) == {
        "zfs": ("off", "no zpool, no zfs module"),
        "md": ("off", "no /proc/mdstat (md module not loaded)"),
        "btrfs": ("off", "no btrfs-progs, no btrfs filesystem"),
    }
    assert tools.calls == []  # nothing is run for a stack that is not there


def test_zpool_installed_without_its_module_is_off(tools: FakeTools, tmp_path: Path) -> None:
    zpool_without_module(tools)
    report = poll(tmp_path / "root")
    assert report.errors == ()
    detail = "zfs module not loaded, no ZFS pool known (zpool: The ZFS modules are not loaded.)"
    assert states(report)["zfs"] == ("off", detail)


def test_zpool_failing_on_a_loaded_module_is_unknown(tools: FakeTools, tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "sys/module/zfs").mkdir(parents=True)
    argv = zfs.status_json_argv()
    tools.answer(argv[0], " ".join(argv[1:]), err="internal error: Bad address\n", code=1)
    report = poll(root)
    assert [e.source for e in report.errors] == ["zfs"]
    assert "zpool status failed" in report.errors[0].message
    assert states(report)["zfs"] == ("on", "")


def test_a_loaded_module_without_zpool_is_unknown(tools: FakeTools, tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "sys/module/zfs").mkdir(parents=True)
    report = poll(root)
    assert report.errors == (CollectorError("zfs", zfs.NOT_INSTALLED),)


def test_switched_on_a_missing_stack_is_unknown(tools: FakeTools, tmp_path: Path) -> None:
    root = tmp_path / "root"
    md_tree(root, NO_ARRAYS)
    report = poll(root, zfs=ON, md=ON, btrfs=ON)
    by_source = {e.source: e.message for e in report.errors}
    assert by_source["zfs"] == zfs.NOT_INSTALLED
    assert by_source["btrfs"] == btrfs.NOT_INSTALLED
    assert by_source["md"] == "md switched on in [collectors] but no arrays: load md_mod"


def test_switched_off_never_runs(tools: FakeTools, tmp_path: Path) -> None:
    zpool_without_module(tools)
    tools.answer("btrfs", " ".join(btrfs.show_argv()[1:]), "")
    root = tmp_path / "root"
    md_tree(root, MDSTAT)
    report = poll(root, zfs=OFF, md=OFF, btrfs=OFF)
    assert report.pools == () and report.errors == ()
    assert {s.state for s in report.states} == {"disabled"}
    assert tools.calls == []


def test_btrfs_progs_finding_nothing_is_off(tools: FakeTools, tmp_path: Path) -> None:
    tools.answer("btrfs", " ".join(btrfs.show_argv()[1:]), "")
    report = poll(tmp_path / "root")
    assert states(report)["btrfs"] == ("off", "no btrfs filesystem")


def test_btrfs_with_a_missing_device_is_on(tools: FakeTools, tmp_path: Path) -> None:
    tools.answer_file(
        "btrfs",
        " ".join(btrfs.show_argv()[1:]),
        FIXTURES / "btrfs/lab/btrfs_filesystem_show_--raw__missing.txt",
    )
    report = poll(tmp_path / "root")
    assert states(report)["btrfs"] == ("on", "")
    assert [p.kind for p in report.pools] == [PoolKind.BTRFS]


def test_md_arrays_are_on(tools: FakeTools, tmp_path: Path) -> None:
    root = tmp_path / "root"
    md_tree(root, MDSTAT)
    report = poll(root)
    assert states(report)["md"] == ("on", "")
    assert [p.name for p in report.pools] == ["md0"]


class Stats(NamedTuple):
    f_frsize: int
    f_blocks: int
    f_bfree: int
    f_bavail: int


# Sample: a line of /proc/self/mountinfo with ext4 on an md array
MOUNTINFO = "36 25 9:0 / /srv/data rw,relatime shared:1 - ext4 /dev/md0 rw\n"


def test_md_usage_is_the_mounted_filesystems(tmp_path: Path) -> None:
    write(tmp_path / "proc/self/mountinfo", MOUNTINFO)
    (tmp_path / "srv/data").mkdir(parents=True)
    seen: list[str] = []

    def statvfs(path: str) -> Stats:
        seen.append(path)
        return Stats(4096, 1000, 100, 50)  # used 900 blocks, 50 more available to users

    md0 = Pool("md0", PoolKind.MDRAID, PoolState.ONLINE, ROOT, size_bytes=1 << 30)
    other = Pool("md1", PoolKind.MDRAID, PoolState.ONLINE, ROOT, size_bytes=1 << 30)
    used, untouched = with_fs_usage([md0, other], tmp_path, statvfs)
    assert seen == [str(tmp_path / "srv/data")]
    assert (used.size_bytes, used.allocated_bytes) == (950 * 4096, 900 * 4096)
    assert used.used_percent is not None and round(used.used_percent) == 95
    assert untouched == other


def test_states_reach_the_snapshot(tools: FakeTools, tmp_path: Path) -> None:
    report = poll(tmp_path / "root")
    assert CollectorState("md", "off", "no /proc/mdstat (md module not loaded)") in report.states
