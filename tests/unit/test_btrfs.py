"""btrfs-progs output from every capture in tests/fixtures/btrfs (rockstor's test strings and
this machine's own btrfs-progs 6.2 runs), and the filesystems they make as pools."""

from __future__ import annotations

from pathlib import Path

import pytest

from nastui.collectors.btrfs.pool import BtrfsFacts, btrfs_pool, merge_scrub, usable_size
from nastui.collectors.btrfs.scrub import parse_scrub_status
from nastui.collectors.btrfs.text import (
    parse_device_stats,
    parse_filesystem_show,
    parse_filesystem_show_report,
    parse_replace_status,
)
from nastui.model import PoolState, ScanKind, ScanState
from nastui.model.errors import ParseError
from tests.unit.test_zfs_text import shape

BTRFS = Path(__file__).resolve().parent.parent / "fixtures/btrfs"
ROCK = BTRFS / "rockstor"
LAB = BTRFS / "lab"
NOW = 1795250000.0  # the lab machine's clock, shortly after the captures (Nov 2026)

# capture -> filesystems: (label, total devices, devices listed, devices missing)
SHOW: dict[str, list[tuple[str, int, int, int]]] = {
    "test_degraded_pools_found_L2147.txt": [
        ("rockstor_install-test", 1, 1, 0), ("rock-pool-2", 2, 2, 0), ("rock-pool", 3, 2, 1)],
    "test_degraded_pools_found_L2172.txt": [
        ("rockstor_install-test", 1, 1, 0), ("rock-pool-2", 2, 2, 0), ("rock-pool", 3, 1, 2)],
    "test_degraded_pools_found_L2197.txt": [
        ("rockstor_install-test", 1, 1, 0), ("rock-pool-2", 2, 1, 1), ("rock-pool", 3, 1, 2)],
    "test_degraded_pools_found_L2229.txt": [
        ("rockstor_install-test", 1, 1, 0), ("rock-pool", 3, 1, 2), ("rock-pool-2", 2, 1, 1)],
    "test_degraded_pools_found_L2256.txt": [("rockstor_install-test", 1, 1, 0)],
    "test_degraded_pools_found_L2270.txt": [
        ("rockstor_install-test", 1, 1, 0), ("rock-pool", 3, 2, 1)],
    "test_degraded_pools_found_L2292.txt": [
        ("rockstor_install-test", 1, 1, 0), ("rock-pool", 3, 2, 1), ("rock-pool-2", 2, 1, 1)],
    "test_degraded_pools_found_L2337.txt": [
        ("rockstor_install-test", 1, 1, 0), ("rock-pool-3", 1, 1, 0), ("rock-pool-2", 2, 1, 1),
        ("rock-pool", 2, 1, 1)],
    "test_degraded_pools_found_L2376.txt": [
        ("rockstor_install-test", 1, 1, 0), ("rock-pool-2", 2, 2, 0), ("rock-pool", 3, 1, 2)],
    "test_degraded_pools_found_L2411.txt": [("ROOT", 1, 1, 0), ("test-pool-new-kernel", 4, 4, 1)],
    "test_pool_missing_dev_count_L1937.txt": [("test-pool-new-kernel", 4, 4, 1)],
    "test_pool_missing_dev_count_L1956.txt": [("test-pool-new-kernel", 3, 3, 0)],
    "test_pool_missing_dev_count_L1974.txt": [("test-pool-new-kernel", 3, 3, 1)],
    "test_pool_missing_dev_count_L1991.txt": [("test-pool-new-kernel", 3, 3, 2)],
    "test_pool_missing_dev_count_L2008.txt": [("test-pool-new-kernel", 3, 1, 2)],
    "test_pool_missing_dev_count_L2027.txt": [("test-pool-default-kernel", 4, 3, 1)],
    "test_pool_missing_dev_count_L2047.txt": [("test-pool-default-kernel", 3, 1, 2)],
    "test_pool_missing_dev_count_L2072.txt": [("test-pool-default-kernel", 4, 3, 1)],
    "test_pool_missing_dev_count_L2090.txt": [("test-pool-new-kernel", 4, 4, 1)],
    "test_pool_missing_dev_count_L2107.txt": [("ROOT", 1, 1, 0)],
}  # fmt: skip

# capture -> (state, started, duration s, bytes done, bytes total, percent, errors, corrected)
SCRUB: dict[str, tuple[object, ...]] = {
    "rockstor/test_scrub_status_extra_finished_L1716.txt":
        ("finished", 1676027790.0, 8, None, round(4.15 * 2**30), None, 0, 0),
    "rockstor/test_scrub_status_extra_halted_L1692.txt":
        ("interrupted", 1676030428.0, 0, None, round(4.15 * 2**30), None, 0, 0),
    "rockstor/test_scrub_status_extra_running_L1661.txt":
        ("running", 1676029634.0, 1, round(404.88 * 2**20), round(4.15 * 2**30), 9.53, 0, 0),
    "rockstor/test_scrub_status_raw_cancelled_L1606.txt":
        ("canceled", 1675968728.0, 1, 1206571008 + 61489152, None, None, 0, 0),
    "rockstor/test_scrub_status_raw_cancelled_legacy_L1552.txt":
        ("canceled", 1502119792.0, 296, 83593609216 + 152354816, None, None, 0, 0),
    "rockstor/test_scrub_status_raw_conn_reset_legacy_L1517.txt":
        ("never", None, None, 0, None, None, 0, 0),
    "rockstor/test_scrub_status_raw_finished_L1353.txt":
        ("finished", 1675954472.0, 4, 4384448512 + 68517888, None, None, 0, 0),
    "rockstor/test_scrub_status_raw_finished_legacy_L1300.txt":
        ("finished", 1502037583.0, 16, 2881429504 + 86245376, None, None, 0, 0),
    "rockstor/test_scrub_status_raw_halted_L1461.txt":
        ("interrupted", 1675969815.0, 0, 415387648 + 68517888, None, None, 0, 0),
    "rockstor/test_scrub_status_raw_halted_legacy_L1407.txt":
        ("interrupted", 1502021919.0, 9, 2286493696 + 151748608, None, None, 0, 0),
    "rockstor/test_scrub_status_raw_running_L1245.txt":
        ("running", 1675967421.0, 0, 6397952 + 68468736, None, None, 0, 0),
    "rockstor/test_scrub_status_raw_running_legacy_L1193.txt":
        ("running", 1502032117.0, 5, 832385024 + 73646080, None, None, 0, 0),
    "lab/btrfs_scrub_status__never.txt":
        ("never", None, None, None, round(600.91 * 2**20), None, 0, 0),
    "lab/btrfs_scrub_status__running.txt":
        ("running", 1795250314.0, 5, round(202.91 * 2**20), round(600.92 * 2**20), 33.77, 0, 0),
    "lab/btrfs_scrub_status_--raw__running.txt":
        ("running", 1795250314.0, 5, 212762624, 630112256, 33.77, 0, 0),
    "lab/btrfs_scrub_status_-R__running.txt":
        ("running", 1795250314.0, 5, 211812352 + 950272, None, None, 0, 0),
    "lab/btrfs_scrub_status_--raw__canceled.txt":
        ("canceled", 1795250314.0, 7, None, 630112256, None, 0, 0),
    "lab/btrfs_scrub_status__finished_corrected.txt":
        ("finished", 1795250321.0, 0, None, round(600.91 * 2**20), None, 4096, 4096),
    "lab/btrfs_scrub_status_--raw__finished_corrected.txt":
        ("finished", 1795250321.0, 0, None, 630095872, None, 4096, 4096),
    "lab/btrfs_scrub_status_-R__finished_corrected.txt":
        ("finished", 1795250321.0, 0, 629145600 + 950272, None, None, 4096, 4096),
}  # fmt: skip


def fs_show(name: str) -> list[tuple[str, int, int, int]]:
    return [
        (fs.label or "", fs.total_devices or 0, len(fs.devices), fs.missing_count)
        for fs in parse_filesystem_show((ROCK / name).read_text())
    ]


def test_every_capture_is_covered() -> None:
    rock = {p.name for p in ROCK.iterdir()}
    stats = {n for n in rock if "dev_stats" in n or "io_error_stats" in n}
    assert rock == set(SHOW) | {n.split("/")[1] for n in SCRUB if n.startswith("rockstor")} | stats


@pytest.mark.parametrize(("name", "expected"), sorted(SHOW.items()))
def test_filesystem_show(name: str, expected: list[tuple[str, int, int, int]]) -> None:
    assert fs_show(name) == expected


@pytest.mark.parametrize(("name", "expected"), sorted(SCRUB.items()))
def test_scrub_status(name: str, expected: tuple[object, ...]) -> None:
    scrub = parse_scrub_status((BTRFS / name).read_text())
    corrected = scrub.counters.get("corrected_errors")
    got = (scrub.state, scrub.started_at, scrub.duration_s, scrub.bytes_done, scrub.bytes_total)
    assert (*got, scrub.percent, scrub.errors, corrected) == expected


def test_device_stats() -> None:
    stats = parse_device_stats((ROCK / "test_get_dev_io_error_stats_L3536.txt").read_text())
    assert stats == {
        "/dev/sdc": {
            "write_io_errs": 204669,
            "read_io_errs": 81232,
            "flush_io_errs": 782,
            "corruption_errs": 2985,
            "generation_errs": 47,
        }
    }
    luks = parse_device_stats((ROCK / "test_dev_stats_zero_L3422.txt").read_text())
    assert len(luks) == 3 and all(sum(s.values()) == 0 for s in luks.values())
    assert (
        parse_device_stats((ROCK / "test_dev_stats_zero_L3407.txt").read_text())["/dev/vdb"][
            "corruption_errs"
        ]
        == 5
    )
    degraded = parse_device_stats((LAB / "btrfs_device_stats__degraded.txt").read_text())
    assert set(degraded) == {"<missing disk>", "/dev/loop2"}


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("btrfs_replace_status_-1__never.txt", ("never", None, None, None, None)),
        ("btrfs_replace_status_-1__running.txt", ("running", 20.8, None, None, 0)),
        (
            "btrfs_replace_status_-1__canceled.txt",
            ("canceled", 0.0, 1795250338.0, 1795250344.0, 0),
        ),
        (
            "btrfs_replace_status_-1__finished.txt",
            ("finished", 100.0, 1795250345.0, 1795250346.0, 0),
        ),
    ],
)
def test_replace_status(name: str, expected: tuple[object, ...]) -> None:
    replace = parse_replace_status((LAB / name).read_text(), NOW + 86400)
    got = (replace.state, replace.percent, replace.started_at, replace.stopped_at)
    assert (*got, replace.write_errors) == expected


def test_replace_date_without_year_is_the_last_one_before_now() -> None:
    text = (
        "Started on 30.Dec 23:00:00, finished on 31.Dec 01:00:00, 0 write errs, 0 uncorr. read errs"
    )
    replace = parse_replace_status(text, 1767225600.0 + 86400 * 10)  # 10 Jan 2026
    assert replace.started_at == 1767135600.0  # 30 Dec 2025 23:00 UTC


@pytest.mark.parametrize("text", ["", "12 percent done", "Started on yesterday"])
def test_replace_status_unknown_output(text: str) -> None:
    with pytest.raises(ParseError):
        parse_replace_status(text, NOW)


def lab_fs(name: str) -> object:
    (fs,) = parse_filesystem_show((LAB / name).read_text())
    return fs


def test_lab_raid1_pool_with_corrected_scrub() -> None:
    (fs,) = parse_filesystem_show((LAB / "btrfs_filesystem_show_--raw__raid1.txt").read_text())
    human = parse_scrub_status(
        (LAB / "btrfs_scrub_status_--raw__finished_corrected.txt").read_text()
    )
    raw = parse_scrub_status((LAB / "btrfs_scrub_status_-R__finished_corrected.txt").read_text())
    stats = parse_device_stats((LAB / "btrfs_device_stats__corrected.txt").read_text())
    facts = BtrfsFacts("/mnt", False, stats, merge_scrub(human, raw), None, "raid1", 4096)
    pool = btrfs_pool(fs, facts)
    assert (pool.name, pool.state, pool.mountpoint) == ("nastui-lab", PoolState.ONLINE, "/mnt")
    assert shape(pool.root) == "root[raid1[disk*2]]"
    assert (pool.size_bytes, pool.allocated_bytes) == (1073741824, 315047936)
    loop1 = pool.root.leaves[1]
    assert (loop1.name, loop1.read_errors, loop1.write_errors, loop1.checksum_errors) == (
        "loop1",
        0,
        0,
        4096,
    )
    scrub = pool.last_scrub
    assert scrub is not None and scrub is pool.scan
    assert (scrub.state, scrub.errors, scrub.repaired_bytes) == (
        ScanState.FINISHED,
        4096,
        4096 * 4096,
    )
    assert (scrub.bytes_done, scrub.bytes_total) == (629145600 + 950272, 630095872)


def test_lab_replace_is_followed_like_a_resilver() -> None:
    (fs,) = parse_filesystem_show((LAB / "btrfs_filesystem_show_--raw__replacing.txt").read_text())
    replace = parse_replace_status((LAB / "btrfs_replace_status_-1__running.txt").read_text(), NOW)
    pool = btrfs_pool(fs, BtrfsFacts("/mnt", replace=replace, profile="raid1"))
    scan = pool.scan
    assert scan is not None and (scan.kind, scan.state) == (ScanKind.REPLACE, ScanState.RUNNING)
    assert scan.bytes_total == 659292160 and scan.percent == pytest.approx(20.8, abs=0.01)
    target = pool.root.leaves[-1]
    assert (target.name, target.note) == ("loop2", "(replace target, 20.8%)")
    assert pool.size_bytes == 1073741824  # the target is not counted twice


def test_lab_missing_device_unmounted_and_degraded_mount() -> None:
    (fs,) = parse_filesystem_show((LAB / "btrfs_filesystem_show_--raw__missing.txt").read_text())
    assert fs.warned_missing == [1, 1]
    pool = btrfs_pool(fs, BtrfsFacts())
    assert pool.state is PoolState.DEGRADED and pool.mountpoint is None
    assert [(v.name, v.state) for v in pool.root.leaves] == [
        ("loop2", PoolState.ONLINE),
        ("devid 1", PoolState.UNAVAIL),
    ]
    assert pool.status_text is not None and pool.status_text.startswith("1 device(s) missing")
    (mounted,) = parse_filesystem_show(
        (LAB / "btrfs_filesystem_show_--raw__degraded_mount.txt").read_text()
    )
    facts = BtrfsFacts("/mnt", degraded_mount=True, profile="raid1")
    degraded = btrfs_pool(mounted, facts)
    assert degraded.state is PoolState.DEGRADED
    assert degraded.root.leaves[0].name == "devid 1" and degraded.root.leaves[0].note == "missing"


def test_no_redundancy_with_a_missing_device_is_faulted() -> None:
    (_, _, rock) = parse_filesystem_show((ROCK / "test_degraded_pools_found_L2147.txt").read_text())
    assert btrfs_pool(rock, BtrfsFacts("/mnt", profile="raid0")).state is PoolState.FAULTED


@pytest.mark.parametrize(
    ("profile", "devices", "usable"),
    [("raid1", 2, 500), ("raid1c3", 3, 333), ("raid5", 4, 750), ("raid6", 4, 500),
     ("single", 1, 1000), ("raid1+single", 2, 500), (None, 2, None)],
)  # fmt: skip
def test_usable_size(profile: str | None, devices: int, usable: int | None) -> None:
    assert usable_size(1000, profile, devices) == usable


@pytest.mark.parametrize(
    "text",
    [
        "Label: 'x'  uuid: 924d9d64-4943-4eac-a52e-1918e963a34f\n\tsomething else\n",
        "\tTotal devices 1 FS bytes used 1\n",
        "UUID: x\nStatus:           exploded\n",
    ],
)
def test_unknown_lines_are_notes(text: str) -> None:
    if text.startswith("UUID"):
        scrub = parse_scrub_status(text)
        assert scrub.notes == [
            "btrfs scrub status line 2: unreadable value ('exploded'): 'Status:           exploded'"
        ]
        return
    found, stray = parse_filesystem_show_report(text)
    notes = stray + [n for fs in found for n in fs.notes]
    assert len(notes) == 1 and notes[0].startswith("btrfs filesystem show line ")
