"""The demo's modelled drives: every profile runs on every drive class through the real runner,
readers and differ, and the figures are physically coherent (MB/s = IOPS x block size, read-only
steps write nothing, believable IOPS per class and queue depth, no two steps alike, the same
seed the same run)."""

from __future__ import annotations

import asyncio
import dataclasses
import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nastui.bench.drivemodel import NVME, SATA_SSD, DriveModel, Workload, hdd, model_for, rates
from nastui.bench.profiles import PROFILES
from nastui.bench.replay import demo_target
from nastui.bench.runner import BenchRunner, Event, RunNote
from nastui.bench.simhost import ModelHost
from nastui.bench.sizes import parse_size
from nastui.model import BenchRun, BenchTarget, DriveIdentity, RunState, StepResult, Transport

CUSTOM = "[j]\nrw=randrw\nrwmixread=70\nbs=16k\niodepth=8\nruntime=3\ntime_based\nsize=1G\n"
CLASSES = {
    "hdd-5400": DriveIdentity(model="WDC WD40EFRX", rotational=True, rpm=5400),
    "hdd-7200": DriveIdentity(model="HGST HUS724040ALA640", rotational=True, rpm=7200),
    "sata-ssd": DriveIdentity(model="CT500MX500SSD1", transport=Transport.SATA, rotational=False),
    "nvme": DriveIdentity(model="Samsung SSD 970", transport=Transport.NVME, rotational=False),
}
READ_ONLY = {"read", "randread"}


def target(tmp_path: Path, drive: str) -> BenchTarget:
    return dataclasses.replace(demo_target(str(tmp_path)), identity=CLASSES[drive])


def run(tmp_path: Path, profile: str, drive: str, seed: int = 0) -> BenchRun:
    settings = PROFILES[profile].defaults
    if profile == "custom":
        settings = dataclasses.replace(settings, job_text=CUSTOM)
    runner = BenchRunner(ModelHost(seed=seed), host_name="demo", runs_dir=None, clock=lambda: 0.0)
    return asyncio.run(runner.run(settings, target(tmp_path, drive)))


def block_of(step: StepResult) -> int | None:
    """The step's block size: fio's bs, dd's bs, the timer's record size."""
    params = dict(step.params)
    text = params.get("bs") or params.get("record")
    if step.label == "custom job":
        return parse_size("16k")
    return parse_size(text) if text else None


def rw_of(step: StepResult) -> str:
    params = dict(step.params)
    if step.label == "custom job":
        return "randrw"
    return params.get("rw", "write")


@pytest.mark.parametrize("drive", sorted(CLASSES))
@pytest.mark.parametrize("profile", sorted(p for p in PROFILES))
def test_every_profile_runs_coherently_on_every_class(
    tmp_path: Path, profile: str, drive: str
) -> None:
    result = run(tmp_path, profile, drive)
    assert result.state is RunState.COMPLETE, result.message
    assert result.steps and all(s.error is None for s in result.steps)
    for step in result.steps:
        block = block_of(step)
        assert block is not None
        assert math.isclose(step.read_bps, step.read_iops * block, rel_tol=1e-9)
        assert math.isclose(step.write_bps, step.write_iops * block, rel_tol=1e-9)
        if rw_of(step) in READ_ONLY | {"source"}:
            assert step.write_iops == 0 and step.write_bps == 0, step.label
        else:
            assert step.write_iops > 0, step.label
        assert step.iops > 0
    for sample in result.samples:
        step = result.steps[sample.step]
        block = block_of(step)
        assert block is not None
        if step.label.startswith(("wsc", "dd")):
            continue  # progress samples: bytes over time (IOPS derived from them)
        assert math.isclose(sample.read_bps, sample.read_iops * block, rel_tol=1e-9)
        assert math.isclose(sample.write_bps, sample.write_iops * block, rel_tol=1e-9)
        if rw_of(step) in READ_ONLY:
            assert sample.write_iops == 0 and sample.write_bps == 0
    figures = [round(s.iops, 6) for s in result.steps]
    assert len(set(figures)) == len(figures), "two steps repeat each other"


def cdm(tmp_path: Path, drive: str) -> dict[str, StepResult]:
    return {s.label: s for s in run(tmp_path, "cdm", drive).steps}


def test_hdd_figures_are_those_of_a_spinning_disk(tmp_path: Path) -> None:
    steps = cdm(tmp_path, "hdd-7200")
    assert 150e6 < steps["SEQ1M Q8T1 read"].read_bps < 200e6
    assert 60 < steps["RND4K Q1T1 read"].read_iops < 100
    assert 150 < steps["RND4K Q32T1 read"].read_iops < 230
    assert steps["RND4K Q1T1 read"].lat_mean_ns is not None
    assert steps["RND4K Q1T1 read"].lat_mean_ns > 8e6  # seek + half a turn: > 8 ms
    slow = cdm(tmp_path, "hdd-5400")
    assert slow["RND4K Q1T1 read"].read_iops < steps["RND4K Q1T1 read"].read_iops


def test_sata_ssd_and_nvme_figures(tmp_path: Path) -> None:
    ssd = cdm(tmp_path, "sata-ssd")
    assert 500e6 < ssd["SEQ1M Q8T1 read"].read_bps < 560e6
    assert 80_000 < ssd["RND4K Q32T1 read"].read_iops < 95_000
    assert 8_000 < ssd["RND4K Q1T1 read"].read_iops < 13_000
    nvme = cdm(tmp_path, "nvme")
    assert 2.5e9 < nvme["SEQ1M Q8T1 read"].read_bps < 4e9
    assert nvme["SEQ1M Q1T1 read"].read_bps < nvme["SEQ1M Q8T1 read"].read_bps


def test_the_same_seed_gives_the_same_run_and_another_seed_another(tmp_path: Path) -> None:
    one, two = run(tmp_path, "sweep", "sata-ssd"), run(tmp_path, "sweep", "sata-ssd")
    assert one.samples == two.samples and one.steps == two.steps
    other = run(tmp_path, "sweep", "sata-ssd", seed=1)
    assert other.samples != one.samples


def test_long_steps_are_cut_and_say_so(tmp_path: Path) -> None:
    notes: list[str] = []

    def note(event: Event) -> None:
        if isinstance(event, RunNote):
            notes.append(event.text)

    runner = BenchRunner(ModelHost(), host_name="demo", runs_dir=None, on_event=note)
    settings = PROFILES["randrw"].defaults  # 1 GiB of 4K at ~80 IOPS: about an hour
    result = asyncio.run(runner.run(settings, target(tmp_path, "hdd-7200")))
    assert result.state is RunState.COMPLETE and result.steps[0].seconds == 60.0
    assert notes and notes[0].startswith("nastui demo: shown for its first 60 s of about ")


def test_model_for_picks_the_class() -> None:
    assert model_for(CLASSES["nvme"]) is NVME
    assert model_for(CLASSES["sata-ssd"]) is SATA_SSD
    assert model_for(CLASSES["hdd-5400"]).name == "HDD 5400 rpm"
    assert model_for(None).name == "HDD 7200 rpm"


MODELS = st.sampled_from([hdd(5400), hdd(7200), hdd(10000), hdd(15000), SATA_SSD, NVME])
LOADS = st.builds(
    Workload,
    block=st.sampled_from([512, 4096, 16384, 65536, 1 << 20, 16 << 20]),
    random=st.booleans(),
    read_share=st.sampled_from([0.0, 0.3, 0.5, 0.7, 1.0]),
    depth=st.integers(1, 256),
    jobs=st.integers(1, 16),
    cache_off=st.booleans(),
)


@given(MODELS, LOADS)
def test_rates_obey_block_size_ceilings_and_littles_law(model: DriveModel, load: Workload) -> None:
    r = rates(model, load)
    assert math.isclose(r.read_bps, r.read_iops * load.block)
    assert math.isclose(r.write_bps, r.write_iops * load.block)
    assert r.write_iops == 0 if load.read_share == 1.0 else r.write_iops > 0
    assert r.read_iops == 0 if load.read_share == 0.0 else r.read_iops > 0
    assert r.read_bps <= model.read.max_bps * (1 + 1e-9)
    assert r.write_bps <= model.write.max_bps * (1 + 1e-9)
    assert math.isclose(r.lat_mean_s * r.iops, load.depth * load.jobs)
    deeper = rates(model, dataclasses.replace(load, depth=load.depth * 2))
    assert deeper.iops >= r.iops * (1 - 1e-9)  # a deeper queue never does fewer IOPS


FIO_OPTIONS = st.fixed_dictionaries(
    {
        "rw": st.sampled_from(["read", "randread", "write", "randwrite", "randrw", "rw"]),
        "bs": st.sampled_from(["4k", "16k", "128k", "1M"]),
        "iodepth": st.integers(1, 64).map(str),
        "numjobs": st.integers(1, 4).map(str),
        "rwmixread": st.integers(1, 99).map(str),
        "runtime": st.integers(1, 4).map(str),
        "ramp_time": st.integers(0, 2).map(str),
        "time_based": st.just("1"),
        "name": st.just("job"),
    }
)


@given(MODELS, FIO_OPTIONS, st.integers(0, 3))
def test_every_interval_of_a_fio_step_is_coherent(
    model: DriveModel, options: dict[str, str], seed: int
) -> None:
    from nastui.bench.jobs import Step, Tool
    from nastui.bench.readers import FioReader
    from nastui.bench.simsteps import fio_chunks, fio_step

    step = fio_step(options, None, cache_off=False)
    job = Step(Tool.FIO, "x", tuple(options.items()))
    reader = FioReader(0, job, t0=0.0, ramp=options["ramp_time"] != "0")
    samples = []
    for chunk in fio_chunks(model, step, seed, "x"):
        for line in chunk.stdout:
            samples += reader.stdout(line)
    result = reader.finish(None)
    block = parse_size(options["bs"])
    read_only = options["rw"] in READ_ONLY
    assert result.error is None and not reader.notes
    assert len(samples) == int(options["runtime"]) + int(options["ramp_time"])
    for sample in [*samples, result]:
        assert math.isclose(sample.read_bps, sample.read_iops * block, rel_tol=1e-9)
        assert math.isclose(sample.write_bps, sample.write_iops * block, rel_tol=1e-9)
        if read_only:
            assert sample.write_iops == 0
        if options["rw"] in ("write", "randwrite"):
            assert sample.read_iops == 0
    assert result.seconds == float(options["runtime"])
    assert result.lat_p50_ns is not None and result.lat_p99_ns is not None
    assert result.lat_p50_ns <= result.lat_p99_ns


def test_a_size_bound_job_on_a_whole_device_runs_until_its_end() -> None:
    from nastui.bench.simsteps import fio_step

    options = {"rw": "write", "bs": "1M", "iodepth": "1"}
    assert fio_step(options, 4 << 40, cache_off=False).size == 4 << 40
    assert fio_step({**options, "size": "50%"}, 4 << 40, cache_off=False).size == 2 << 40
    assert fio_step({**options, "size": "1G"}, 4 << 40, cache_off=False).size == 1 << 30
    timed = {**options, "time_based": "1", "runtime": "5", "size": "1G"}
    assert fio_step(timed, 4 << 40, cache_off=False).size is None
