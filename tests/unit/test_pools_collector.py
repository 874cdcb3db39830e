"""The pool collector as LocalBackend runs it: ZFS, md and btrfs together from fake tools and a
fake tree, leaves resolved to drives, schedules attached, one line for a missing stack."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from nastui.collectors.btrfs import collector as btrfs
from nastui.collectors.pools import LeafResolver, PoolCollector, whole_disk
from nastui.collectors.schedule import read_schedules, schedule_for, schedules_from, unescape_unit
from nastui.collectors.zfs import collector as zfs
from nastui.model import (
    CollectorError,
    CollectorMode,
    CollectorsConfig,
    Drive,
    DriveIdentity,
    Pool,
    PoolKind,
    PoolState,
    ScanKind,
    ScanState,
    Vdev,
)
from tests.fakepools import FIXTURES, FakeTools, install, link, md_tree, write

DRIVES = (
    Drive("sda", DriveIdentity(serial="S-A"), by_id=("wwn-0x500000000000000a",)),
    Drive("sdb", DriveIdentity(serial="S-B"), by_id=("ata-HGST_HUS724040ALA640_S-B",)),
    Drive("sdc", DriveIdentity(serial="S-C"), by_id=("wwn-0x500000000000000c",)),
    Drive("sdd", DriveIdentity(serial="S-D"), by_path="pci-0000:00:17.0-ata-4"),
    Drive("nvme0n1", DriveIdentity(wwn="eui.1"), by_id=("nvme-Samsung_SSD_970_EVO_S1",)),
)
MDSTAT = (
    "Personalities : [raid1]\n"
    "md0 : active raid1 sdb2[1] sdd3[0]\n"
    "      1046528 blocks super 1.2 [2/2] [UU]\n"
    "      [=>...................]  check =  5.7% (59656/1046528) finish=0.2min speed=114176K/sec\n"
    "\nunused devices: <none>\n"
)


@pytest.fixture
def tools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeTools:
    return install(tmp_path, monkeypatch)


@pytest.mark.parametrize(
    ("name", "disk"),
    [("sdc1", "sdc"), ("nvme0n1p3", "nvme0n1"), ("xvda2", "xvda"), ("ata-X_Y-part1", "ata-X_Y"),
     ("sdc", "sdc"), ("nvme0n1", "nvme0n1"), ("md0p1", "md0p1")],
)  # fmt: skip
def test_whole_disk(name: str, disk: str) -> None:
    assert whole_disk(name) == disk


def test_leaf_resolution(tmp_path: Path) -> None:
    link(tmp_path / "dev/disk/by-partuuid/ca1eb824", "../../sdc1")
    link(tmp_path / "dev/disk/by-vdev/A0", "../../sdd")
    resolver = LeafResolver(DRIVES, tmp_path)
    assert resolver.key("wwn-0x500000000000000a") == "S-A"
    assert resolver.key("wwn-0x500000000000000c-part1") == "S-C"
    assert resolver.key("ata-HGST_HUS724040ALA640_S-B-part9") == "S-B"
    assert resolver.key("/dev/disk/by-id/ata-HGST_HUS724040ALA640_S-B") == "S-B"
    assert resolver.key("sdb1") == "S-B"
    assert resolver.key("/dev/sdd") == "S-D"
    assert resolver.key("nvme0n1p3") == "eui.1"
    assert resolver.key("/dev/disk/by-partuuid/ca1eb824") == "S-C"
    assert resolver.key("ca1eb824") == "S-C"  # a JSON leaf name without its path
    assert resolver.key("A0") == "S-D"
    assert resolver.key("loop0") is None
    assert resolver.key("pci-0000:00:17.0-ata-4-part2") == "S-D"


def etc_tree(root: Path) -> None:
    link(
        root / "etc/systemd/system/timers.target.wants/zfs-scrub-monthly@sparepool.timer",
        "/lib/systemd/system/zfs-scrub-monthly@.timer",
    )
    write(root / "lib/systemd/system/zfs-scrub-monthly@.timer", "[Timer]\nOnCalendar=monthly\n")
    write(
        root / "etc/cron.d/mdadm",
        "# cron\n57 0 * * 0 root if [ -x /usr/share/mdadm/checkarray ] && [ $(date +\\%d) -le 7 ]; "
        "then /usr/share/mdadm/checkarray --cron --all --idle --quiet; fi\n",
    )


def everything(tools: FakeTools, root: Path) -> None:
    tools.answer("zpool", " ".join(zfs.status_json_argv()[1:]), "", "invalid option 'j'\n", 2)
    tools.answer_file(
        "zpool",
        " ".join(zfs.status_text_argv()[1:]),
        FIXTURES / "zpool/status/libzetta/mod.rs_L495_stdout.txt",
    )
    tools.answer("zpool", " ".join(zfs.list_argv()[1:]), "sparepool\t3\t1\t7\tDEGRADED\n")
    tools.answer("zfs", " ".join(zfs.space_argv()[1:]), "sparepool\t100\t300\n")
    md_tree(root, MDSTAT, {"md0": {"sync_action": "check", "mismatch_cnt": "0"}})
    etc_tree(root)


def collect(collector: PoolCollector, now: float) -> tuple[dict[str, Pool], tuple[object, ...]]:
    report = asyncio.run(collector.collect(now, DRIVES))
    return {p.name: p for p in report.pools}, report.errors


def test_zfs_md_and_btrfs_together(tools: FakeTools, tmp_path: Path) -> None:
    root = tmp_path / "root"
    everything(tools, root)
    tools.answer_file(
        "btrfs",
        " ".join(btrfs.show_argv()[1:]),
        FIXTURES / "btrfs/lab/btrfs_filesystem_show_--raw__missing.txt",
    )
    pools, errors = collect(PoolCollector(root), 1000.0)
    assert errors == ()
    assert sorted(pools) == ["md0", "nastui-lab", "sparepool"]
    zpool = pools["sparepool"]
    assert zpool.scrub_schedule == "zfs-scrub-monthly@sparepool.timer (monthly)"
    assert zpool.member_drives() == ("S-A", "S-C")
    assert (zpool.size_bytes, zpool.fragmentation_percent) == (400, 7)
    md = pools["md0"]
    assert md.scrub_schedule == "cron.d/mdadm: 57 0 * * 0"
    assert md.member_drives() == ("S-D", "S-B")  # in role order: sdd3[0], sdb2[1]
    assert pools["nastui-lab"].kind is PoolKind.BTRFS


def test_missing_zpool_is_one_line_and_the_rest_shows(tools: FakeTools, tmp_path: Path) -> None:
    root = tmp_path / "root"
    md_tree(root, MDSTAT)
    tools.answer("btrfs", " ".join(btrfs.show_argv()[1:]), "")
    switched_on = CollectorsConfig(zfs=CollectorMode.ON)  # auto: absent, off (no error)
    pools, errors = collect(PoolCollector(root, switches=switched_on), 1000.0)
    assert list(pools) == ["md0"]
    assert errors == (CollectorError("zfs", zfs.NOT_INSTALLED),)


def test_runs_the_tools_once_per_interval(tools: FakeTools, tmp_path: Path) -> None:
    root = tmp_path / "root"
    everything(tools, root)
    tools.answer("btrfs", " ".join(btrfs.show_argv()[1:]), "")
    collector = PoolCollector(root, interval=10.0)
    first = asyncio.run(collector.collect(1000.0, DRIVES))
    calls = len(tools.calls)
    assert asyncio.run(collector.collect(1005.0, DRIVES)) is first
    assert len(tools.calls) == calls
    asyncio.run(collector.collect(1010.0, DRIVES))
    assert len(tools.calls) > calls


def test_md_check_seen_finishing_becomes_the_last_check(tools: FakeTools, tmp_path: Path) -> None:
    root = tmp_path / "root"
    md_tree(root, MDSTAT, {"md0": {"sync_action": "check", "sync_completed": "1040000 / 2093056"}})
    tools.answer("btrfs", " ".join(btrfs.show_argv()[1:]), "")
    collector = PoolCollector(root, interval=0.0)
    pools, _ = collect(collector, 1000.0)
    assert pools["md0"].scan is not None and pools["md0"].last_scrub is None
    md_tree(root, MDSTAT, {"md0": {"sync_completed": "2093000 / 2093056"}})
    collect(collector, 1010.0)
    idle = "".join(line for line in MDSTAT.splitlines(keepends=True) if "check =" not in line)
    md_tree(root, idle, {"md0": {"sync_action": "idle", "sync_completed": "none"}})
    pools, _ = collect(collector, 1020.0)
    last = pools["md0"].last_scrub
    assert last is not None and (last.kind, last.state, last.ended_at) == (
        ScanKind.CHECK,
        ScanState.FINISHED,
        1020.0,
    )
    pools, _ = collect(collector, 1030.0)
    assert pools["md0"].last_scrub == last  # kept while this process runs


def test_rate_comes_from_samples(tools: FakeTools, tmp_path: Path) -> None:
    root = tmp_path / "root"
    tools.answer("btrfs", " ".join(btrfs.show_argv()[1:]), "")
    collector = PoolCollector(root, interval=0.0)
    # sysfs ahead of MDSTAT's 5.7 % (119312 sectors) throughout: the further figure is used
    for t, sectors in ((0.0, 120_000), (10.0, 320_000), (20.0, 520_000)):
        md_tree(
            root,
            MDSTAT,
            {"md0": {"sync_action": "check", "sync_completed": f"{sectors} / 2093056"}},
        )
        pools, _ = collect(collector, 1000.0 + t)
    scan = pools["md0"].scan
    assert scan is not None and scan.rate_bytes_per_s == pytest.approx(200_000 * 512 / 10)


def test_schedules_from_tree(tmp_path: Path) -> None:
    etc_tree(tmp_path)
    write(tmp_path / "etc/cron.monthly/scrub-media", "#!/bin/sh\nbtrfs scrub start -B /srv/media\n")
    write(tmp_path / "etc/default/btrfsmaintenance", 'BTRFS_SCRUB_MOUNTPOINTS="/:/home"\n')
    link(tmp_path / "etc/systemd/system/timers.target.wants/btrfs-scrub.timer", "x")
    link(tmp_path / "etc/systemd/system/timers.target.wants/btrfs-scrub@srv-data.timer", "x")
    link(tmp_path / "etc/systemd/system/multi-user.target.wants/ssh.service", "x")
    texts = sorted(s.text for s in read_schedules(tmp_path))
    assert texts == [
        "btrfs-scrub.timer (btrfsmaintenance)",
        "btrfs-scrub@srv-data.timer",
        "cron.d/mdadm: 57 0 * * 0",
        "cron.monthly/scrub-media (monthly)",
        "zfs-scrub-monthly@sparepool.timer (monthly)",
    ]


def test_schedule_matching() -> None:
    schedules = schedules_from(
        {"btrfs-scrub@srv-data.timer": "weekly", "zfs-scrub-weekly@tank.timer": "weekly"},
        {"crontab": "0 3 * * 0 root zpool scrub -w backup\n", "cron.d/zfsutils-linux": (
            "24 0 8-14 * * root if [ $(date +\\%w) -eq 0 ] && [ -x /usr/lib/zfs-linux/scrub ]; "
            "then /usr/lib/zfs-linux/scrub; fi\n")},
    )  # fmt: skip

    def pool(name: str, kind: PoolKind, mountpoint: str | None = None) -> Pool:
        return Pool(
            name,
            kind,
            PoolState.ONLINE,
            Vdev(name, "root", PoolState.ONLINE),
            mountpoint=mountpoint,
        )

    assert schedule_for(pool("tank", PoolKind.ZFS), schedules) == (
        "zfs-scrub-weekly@tank.timer (weekly); cron.d/zfsutils-linux: 24 0 8-14 * *"
    )
    assert schedule_for(pool("backup", PoolKind.ZFS), schedules) == (
        "cron.d/zfsutils-linux: 24 0 8-14 * *; crontab: 0 3 * * 0"
    )
    assert schedule_for(pool("data", PoolKind.BTRFS, "/srv/data"), schedules) == (
        "btrfs-scrub@srv-data.timer (weekly)"
    )
    assert schedule_for(pool("md0", PoolKind.MDRAID), schedules) is None
    assert unescape_unit("srv-my\\x2dpool") == "/srv/my-pool"
