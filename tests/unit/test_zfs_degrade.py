"""ZFS on real captures the parser used to lose: two `scan:` lines (a finished scrub beside a
dRAID rebuild), `remove:` and `expand:` progress, zpool's own time left, and lines it does not
know (kept as notes naming them; the pool, its name and state stay)."""

from __future__ import annotations

import time

from nastui.collectors.zfs.layout import parse_layout
from nastui.collectors.zfs.text import parse_zpool_status, parse_zpool_status_report
from nastui.core.scanning.tracker import ScanTracker
from nastui.model import Pool, PoolState, ScanKind, ScanState
from tests.fakepools import FIXTURES

PUBLIC = FIXTURES / "zpool/public"


def only(name: str) -> Pool:
    (pool,) = parse_zpool_status((PUBLIC / name).read_text())
    assert pool.notes == ()
    return pool


def when(text: str) -> float:
    return time.mktime(time.strptime(text, "%a %b %d %H:%M:%S %Y"))


def test_finished_scrub_is_kept_beside_a_running_draid_rebuild() -> None:
    pool = only("zfswatcher24_draid_scrub_and_rebuild.txt")
    assert pool.scan is not None
    assert (pool.scan.kind, pool.scan.state) == (ScanKind.RESILVER, ScanState.RUNNING)
    assert pool.last_scrub is not None and pool.last_scrub.kind is ScanKind.SCRUB
    assert pool.last_scrub.ended_at == when("Tue Jul 11 10:29:22 2023")


def test_two_finished_scans_show_the_later_one() -> None:
    pool = only("zfs14881_draid_two_scans_finished.txt")
    assert pool.scan is not None and pool.scan.kind is ScanKind.SCRUB
    assert pool.last_scrub is pool.scan
    assert pool.state is PoolState.DEGRADED


def test_remove_in_progress_with_zpools_own_time_left() -> None:
    pool = only("blog_remove_mirror_running.txt")
    change = pool.layout_change
    assert change is not None
    assert (change.kind, change.state) == (ScanKind.REMOVE, ScanState.RUNNING)
    assert change.started_at == when("Wed Dec 13 21:18:05 2023")
    assert change.reported_percent == 0.64 and change.bytes_total == 940 << 30
    assert change.reported_eta_seconds == (2 * 60 + 41) * 60
    assert pool.last_scrub is not None  # the scrub beside it stays


def test_remove_after_resilver() -> None:
    pool = only("blog_remove_da0p4_freebsd.txt")
    assert pool.layout_change is not None and pool.layout_change.reported_eta_seconds == 0
    assert pool.scan is not None and pool.scan.state is ScanState.FINISHED
    assert next(v for _, v in pool.root.walk() if v.name == "da0p4").note == "(removing)"


def test_expand_lines_running_slow_and_finished() -> None:
    lines = [
        line.strip() for line in (PUBLIC / "blog_expand_lines_grep.txt").read_text().splitlines()
    ]
    notes: list[str] = []
    running = parse_layout("expand", [lines[0].removeprefix("expand: "), lines[1]], notes)
    slow = parse_layout("expand", [lines[2].removeprefix("expand: "), lines[3]], notes)
    done = parse_layout("expand", [lines[4].removeprefix("expand: ")], notes)
    assert notes == []
    assert running is not None and (running.kind, running.state) == (
        ScanKind.EXPAND,
        ScanState.RUNNING,
    )
    assert running.reported_eta_seconds == 1.0 and running.reported_percent == 95.75
    assert slow is not None and slow.reported_eta_seconds is None
    assert slow.reported_percent == 120.25
    assert done is not None and done.state is ScanState.FINISHED and done.duration == 137.0


def test_finished_expansion_and_scrub() -> None:
    pool = only("blog_expanded_testpool2.txt")
    assert pool.layout_change is not None and pool.layout_change.state is ScanState.FINISHED
    assert pool.last_scrub is not None
    assert len(pool.root.leaves) == 7


def test_tracker_keeps_zpools_own_time_left() -> None:
    pool = only("zfswatcher24_draid_scrub_and_rebuild.txt")
    assert pool.scan is not None and pool.scan.reported_eta_seconds == 3 * 3600 + 22 * 60 + 35
    tracked = ScanTracker().update("zfs:aggr0", pool.scan, 1000.0)
    assert tracked is not None and tracked.reported_eta_seconds == pool.scan.reported_eta_seconds


def test_unknown_lines_are_notes_and_the_pool_stays() -> None:
    lines = (PUBLIC / "blog_remove_mirror_running.txt").read_text().splitlines()
    lines.insert(4, "        frobnicated 3 widgets")  # inside remove:
    lines.insert(11, "          sdz9")  # a vdev without a state
    lines.insert(1, "garbage: yes")
    pools, stray = parse_zpool_status_report("\n".join(lines) + "\n")
    assert stray == ()
    (pool,) = pools
    assert (pool.name, pool.state) == ("main", PoolState.ONLINE)
    assert pool.layout_change is not None and pool.layout_change.reported_percent == 0.64
    assert len(pool.root.leaves) == 4
    assert pool.notes == (
        "zpool status line 2: unexpected line: 'garbage: yes'",
        "zpool status line 13: vdev without a state: 'sdz9'",
        "zpool status remove/expand: unexpected progress line: 'frobnicated 3 widgets'",
    )
