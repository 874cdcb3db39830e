"""The btrfs collector through the real runner: a fake `btrfs` on PATH replaying this machine's
btrfs-progs 6.2 captures, a fake /proc/self/mountinfo and /sys/fs/btrfs tree."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from nastui.collectors.btrfs import collector as btrfs
from nastui.collectors.btrfs.collector import BtrfsCollector, parse_mountinfo
from nastui.collectors.sysfs import Mount
from nastui.model import CollectorError, Pool, PoolState, ScanKind, ScanState
from tests.fakepools import FIXTURES, FakeTools, install, write

LAB = FIXTURES / "btrfs/lab"
UUID = "13221045-9a98-406d-815c-0091e7818e6f"
MNT = "/srv/lab pool"
MOUNTINFO = "43 27 0:39 / /srv/lab\\040pool rw,relatime - btrfs /dev/loop0 rw,subvol=/\n"


@pytest.fixture
def tools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeTools:
    return install(tmp_path, monkeypatch)


def args(argv: tuple[str, ...]) -> str:
    return " ".join(argv[1:])


def root_tree(tmp_path: Path, mountinfo: str = MOUNTINFO) -> Path:
    root = tmp_path / "root"
    write(root / "proc/self/mountinfo", "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n" + mountinfo)
    (root / "sys/fs/btrfs" / UUID / "allocation/data/raid1").mkdir(parents=True)
    write(root / "sys/fs/btrfs" / UUID / "sectorsize", "4096\n")
    return root


def lab_answers(tools: FakeTools, show: str = "btrfs_filesystem_show_--raw__raid1.txt") -> None:
    text = (LAB / show).read_text().replace("f519db33-6db6-4f3c-90f9-1bebedbbd9c4", UUID)
    tools.answer("btrfs", args(btrfs.show_argv()), text)
    tools.answer_file(
        "btrfs", args(btrfs.stats_argv(MNT)), LAB / "btrfs_device_stats__corrected.txt"
    )
    for raw, name in ((False, "--raw"), (True, "-R")):
        path = LAB / f"btrfs_scrub_status_{name}__finished_corrected.txt"
        tools.answer_file("btrfs", args(btrfs.scrub_argv(MNT, raw_counters=raw)), path)
    tools.answer_file(
        "btrfs", args(btrfs.replace_argv(MNT)), LAB / "btrfs_replace_status_-1__never.txt"
    )


def collect(root: Path) -> tuple[tuple[Pool, ...], tuple[CollectorError, ...]]:
    return asyncio.run(BtrfsCollector(root).collect(1795250400.0))


def test_argv() -> None:
    assert btrfs.show_argv() == ("btrfs", "filesystem", "show", "--raw")
    assert btrfs.stats_argv("/m") == ("btrfs", "device", "stats", "/m")
    assert btrfs.scrub_argv("/m", raw_counters=False) == ("btrfs", "scrub", "status", "--raw", "/m")
    assert btrfs.scrub_argv("/m", raw_counters=True) == ("btrfs", "scrub", "status", "-R", "/m")
    assert btrfs.replace_argv("/m") == ("btrfs", "replace", "status", "-1", "/m")


def test_mountinfo_unescapes_and_keeps_btrfs_only() -> None:
    assert parse_mountinfo("22 1 8:1 / / rw - ext4 /dev/sda1 rw\n" + MOUNTINFO) == [
        Mount("/dev/loop0", MNT, "/", "rw,subvol=/", "btrfs", "0:39")
    ]
    degraded = parse_mountinfo((LAB / "mountinfo__degraded.txt").read_text())
    assert degraded[0].options.startswith("rw,degraded")


def test_mounted_raid1(tools: FakeTools, tmp_path: Path) -> None:
    lab_answers(tools)
    pools, errors = collect(root_tree(tmp_path))
    assert errors == ()
    (pool,) = pools
    assert (pool.name, pool.mountpoint, pool.uuid, pool.state) == (
        "nastui-lab",
        MNT,
        UUID,
        PoolState.ONLINE,
    )
    assert pool.root.children[0].name == "raid1"  # the data profile, from sysfs
    assert pool.last_scrub is not None and pool.last_scrub.repaired_bytes == 4096 * 4096
    assert len(tools.calls) == 5


def test_replace_running(tools: FakeTools, tmp_path: Path) -> None:
    lab_answers(tools, "btrfs_filesystem_show_--raw__replacing.txt")
    tools.answer_file(
        "btrfs", args(btrfs.replace_argv(MNT)), LAB / "btrfs_replace_status_-1__running.txt"
    )
    (pool,), _ = collect(root_tree(tmp_path))
    assert pool.scan is not None
    assert (pool.scan.kind, pool.scan.state) == (ScanKind.REPLACE, ScanState.RUNNING)


def test_unmounted_complete_is_skipped_and_incomplete_shown(
    tools: FakeTools, tmp_path: Path
) -> None:
    lab_answers(tools)
    assert collect(root_tree(tmp_path, mountinfo="")) == ((), ())
    missing = (LAB / "btrfs_filesystem_show_--raw__missing.txt").read_text()
    tools.answer("btrfs", args(btrfs.show_argv()), missing)
    (pool,), errors = collect(root_tree(tmp_path / "2", mountinfo=""))
    assert errors == () and pool.state is PoolState.DEGRADED and pool.mountpoint is None
    assert tools.calls[-1] == "btrfs filesystem show --raw"  # nothing run on an unmounted fs


def test_not_root(tools: FakeTools, tmp_path: Path) -> None:
    tools.answer(
        "btrfs", args(btrfs.show_argv()), "", "ERROR: cannot open /dev/loop1: Permission denied\n"
    )
    assert collect(root_tree(tmp_path)) == ((), (CollectorError("btrfs", btrfs.NEEDS_ROOT),))


def test_not_installed(tools: FakeTools, tmp_path: Path) -> None:
    assert collect(root_tree(tmp_path)) == ((), (CollectorError("btrfs", btrfs.NOT_INSTALLED),))


def test_unreadable_scrub_status_is_a_note_and_the_pool_stays(
    tools: FakeTools, tmp_path: Path
) -> None:
    lab_answers(tools)
    tools.answer("btrfs", args(btrfs.scrub_argv(MNT, raw_counters=False)), "Status: exploded\n")
    pools, errors = collect(root_tree(tmp_path))
    assert errors == ()
    (pool,) = pools
    assert (pool.name, pool.state.value) == ("nastui-lab", "ONLINE")
    assert pool.notes == (
        "btrfs scrub status line 1: unreadable value ('exploded'): 'Status: exploded'",
    )


def test_finished_scrub_without_counters_asks_minus_r_once_more(
    tools: FakeTools, tmp_path: Path
) -> None:
    """Seen on the real kernel: `-R` asked the moment a scrub ends has no counters yet; the
    collector asks once more, and degrades to no byte figure (never a wrong one) if it still
    has none."""
    lab_answers(tools)
    no_counters = LAB / "btrfs_scrub_status_--raw__finished_corrected.txt"
    tools.answer_file("btrfs", args(btrfs.scrub_argv(MNT, raw_counters=True)), no_counters)
    (pool,), errors = collect(root_tree(tmp_path))
    assert errors == () and pool.scan is not None and pool.scan.state is ScanState.FINISHED
    assert pool.scan.bytes_done is None and pool.scan.bytes_total is not None
    assert tools.calls.count(f"btrfs {args(btrfs.scrub_argv(MNT, raw_counters=True))}") == 2


def test_running_scrub_asks_minus_r_once(tools: FakeTools, tmp_path: Path) -> None:
    lab_answers(tools)
    for raw, name in ((False, "--raw"), (True, "-R")):
        path = LAB / f"btrfs_scrub_status_{name}__running.txt"
        tools.answer_file("btrfs", args(btrfs.scrub_argv(MNT, raw_counters=raw)), path)
    (pool,), _ = collect(root_tree(tmp_path))
    assert pool.scan is not None and pool.scan.state is ScanState.RUNNING
    assert pool.scan.bytes_done is not None
    assert tools.calls.count(f"btrfs {args(btrfs.scrub_argv(MNT, raw_counters=True))}") == 1


PARTITIONS = (
    "major minor  #blocks  name\n\n   7        0     262144 loop0\n   7        1     262144 loop1\n"
)
FULL = f"btrfs {args(btrfs.show_argv())}"
MOUNTED = f"btrfs {args(btrfs.mounted_show_argv())}"


def polled(tools: FakeTools, collector: BtrfsCollector) -> tuple[Pool, ...]:
    pools, errors = asyncio.run(collector.collect(1795250400.0))
    assert errors == ()
    return pools


def test_the_device_scan_runs_once_then_only_when_devices_or_mounts_change(
    tools: FakeTools, tmp_path: Path
) -> None:
    """`filesystem show` without `--mounted` probes every block device (it would wake a drive
    in standby at every poll): it runs on the first poll and when /proc/partitions or the btrfs
    mounts change; polls in between ask the kernel for the mounted ones only."""
    lab_answers(tools)
    raid1 = (LAB / "btrfs_filesystem_show_--raw__raid1.txt").read_text()
    tools.answer(
        "btrfs",
        args(btrfs.mounted_show_argv()),
        raid1.replace("f519db33-6db6-4f3c-90f9-1bebedbbd9c4", UUID),
    )
    root = root_tree(tmp_path)
    write(root / "proc/partitions", PARTITIONS)
    collector = BtrfsCollector(root)
    first = polled(tools, collector)
    assert (tools.calls.count(FULL), tools.calls.count(MOUNTED)) == (1, 0)
    assert polled(tools, collector) == polled(tools, collector) == first
    assert (tools.calls.count(FULL), tools.calls.count(MOUNTED)) == (1, 2)
    write(root / "proc/partitions", PARTITIONS + "   8        0  976762584 sda\n")  # a drive in
    assert polled(tools, collector) == first
    assert (tools.calls.count(FULL), tools.calls.count(MOUNTED)) == (2, 2)
    write(root / "proc/self/mountinfo", "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n")  # unmounted
    assert polled(tools, collector) == ()  # complete and unmounted: none of nastui's business
    assert (tools.calls.count(FULL), tools.calls.count(MOUNTED)) == (3, 2)


def test_unmounted_incomplete_filesystems_are_kept_between_scans(
    tools: FakeTools, tmp_path: Path
) -> None:
    missing = (LAB / "btrfs_filesystem_show_--raw__missing.txt").read_text()
    tools.answer("btrfs", args(btrfs.show_argv()), missing)
    tools.answer("btrfs", args(btrfs.mounted_show_argv()), "")
    root = root_tree(tmp_path, mountinfo="")
    write(root / "proc/partitions", PARTITIONS)
    collector = BtrfsCollector(root)
    (pool,) = polled(tools, collector)
    assert pool.state is PoolState.DEGRADED and pool.mountpoint is None
    assert polled(tools, collector) == (pool,)
    assert (tools.calls.count(FULL), tools.calls.count(MOUNTED)) == (1, 1)


def test_without_mounted_the_full_scan_answers_every_poll(tools: FakeTools, tmp_path: Path) -> None:
    """btrfs-progs that refuses `--mounted` (or fails) leaves the full scan, as before."""
    lab_answers(tools)
    tools.answer(
        "btrfs", args(btrfs.mounted_show_argv()), "", "unrecognized option '--mounted'\n", 1
    )
    root = root_tree(tmp_path)
    write(root / "proc/partitions", PARTITIONS)
    collector = BtrfsCollector(root)
    first = polled(tools, collector)
    assert polled(tools, collector) == first and len(first) == 1
    assert (tools.calls.count(FULL), tools.calls.count(MOUNTED)) == (2, 1)
