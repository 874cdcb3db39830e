"""The trend text builders (pure): time-bucketed sparklines with gaps, the temperature line,
counter changes and past scans, fitted to the width in Unicode and ASCII."""

from __future__ import annotations

from nastui.core.glyphs import ASCII, UNICODE
from nastui.history.record import CounterChange, ScanRecord
from nastui.model import ScanKind, ScanProgress, ScanState
from nastui.ui.render.trend import (
    counter_lines,
    counter_trends,
    past_scans,
    scan_history_text,
    span_label,
    spark,
    temperature_trend,
)

RAMP = "01234567"
DAY = 86400.0


def _change(counter: str, at: float, value: int, previous: int | None) -> CounterChange:
    return CounterChange("nas", "D1", counter, f"name-{counter}", at, value, previous)


def _scan(started: float, took: float, errors: int | None = 0, kind: str = "scrub") -> ScanRecord:
    return ScanRecord("nas", "tank", kind, "finished", started, started + took, errors, 1)


def test_spark_buckets_by_time_and_leaves_gaps_blank() -> None:
    samples = [(0.0, 30.0), (10.0, 40.0), (75.0, 35.0), (99.0, 30.0)]
    assert spark(samples, 0.0, 100.0, 4, RAMP) == "7  4"  # each quarter's highest; gaps blank
    assert spark([], 0.0, 100.0, 3, RAMP) == "   "
    assert spark(samples, 0.0, 100.0, 0, RAMP) == ""


def test_spark_widens_a_flat_range_so_noise_stays_small() -> None:
    samples = [(float(t), 36.0 + t % 2) for t in range(10)]
    cells = spark(samples, 0.0, 9.0, 10, RAMP, span=6.0)
    assert set(cells) <= {"3", "4"}
    assert set(spark(samples, 0.0, 9.0, 10, RAMP)) == {"0", "7"}


def test_span_label() -> None:
    assert span_label(DAY) == span_label(DAY - 600) == "24 h"
    assert span_label(5 * 3600 + 1200) == "5 h"
    assert span_label(720) == "12 min"
    assert span_label(5) == "1 min"


def test_temperature_trend_fits_the_width_or_takes_a_second_line() -> None:
    temps = [(1000.0 + 600 * i, 35.0 + (i % 5)) for i in range(144)]
    now = temps[-1][0] + 30
    wide = temperature_trend(temps, now, 80, UNICODE).plain
    assert wide.startswith("temp 24 h  min 35  max 39  now 38 °C  ")
    assert len(wide) == 80 and "\n" not in wide
    narrow = temperature_trend(temps, now, 44, ASCII).plain
    head, tail = narrow.split("\n")
    assert head.rstrip() == "temp 24 h  min 35  max 39  now 38 C" and len(tail) == 44
    assert set(tail[2:]) <= set("_.-=+*# ")
    assert temperature_trend(temps[:1], now, 80, UNICODE).plain == ""
    assert temperature_trend(temps, now + 2 * DAY, 80, UNICODE).plain == ""  # all too old


def test_a_temperature_no_longer_sampled_is_last_with_its_age_not_now() -> None:
    """A sleeping drive's history stops: its line said "now 37 °C" under "temperature 37 °C,
    44 min ago (stale: drive asleep)"."""
    temps = [(1000.0 + 600 * i, 37.0) for i in range(100)]
    stale = temperature_trend(temps, temps[-1][0] + 44 * 60, 80, UNICODE).plain
    assert stale.startswith("temp 17 h  min 37  max 37  last 37 °C 44 min ago  ")
    fresh = temperature_trend(temps, temps[-1][0] + 9 * 60, 80, UNICODE).plain
    assert fresh.startswith("temp 17 h  min 37  max 37  now 37 °C  ")


def test_counter_trends_ignore_first_seen_and_start_from_the_oldest_kept() -> None:
    changes = [
        _change("attr:197", 100.0, 0, None),
        _change("attr:197", 200.0, 2, 0),
        _change("attr:197", 300.0, 8, 2),
        _change("attr:5", 100.0, 12, None),  # only first seen: steady
        _change("attr:198", 150.0, 3, 1),  # history pruned: first kept row had a previous
    ]
    trends = counter_trends(changes)
    assert [(t.name, t.first, t.last, t.changed_at, t.changes) for t in trends] == [
        ("name-attr:197", 0, 8, 300.0, 2),
        ("name-attr:198", 1, 3, 150.0, 1),
    ]


def test_counter_lines_keep_to_the_limit_and_say_how_many_more() -> None:
    changes = [_change(f"attr:{i}", 100.0 * i, i + 1, i) for i in range(1, 5)]
    text = counter_lines(changes, 3 * DAY, 80, UNICODE, limit=2).plain
    assert text.split("\n") == ["name-attr:4 4 -> 5  3 days ago", "+3 more counters changed"]
    everything = counter_lines(changes, 3 * DAY, 80, UNICODE, limit=6).plain
    assert len(everything.split("\n")) == 4
    steady = counter_lines([_change("attr:5", 0.0, 0, None)], 7200.0, 80, UNICODE, 2).plain
    assert steady == "SMART counters: no change kept since 2 h ago"


def test_past_scans_merge_the_pools_last_scrub_once_newest_first() -> None:
    records = [_scan(1000.0, 500.0), _scan(90000.0, 600.0, errors=3)]
    same = ScanProgress(ScanKind.SCRUB, ScanState.FINISHED, 90000.0, 90600.0, errors=3)
    assert len(past_scans(records, same, 5)) == 2
    newer = ScanProgress(ScanKind.SCRUB, ScanState.FINISHED, 200000.0, 200700.0, errors=0)
    scans = past_scans(records, newer, 5)
    assert [s.started_at for s in scans] == [200000.0, 90000.0, 1000.0]
    running = ScanProgress(ScanKind.SCRUB, ScanState.RUNNING, 300000.0)
    assert len(past_scans(records, running, 5)) == 2
    assert len(past_scans(records, newer, 2)) == 2


def test_scan_history_one_line_or_a_table() -> None:
    scans = past_scans([_scan(DAY * i, 3600.0 + 60 * i) for i in range(5)], None, 5)
    line = scan_history_text(scans, 60, ASCII, tight=True).plain
    assert line == "  past: scrub 1h04m Jan 05, 1h03m Jan 04 (0 errors)"  # what fits in 60
    table = scan_history_text(scans, 80, UNICODE, tight=False).plain.split("\n")
    assert table[0] == "  past scans started              took  errors"
    assert table[1] == "  scrub      1970-01-05 00:00    1h04m  0"
    assert len(table) == 6
    assert scan_history_text(scans[:1], 80, UNICODE, tight=False).plain == ""


def test_scan_history_shows_errors_when_a_scan_found_some() -> None:
    scans = past_scans([_scan(0.0, 60.0), _scan(DAY, 120.0, errors=4)], None, 5)
    line = scan_history_text(scans, 80, UNICODE, tight=True)
    assert line.plain == "  past: scrub 2m00s Jan 02 4 err, 1m00s Jan 01 0 err"
    assert any("yellow" in str(span.style) for span in line.spans)
