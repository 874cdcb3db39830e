"""The runner end to end on recorded streams (`ReplayHost`): events, samples with the device's
recorded counters beside them, saved JSON + CSV that load back equal, refusals, a stop that
keeps the partial result, and the run ids."""

from __future__ import annotations

import asyncio
import contextlib
import csv
import dataclasses
import io
from collections.abc import Iterator
from pathlib import Path

import pytest

from nastui.bench import store
from nastui.bench.guard import Place
from nastui.bench.profiles import PROFILES
from nastui.bench.replay import Recording, ReplayHost, demo_recordings, demo_target
from nastui.bench.runner import (
    BenchRunner,
    Event,
    RunNote,
    SampleReady,
    StepFinished,
    StepStarted,
    run_id_for,
)
from nastui.model import BenchSettings, BenchTarget, Phase, RunState, TargetKind
from tests.conftest import FIXTURES

FIO = FIXTURES / "fio"
CLOCK = 1_700_000_000.0


def recording(name: str) -> Recording:
    return Recording.load(FIO / f"{name}.jsonplus")


def list_dir(path: Path) -> list[Path]:
    return list(path.iterdir())


def settings(profile: str, **changes: object) -> BenchSettings:
    return dataclasses.replace(PROFILES[profile].defaults, **changes)  # type: ignore[arg-type]


def runner(host: ReplayHost, runs: Path | None, events: list[Event] | None = None) -> BenchRunner:
    sink = events.append if events is not None else None
    return BenchRunner(host, host_name="test", runs_dir=runs, on_event=sink, clock=lambda: CLOCK)


async def test_randrw_replay_events_samples_and_saved_files(tmp_path: Path) -> None:
    events: list[Event] = []
    host = ReplayHost([recording("randrw-4k-qd2-numjobs2")])
    target = demo_target(str(tmp_path))
    run = await runner(host, tmp_path / "runs", events).run(settings("randrw"), target)
    assert run.state is RunState.COMPLETE, run.message
    assert isinstance(events[0], StepStarted) and isinstance(events[-1], StepFinished)
    samples = [e.sample for e in events if isinstance(e, SampleReady)]
    assert samples == list(run.samples) and len(samples) == 4
    assert all(s.read_iops > 0 and s.write_iops > 0 for s in samples)
    # The device's recorded counters sit beside fio's figures from the second sample on.
    assert samples[0].disk_read_bps is None
    assert samples[1].disk_read_bps is not None and samples[1].disk_write_bps is not None
    assert samples[1].disk_read_bps == pytest.approx(
        (11050230784 - 10995033088) / ((2157 - 1156) / 1000)
    )
    assert run.warnings and "of RAM: the page cache" in run.warnings[0]
    saved = store.load(tmp_path / "runs" / f"{run.run_id}.json")
    assert saved == run
    rows = list(csv.DictReader(io.StringIO((tmp_path / "runs" / f"{run.run_id}.csv").read_text())))
    assert [r["kind"] for r in rows] == ["step"] + ["sample"] * 4
    assert rows[1]["serial"] == "PN2334PBG6P4SK" and rows[1]["label"] == "randrw 4K 50/50 QD1"
    assert not any(p.name.startswith("nastui-bench-") for p in list_dir(tmp_path))


async def test_ramp_and_layout_recordings_through_the_runner(tmp_path: Path) -> None:
    host = ReplayHost([recording("randread-4k-qd1-ramp2"), recording("randread-4k-qd1-layout")])
    sweep = settings("sweep", iodepths=(1, 2), ramp_s=2.0, runtime_s=3.0)
    run = await runner(host, None).run(sweep, demo_target(str(tmp_path)))
    assert run.state is RunState.COMPLETE
    first = [s for s in run.samples if s.step == 0]
    second = [s for s in run.samples if s.step == 1]
    assert [s.phase for s in first][:2] == [Phase.RAMP, Phase.RAMP]
    assert Phase.SETUP in {s.phase for s in second}
    assert second[0].t >= first[-1].t  # steps follow each other on one time axis
    assert [s.label for s in run.steps] == ["QD1 x1", "QD2 x1"]


async def test_stop_keeps_the_partial_result(tmp_path: Path) -> None:
    host = ReplayHost([recording("randread-4k-qd1-sigint")], pace=0.05)
    stop = asyncio.Event()
    events: list[Event] = []

    def on_event(event: Event) -> None:
        events.append(event)
        if isinstance(event, SampleReady) and len(events) > 2:
            stop.set()

    bench = BenchRunner(host, host_name="t", runs_dir=tmp_path, on_event=on_event)
    run = await bench.run(settings("cdm", runtime_s=1.0), demo_target(str(tmp_path)), stop=stop)
    assert run.state is RunState.INTERRUPTED
    assert "partial result kept" in run.message
    assert len(run.steps) == 1 and run.steps[0].read_iops > 0
    assert (tmp_path / f"{run.run_id}.json").exists()


async def test_device_in_use_is_refused_before_anything_runs(tmp_path: Path) -> None:
    events: list[Event] = []
    host = ReplayHost(demo_recordings())
    busy = BenchTarget("/dev/loop9", TargetKind.DEVICE, dev="loop9", in_use=("mounted at /mnt",))
    run = await runner(host, tmp_path, events).run(settings("randrw"), busy, confirm="/dev/loop9")
    assert run.state is RunState.REFUSED
    assert "in use" in run.message and "mounted at /mnt" in run.message
    assert events == [] and host.played == 0
    assert list_dir(tmp_path) == []  # a refusal before anything ran is not saved


async def test_raw_writes_need_the_typed_serial() -> None:
    host = ReplayHost(demo_recordings())
    free = dataclasses.replace(demo_target(), kind=TargetKind.DEVICE, path="/dev/sdz")
    run = await runner(host, None).run(settings("randrw"), free, confirm="/dev/sdz")
    assert run.state is RunState.REFUSED
    assert "type its serial number PN2334PBG6P4SK" in run.message
    assert "does not match" in run.message
    # Reading needs no confirmation and no exclusive hold (but the device is opened once and
    # named through its descriptor: there is no /dev/sdz here).
    holds: list[bool] = []

    @contextlib.contextmanager
    def opened(target: BenchTarget, run_id: str, *, writing: bool) -> Iterator[Place]:
        holds.append(writing)
        yield Place(target.path)

    read_only = settings("sweep", iodepths=(1,))
    reader = BenchRunner(host, host_name="test", runs_dir=None, guarded=opened)
    assert (await reader.run(read_only, free)).state is RunState.COMPLETE
    assert holds == [False]
    run = await runner(host, None).run(read_only, free)
    assert run.state is RunState.REFUSED and "/dev/sdz cannot be opened" in run.message


async def test_tools_that_do_not_replay_fail_the_run(tmp_path: Path) -> None:
    host = ReplayHost(demo_recordings())
    target = demo_target(str(tmp_path))
    run = await runner(host, None).run(settings("dd", size_bytes=1 << 20), target)
    assert run.state is RunState.FAILED
    assert "not recorded for replay" in run.message
    assert len(run.steps) == 1


async def test_bad_plans_are_refused() -> None:
    run = await runner(ReplayHost(demo_recordings()), None).run(
        settings("custom", job_text="[j]\nfilename=/dev/sda\n"), demo_target()
    )
    assert run.state is RunState.REFUSED and "filename" in run.message


async def test_notes_reach_the_front_end(tmp_path: Path) -> None:
    events: list[Event] = []
    host = ReplayHost([recording("randread-4k-qd1-sigint")])
    await runner(host, None, events).run(settings("randrw"), demo_target(str(tmp_path)))
    assert [e.text for e in events if isinstance(e, RunNote)] == ["fio: terminating on signal 2"]


async def test_run_ids_are_unique_and_say_what(tmp_path: Path) -> None:
    target = demo_target(str(tmp_path))
    assert run_id_for(CLOCK, target, "cdm").endswith("-sdc-cdm")
    bench = runner(ReplayHost(demo_recordings()), tmp_path / "runs")
    first = await bench.run(settings("randrw"), target)
    second = await bench.run(settings("randrw"), target)
    assert second.run_id == f"{first.run_id}-2"
    third = await runner(ReplayHost(demo_recordings()), tmp_path / "runs").run(
        settings("randrw"), target
    )
    assert third.run_id == f"{first.run_id}-3"  # the runs directory already has -1 and -2
