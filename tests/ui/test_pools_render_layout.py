"""The pools screen's block for a pool with a ZFS removal or raidz expansion, zpool's own time
left, and a line the parser did not understand (real captures, pure rendering at 80 columns)."""

from __future__ import annotations

from nastui.cli.cmd_pools import render_pool
from nastui.collectors.zfs.text import parse_zpool_status
from nastui.core.codec import dumps, loads
from nastui.core.glyphs import ASCII
from nastui.model import HostSnapshot
from nastui.ui.render.pools import pool_detail, pool_summary
from tests.fakepools import FIXTURES

PUBLIC = FIXTURES / "zpool/public"


def detail(text: str) -> str:
    (pool,) = parse_zpool_status(text)
    snapshot = HostSnapshot(host="nas", taken_at=1_736_000_000.0, pools=(pool,))
    return pool_detail(pool, snapshot, 80, ASCII).plain


def test_remove_shows_a_bar_and_zpools_time_left() -> None:
    text = detail((PUBLIC / "blog_remove_mirror_running.txt").read_text())
    lines = text.splitlines()
    bar = next(line for line in lines if line.startswith("  remove "))
    assert bar.endswith("   0.6%")
    assert "  6.0 GiB of 940 GiB, 98.6 MiB/s, ETA 2h41m (zpool)" in lines
    assert any(line.startswith("  scrub finished") for line in lines)  # kept beside it


def test_running_rebuild_shows_zpools_eta_and_the_kept_scrub() -> None:
    text = detail((PUBLIC / "zfswatcher24_draid_scrub_and_rebuild.txt").read_text())
    assert "ETA 3h22m (zpool)" in text
    assert "\n  last completed scrub finished" in text


def test_finished_expansion_and_a_note() -> None:
    lines = (PUBLIC / "blog_expanded_testpool2.txt").read_text().splitlines()
    lines.insert(5, "this line is not zpool's")
    text = detail("\n".join(lines) + "\n")
    assert "\n  expand finished" in text and "in 2m03s" in text
    assert "\n  not understood: zpool status line 6: unexpected line in config:" in text
    assert text.count("not understood") == 1 and "testpool2      " in text


def test_a_finished_scrub_is_shown_once_after_the_snapshot_was_decoded() -> None:
    """A pool whose latest scan is its last completed scrub: one line, also when the two are
    equal but not the same object (a snapshot from the daemon's file, or the demo's, is
    decoded or shifted field by field)."""
    (pool,) = parse_zpool_status((PUBLIC / "blog_expanded_testpool2.txt").read_text())
    assert pool.scan is not None and pool.scan == pool.last_scrub
    snapshot = loads(dumps(HostSnapshot(host="nas", taken_at=1_736_000_000.0, pools=(pool,))))
    (decoded,) = snapshot.pools
    assert decoded.scan is not decoded.last_scrub
    text = pool_detail(decoded, snapshot, 80, ASCII).plain
    assert "last completed" not in text
    assert "last scrub" not in pool_summary(decoded, snapshot.taken_at, 40, ASCII).plain
    assert "last completed" not in render_pool(snapshot, decoded, ASCII)
