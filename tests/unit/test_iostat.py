"""I/O rates from /proc/diskstats counters (parsed line by line), under a fake root."""

from __future__ import annotations

from pathlib import Path

import pytest

from nastui.collectors.iostat import IoSampler, parse_diskstats, read_counters

# Field layout of /proc/diskstats (Documentation/admin-guide/iostats.rst): major minor name,
# reads completed, reads merged, sectors read, ms reading, writes completed, writes merged,
# sectors written, ms writing, I/Os in progress, ms doing I/O, weighted ms (+ discard/flush).
LINE = "   8       0 {name} {reads} 0 {rsect} 10 {writes} 0 {wsect} 20 0 {busy} 30 0 0 0 0 0 0\n"


def write_stats(root: Path, **disks: tuple[int, int, int]) -> None:
    proc = root / "proc"
    proc.mkdir(parents=True, exist_ok=True)
    text = "".join(
        LINE.format(name=name, reads=100, rsect=r, writes=50, wsect=w, busy=b)
        for name, (r, w, b) in disks.items()
    )
    (proc / "diskstats").write_text(text)


def test_rates_come_from_consecutive_samples(tmp_path: Path) -> None:
    sampler = IoSampler()
    write_stats(tmp_path, sda=(0, 0, 0), sdb=(0, 0, 0))
    assert (
        sampler.sample(read_counters(tmp_path), ["sda", "sdb"], now=100.0) == {}
    )  # one sample: no rate yet
    # 2 s later: sda read 4096 sectors (2 MiB) and wrote 2048 (1 MiB), busy 500 ms.
    write_stats(tmp_path, sda=(4096, 2048, 500), sdb=(0, 0, 0))
    rates = sampler.sample(read_counters(tmp_path), ["sda", "sdb"], now=102.0)
    assert rates is not None
    assert rates["sda"].read_bytes_per_s == pytest.approx(1024 * 1024)
    assert rates["sda"].write_bytes_per_s == pytest.approx(512 * 1024)
    assert rates["sda"].busy_percent == pytest.approx(25.0)
    assert rates["sdb"].read_bytes_per_s == 0.0


def test_counter_going_backwards_restarts_the_baseline(tmp_path: Path) -> None:
    sampler = IoSampler()
    write_stats(tmp_path, sda=(10_000, 0, 0))
    sampler.sample(read_counters(tmp_path), ["sda"], now=1.0)
    write_stats(tmp_path, sda=(8, 0, 0))  # drive re-attached, counters reset
    assert sampler.sample(read_counters(tmp_path), ["sda"], now=2.0) == {}
    write_stats(tmp_path, sda=(16, 0, 0))
    rates = sampler.sample(read_counters(tmp_path), ["sda"], now=3.0)
    assert rates is not None and rates["sda"].read_bytes_per_s == pytest.approx(8 * 512)


def test_missing_diskstats_is_none(tmp_path: Path) -> None:
    assert read_counters(tmp_path) is None
    assert IoSampler().sample(read_counters(tmp_path), ["sda"], now=1.0) is None
    write_stats(tmp_path, sda=(1, 1, 1))
    assert read_counters(tmp_path) is not None


def test_this_machine() -> None:
    counters = read_counters(Path("/"))
    assert counters is not None  # every Linux box has /proc/diskstats


def test_a_line_not_understood_is_skipped_and_reported() -> None:
    text = (
        "   8       0 sda 70956 12642 4669682 55633 11724 62789 2183136 8265 0 11816 63899\n"
        "   8      16 sdb 1 2 3 4 5 6 7 8 9 10 11 0 0 0 0 0 0\n"
        "   8      32 sdc 1 2 x 4\n"  # not a number
        "   8      48 sdd 1 2 3 4 5 6 7 8 9\n"  # a field count no kernel writes
        "   3       1 hda1 10 20 30 40\n"  # a 2.6 partition line
        "\n"
    )
    stats = parse_diskstats(text)
    assert sorted(stats.counters) == ["hda1", "sda", "sdb"]
    assert stats.counters["sda"].read_bytes == 4669682 * 512
    assert stats.counters["sda"].busy_ms == 11816
    assert stats.counters["hda1"].write_bytes == 40 * 512
    assert stats.skipped == ("8      32 sdc 1 2 x 4", "8      48 sdd 1 2 3 4 5 6 7 8 9")


def test_a_real_diskstats_parses_whole() -> None:
    stats = parse_diskstats(Path("/proc/diskstats").read_text())
    assert stats.skipped == ()
    assert stats.counters
