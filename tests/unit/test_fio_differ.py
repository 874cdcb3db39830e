"""The differ on real captured streams: per-interval figures from cumulative counters, the ramp
reset, the file-layout reset, several jobs summed, the killed fio; percentiles from json+ bins;
and the parser on real fio 2.18, 3.1 and 3.14 results from the corpus."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nastui.bench.fiodiff import Differ, restarted, step_result
from nastui.bench.fiojson import Dump, dump_from, parse_dump, percentile, subtract
from nastui.bench.fiostream import PieceKind, split_stream
from nastui.model import BenchSample, Phase
from nastui.model.errors import ParseError
from tests.conftest import FIXTURES

FIO = FIXTURES / "fio"


def dumps(name: str) -> list[Dump]:
    text = (FIO / name).read_text(encoding="utf-8")
    return [
        parse_dump(p.text, f"{name} line {p.line_no}")
        for p in split_stream(text.splitlines())
        if p.kind is PieceKind.DOCUMENT
    ]


def samples(name: str, *, ramp: bool = False) -> tuple[Differ, list[BenchSample]]:
    differ = Differ(3, t0=10.0, ramp=ramp)
    got = [s for d in dumps(name) if (s := differ.push(d)) is not None]
    return differ, got


def test_clean_run_intervals_add_up_to_the_counters() -> None:
    _, got = samples("randread-4k-qd4-3s.jsonplus")
    all_dumps = dumps("randread-4k-qd4-3s.jsonplus")
    final = all_dumps[-1]
    # Three status dumps and the final one; the final repeats the last 16 ms later.
    assert len(got) == len(all_dumps) - 1 or len(got) == len(all_dumps)
    assert all(s.phase is Phase.RUN and s.step == 3 for s in got)
    ios = sum(s.read_iops * s.seconds for s in got)
    assert ios == pytest.approx(final.read.total_ios, rel=0.01)
    assert got[-1].bytes_done == final.read.io_bytes
    assert all(s.write_iops == 0 for s in got)
    assert got[0].t > 10.0  # run time: the step began at t0 = 10 s
    assert [s.t for s in got] == sorted(s.t for s in got)
    for s in got:
        assert s.lat_p50_ns is not None and s.lat_p99_ns is not None
        assert s.lat_p50_ns <= s.lat_p99_ns
        assert s.lat_mean_ns is not None and 1_000 < s.lat_mean_ns < 1e9


def test_interval_mean_latency_is_the_difference_of_sums() -> None:
    first, second = dumps("randread-4k-qd4-3s.jsonplus")[:2]
    differ = Differ(0)
    differ.push(first)
    sample = differ.push(second)
    assert sample is not None
    expected = (second.read.lat_sum_ns - first.read.lat_sum_ns) / (
        second.read.lat_n - first.read.lat_n
    )
    assert sample.lat_mean_ns == pytest.approx(expected)
    assert sample.seconds == pytest.approx((second.job_runtime_ms - first.job_runtime_ms) / 1000)


def test_ramp_time_reset_is_detected() -> None:
    differ, got = samples("randread-4k-qd1-ramp2.jsonplus", ramp=True)
    phases = [s.phase for s in got]
    assert phases[:2] == [Phase.RAMP, Phase.RAMP]
    assert set(phases[2:]) == {Phase.RUN}
    assert differ.restarts == 1
    assert all(s.lat_mean_ns is None for s in got[:2])  # fio records no latency in ramp
    assert all(s.lat_mean_ns is not None for s in got[2:])
    # The first interval after the reset is measured from zero over the new runtime.
    first_run = got[2]
    assert 5_000 < first_run.read_iops < 50_000
    # bytes_done keeps counting across the reset.
    assert [s.bytes_done for s in got] == sorted(s.bytes_done for s in got)
    final = dumps("randread-4k-qd1-ramp2.jsonplus")[-1]
    result = step_result("ramp", (), final)
    assert result.read_iops == pytest.approx(final.read.total_ios / (final.read.runtime_ms / 1000))
    assert result.seconds == pytest.approx(3.0, abs=0.1)  # the measured part only


def test_file_layout_phase_then_restart() -> None:
    differ, got = samples("randread-4k-qd1-layout.jsonplus")
    setup = [s for s in got if s.phase is Phase.SETUP]
    run = [s for s in got if s.phase is Phase.RUN]
    assert setup and run
    assert all(s.iops == 0 for s in setup)
    assert got.index(run[0]) == len(setup)  # all setup first
    assert differ.restarts == 1
    assert run[0].read_iops > 0


def test_jobs_are_summed() -> None:
    all_dumps = dumps("randrw-4k-qd2-numjobs2.jsonplus")
    raw = json.loads(
        next(
            p.text
            for p in split_stream(
                (FIO / "randrw-4k-qd2-numjobs2.jsonplus").read_text().splitlines()
            )
            if p.kind is PieceKind.DOCUMENT
        )
    )
    assert len(raw["jobs"]) == 2
    assert all_dumps[0].jobs == 2
    assert all_dumps[0].read.total_ios == sum(j["read"]["total_ios"] for j in raw["jobs"])
    assert all_dumps[0].write.io_bytes == sum(j["write"]["io_bytes"] for j in raw["jobs"])
    _, got = samples("randrw-4k-qd2-numjobs2.jsonplus")
    assert all(s.read_iops > 0 and s.write_iops > 0 for s in got)


def test_group_reporting_intervals_are_wall_seconds() -> None:
    """`--numjobs=4 --group_reporting`: one entry whose `job_runtime` adds up the four threads'
    (3020 ms after 0.76 s). Read as the job's runtime, every interval lasted 4 s and the live
    IOPS were a quarter of fio's own figure (held-out sample: fio-plot's HighPoint RAID5 run,
    numjobs 8, job_runtime 480910 for a 60 s run)."""
    all_dumps = dumps("randread-4k-qd1-numjobs4-group.jsonplus")
    assert [d.jobs for d in all_dumps] == [1, 1, 1, 1]
    assert all_dumps[0].job_runtime_ms == pytest.approx(all_dumps[0].read.runtime_ms, abs=5)
    _, got = samples("randread-4k-qd1-numjobs4-group.jsonplus")
    assert all(s.seconds <= 1.05 for s in got)
    final = step_result("group", (), all_dumps[-1])
    full = [s for s in got if s.seconds > 0.9]
    assert full and all(s.read_iops == pytest.approx(final.read_iops, rel=0.3) for s in full)
    assert got[-1].t - 10.0 == pytest.approx(3.0, abs=0.2)  # the run took 3 s, not 12


def test_sigint_final_result_is_kept() -> None:
    all_dumps = dumps("randread-4k-qd1-sigint.jsonplus")
    result = step_result("stopped", (("rw", "randread"),), all_dumps[-1])
    assert result.seconds == pytest.approx(3.2, abs=0.5)
    assert result.read_iops > 0 and result.error is None
    assert result.lat_p99_ns is not None and result.lat_p999_ns is not None


def test_restart_rules() -> None:
    a, b = dumps("randread-4k-qd4-3s.jsonplus")[:2]
    assert not restarted(a, b)
    assert restarted(b, a)


def test_percentile_from_bins() -> None:
    bins = {100: 50, 200: 40, 1000: 9, 5000: 1}
    assert percentile(bins, 50) == 100
    assert percentile(bins, 50.1) == 200
    assert percentile(bins, 90) == 200
    assert percentile(bins, 99) == 1000
    assert percentile(bins, 99.9) == 5000
    assert percentile({}, 50) is None
    assert subtract({1: 5, 2: 3}, {1: 5, 2: 1, 3: 4}) == {2: 2}


def test_old_fio_results_parse() -> None:
    old = dump_from(json.loads((FIO / "fioplot-2.18-randread-01.json").read_text()), "2.18")
    # fio 2.x: io_bytes in KiB, latency in us, no N.
    assert old.read.io_bytes == 17568 * 1024
    assert old.read.total_ios == 4392
    assert old.read.lat_n == 4392
    assert old.read.lat_sum_ns / old.read.lat_n == pytest.approx(13652.220173 * 1000)
    assert old.read.percentiles[99.0] > 0
    result = step_result("2.18", (), old)
    assert result.read_iops == pytest.approx(4392 / 60.013)
    assert result.lat_p99_ns == old.read.percentiles[99.0]


@pytest.mark.parametrize(
    ("name", "iops"),
    [
        ("fioplot-3.1-floppy-randread-1-1.json", None),
        ("fioplot-3.14-d3s4610-randread-32-1.json", None),
        ("fioplot-3.1-mdadm-randwrite-32-4.json", None),
    ],
)
def test_fio3_results_agree_with_fios_own_iops(name: str, iops: float | None) -> None:
    data = json.loads((FIO / name).read_text())
    dump = dump_from(data, name)
    result = step_result(name, (), dump)
    reported = sum(j["read"]["iops"] + j["write"]["iops"] for j in data["jobs"])
    assert result.iops == pytest.approx(reported, rel=0.02)
    assert result.lat_p99_ns is not None


@pytest.mark.parametrize(
    "bad",
    ["not json", "[]", '{"jobs": 3}', '{"jobs": [{"read": {"total_ios": "many"}}]}'],
)
def test_parse_error_names_the_input(bad: str) -> None:
    with pytest.raises(ParseError, match="dump at line 7"):
        parse_dump(bad, "fio status dump at line 7")


@settings(max_examples=80, deadline=None)
@given(
    ios=st.lists(st.integers(0, 10**9), min_size=1, max_size=6),
    runtime=st.lists(st.integers(0, 10**7), min_size=1, max_size=6),
    lat_n=st.lists(st.integers(0, 10**9), min_size=1, max_size=6),
    mean=st.floats(0, 1e10, allow_nan=False),
)
def test_differ_never_crashes_on_arbitrary_counters(
    ios: list[int], runtime: list[int], lat_n: list[int], mean: float
) -> None:
    differ = Differ(0, ramp=True)
    for i, count in enumerate(ios):
        data = {
            "timestamp_ms": 1000 * i,
            "jobs": [
                {
                    "job_runtime": runtime[i % len(runtime)],
                    "read": {
                        "total_ios": count,
                        "io_bytes": count * 4096,
                        "runtime": runtime[i % len(runtime)],
                        "lat_ns": {"mean": mean, "N": lat_n[i % len(lat_n)]},
                        "clat_ns": {"bins": {"1000": count % 7, "2000": count % 3}},
                    },
                }
            ],
        }
        sample = differ.push(dump_from(data, "generated"))
        if sample is not None:
            assert sample.seconds > 0
            assert sample.read_iops >= 0
            assert sample.lat_mean_ns is None or sample.lat_mean_ns >= 0
