"""Character charts (scales, bars, marks, the ASCII set), SVG export, comparisons and saved runs
read back; all pure."""

from __future__ import annotations

import dataclasses
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from nastui.bench import store
from nastui.bench.chart import (
    ASCII_CHART,
    UNICODE_CHART,
    bar_rows,
    chart_lines,
    latency,
    latency_chart,
    nice_top,
    per_column,
    rate_chart,
    short,
)
from nastui.bench.compare import METRICS, change, matched, table, verdict
from nastui.bench.svg import runs_svg
from nastui.model import (
    BenchRun,
    BenchSample,
    BenchSettings,
    BenchTarget,
    Phase,
    RunState,
    StepResult,
    TargetKind,
)
from nastui.model.errors import ParseError


def sample(i: int, iops: float, p50: float | None = 1e5, phase: Phase = Phase.RUN) -> BenchSample:
    return BenchSample(
        t=float(i),
        step=0,
        phase=phase,
        seconds=1.0,
        read_iops=iops,
        read_bps=iops * 4096,
        lat_p50_ns=p50,
        lat_p99_ns=None if p50 is None else p50 * 20,
        bytes_done=i * 4096,
    )


def run(run_id: str, iops: float, p99: float, samples: int = 5) -> BenchRun:
    steps = (
        StepResult("RND4K Q1T1 read", read_iops=iops, read_bps=iops * 4096, lat_p99_ns=p99),
        StepResult("RND4K Q1T1 write", write_iops=iops / 2, lat_p99_ns=p99 * 2),
    )
    return BenchRun(
        run_id=run_id,
        host="h",
        started_at=1.0,
        settings=BenchSettings(profile="cdm"),
        target=BenchTarget("/srv", TargetKind.DIRECTORY),
        state=RunState.COMPLETE,
        steps=steps,
        samples=tuple(sample(i, iops + i) for i in range(samples)),
    )


def test_scales() -> None:
    assert [per_column(n, 10) for n in (0, 10, 11, 20, 21, 80)] == [1, 1, 2, 2, 4, 8]
    assert [nice_top(v) for v in (0, 1, 1.5, 3, 24_000, 50_001)] == [1, 1, 2, 5, 25_000, 100_000]
    assert [short(v) for v in (None, 0, 7.25, 987, 12_345, 1_200_000, 4.5e10)] == [
        "-",
        "0",
        "7.2",
        "987",
        "12k",
        "1.2M",
        "45G",
    ]
    assert [latency(v) for v in (None, 850, 85_000, 1_200_000, 14e6, 1.1e9)] == [
        "-",
        "850ns",
        "85us",
        "1.2ms",
        "14ms",
        "1.1s",
    ]


def test_bars_use_eighths_or_ascii_thirds() -> None:
    rows = bar_rows([8, 4, 1, None, 0], ["bar"] * 5, 1, 8, UNICODE_CHART)
    assert "".join(c for c, _ in rows[0]) == "█▄▁  "
    rows = bar_rows([8, 4, 1], ["bar"] * 3, 2, 8, ASCII_CHART)
    assert ["".join(c for c, _ in r) for r in rows] == ["#  ", "##_"]


def test_rate_chart_skips_setup_and_marks_ramp() -> None:
    samples = [sample(0, 0, phase=Phase.SETUP), sample(1, 50, phase=Phase.RAMP)]
    samples += [sample(i, 100) for i in range(2, 6)]
    chart = rate_chart(samples, lambda s: s.iops, (20, 4), UNICODE_CHART)
    assert len(chart.rows[0]) == 5  # the setup sample is not drawn
    assert chart.rows[-1][0][1] == "ramp" and chart.rows[-1][1][1] == "bar"
    assert chart.labels[0] == "100" and chart.labels[-1] == "0"
    lines = chart_lines(chart, 20, ASCII_CHART)
    assert lines[0].startswith("   100|")


def test_charts_compress_time_in_powers_of_two() -> None:
    samples = [sample(i, 100 + i) for i in range(100)]
    chart = rate_chart(samples, lambda s: s.iops, (30, 3), UNICODE_CHART)
    assert chart.step == 4 and len(chart.rows[0]) == 25


def test_latency_chart_marks_on_decades() -> None:
    samples = [sample(i, 10, p50=1e5) for i in range(4)]
    chart = latency_chart(samples, (10, 5), ASCII_CHART)
    assert chart.labels[0] == "10ms" and chart.labels[-1] == "100us"
    text = "\n".join("".join(c for c, _ in r) for r in chart.rows)
    assert text.count("o") == 4 and text.count("x") == 4
    assert text.isascii()


def test_compare_table_and_verdicts() -> None:
    a, b = run("a", 1000, 2e6), run("b", 800, 1e6)
    assert [r.label for r in matched([a, b])] == ["RND4K Q1T1 read", "RND4K Q1T1 write"]
    rows = table([a, b], METRICS["iops"])
    assert rows[0] == ["step", "#1 IOPS", "#2 IOPS"]
    assert rows[1] == ["RND4K Q1T1 read", "1.0k", "800 -20%!"]
    p99 = table([a, b], METRICS["p99"])
    assert p99[1] == ["RND4K Q1T1 read", "2.0ms", "1.0ms -50%"]  # lower latency: better, no !
    assert change(0, 5) is None and verdict(None, METRICS["iops"]) == ""


def test_svg_is_well_formed_with_one_line_per_run() -> None:
    svg = runs_svg([run("a", 1000, 2e6), run("b", 800, 1e6)], METRICS["iops"])
    root = ET.fromstring(svg)
    ns = "{http://www.w3.org/2000/svg}"
    lines = root.findall(f"{ns}polyline")
    assert len(lines) == 2
    assert lines[1].get("stroke-dasharray")  # told apart by dash as well as colour
    texts = [t.text for t in root.iter(f"{ns}text")]
    assert "IOPS over time" in texts and any(t and "(cdm, a)" in t for t in texts)


def test_saved_run_round_trip_and_lookup(tmp_path: Path) -> None:
    first = run("20250301-100000-sdc-cdm", 1000, 2e6)
    second = dataclasses.replace(run("20250301-110000-sdc-cdm", 900, 2e6), started_at=2.0)
    for r in (first, second):
        store.save(r, tmp_path)
    assert store.load(tmp_path / f"{first.run_id}.json") == first
    assert store.find(tmp_path, "last") == second
    assert store.find(tmp_path, "last-1") == first
    assert store.find(tmp_path, "20250301-10") == first
    assert store.find(tmp_path, str(tmp_path / f"{second.run_id}.json")) == second
    with pytest.raises(LookupError, match="matches 2 runs"):
        store.find(tmp_path, "20250301")
    with pytest.raises(LookupError, match="there is no last-5"):
        store.find(tmp_path, "last-5")
    with pytest.raises(LookupError, match="no saved run"):
        store.find(tmp_path, "nope")
    (tmp_path / "broken.json").write_text('{"version": 1, "run": {"run_id": 3}}')
    with pytest.raises(ParseError, match=r"broken\.json"):
        store.load(tmp_path / "broken.json")
    (tmp_path / "other.json").write_text(json.dumps({"version": 9, "run": {}}))
    with pytest.raises(ParseError, match="version 9"):
        store.load(tmp_path / "other.json")
    assert len(store.list_runs(tmp_path)) == 2  # unreadable files are skipped
    assert store.runs_dir({"NASTUI_BENCH_DIR": "/x"}, 0) == Path("/x")
    assert store.runs_dir({}, 0) == Path("/var/lib/nastui/bench")
