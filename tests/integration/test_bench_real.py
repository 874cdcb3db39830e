"""Real fio, dd and write-sync-close runs through the runner, short: on temporary directories,
on a raw loop device and on a small loop-mounted filesystem filled with files; a run stopped
(fio SIGINTed: its final figures kept) and a fio killed from outside (the samples kept)."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import signal
from pathlib import Path

import pytest

from nastui.bench.profiles import PROFILES
from nastui.bench.runner import BenchRunner, Event, SampleReady
from nastui.collectors.fio_host import LocalBenchHost
from nastui.collectors.fio_target import inspect_target
from nastui.model import BenchRun, BenchSettings, Phase, RunState
from tests.blocklab import mounted, sh
from tests.conftest import require_tool
from tests.integration.test_guard_loops import loop_device

pytestmark = pytest.mark.integration
MIB = 1 << 20


def settings(profile: str, **changes: object) -> BenchSettings:
    return dataclasses.replace(PROFILES[profile].defaults, **changes)  # type: ignore[arg-type]


async def run_on(path: str, bench_settings: BenchSettings, **kwargs: object) -> BenchRun:
    target = await inspect_target(path)
    bench = BenchRunner(LocalBenchHost(), host_name="test", runs_dir=None)
    return await bench.run(bench_settings, target, **kwargs)  # type: ignore[arg-type]


def listing(path: Path) -> list[str]:
    return sorted(p.name for p in path.iterdir())


@pytest.fixture
def fio() -> str:
    return require_tool("fio", "fio")


async def test_cdm_on_a_temp_directory(tmp_path: Path, fio: str) -> None:
    run = await run_on(str(tmp_path), settings("cdm", size_bytes=16 * MIB, runtime_s=1.0))
    assert run.state is RunState.COMPLETE, run.message
    assert len(run.steps) == 8
    for step in run.steps:
        assert step.error is None and step.iops > 0, step
        assert step.lat_p50_ns is not None and step.lat_p99_ns is not None
    reads, writes = run.steps[:4], run.steps[4:]
    assert all(s.read_iops > 0 and s.write_iops == 0 for s in reads)
    assert all(s.write_iops > 0 and s.read_iops == 0 for s in writes)
    assert run.samples and {s.step for s in run.samples} == set(range(8))
    assert "of RAM: the page cache" in run.warnings[0]
    assert listing(tmp_path) == []  # the fresh directory and its test file are gone
    assert run.tool == "fio"


async def test_sweep_and_custom_job(tmp_path: Path, fio: str) -> None:
    sweep = settings("sweep", iodepths=(1, 4), runtime_s=1.0, size_bytes=16 * MIB)
    run = await run_on(str(tmp_path), sweep)
    assert run.state is RunState.COMPLETE, run.message
    assert [s.label for s in run.steps] == ["QD1 x1", "QD4 x1"]
    job = (
        "[global]\nioengine=libaio\ndirect=1\nsize=8M\ntime_based=1\nruntime=1\n"
        "[j]\nrw=randwrite\nbs=4k\n"
    )
    run = await run_on(str(tmp_path), settings("custom", job_text=job))
    assert run.state is RunState.COMPLETE, run.message
    assert run.steps[0].write_iops > 0
    assert listing(tmp_path) == []


async def test_dd_and_write_sync_close(tmp_path: Path) -> None:
    require_tool("dd", "coreutils")
    run = await run_on(str(tmp_path), settings("dd", size_bytes=32 * MIB))
    assert run.state is RunState.COMPLETE, run.message
    source, write, read = run.steps
    assert source.read_bps > 0 and write.write_bps > 0 and read.read_bps > 0
    assert write.bytes_done == read.bytes_done == 32 * MIB
    run = await run_on(str(tmp_path), settings("wsc", size_bytes=8 * MIB, record_sizes=(4096, MIB)))
    assert run.state is RunState.COMPLETE, run.message
    assert [s.label for s in run.steps] == [
        "wsc 4K",
        "wsc 1M",
        "wsc 4K O_DIRECT",
        "wsc 1M O_DIRECT",
    ]
    for step in run.steps:
        assert [name for name, _ in step.timings] == ["write", "fsync", "close"]
        assert step.bytes_done == 8 * MIB and step.write_bps > 0
    assert listing(tmp_path) == []


async def test_randrw_over_a_whole_loop_device_with_diskstats(tmp_path: Path, fio: str) -> None:
    """Bound by time, not bytes: 4 s with a status line each second gives three or more samples
    however fast the machine is (a 160 MiB pass could end before the second one)."""
    with loop_device(tmp_path, "whole", 64) as device:
        run = await run_on(device, settings("randrw", runtime_s=4.0), confirm=device)
        assert run.state is RunState.COMPLETE, run.message
        (step,) = run.steps
        assert step.bytes_done > 0 and step.iops > 0
        assert abs(step.read_iops - step.write_iops) < 0.3 * step.iops  # 50/50
        later = run.samples[1:]
        assert len(later) >= 2 and all(s.disk_write_bps is not None for s in later)


async def test_fill_a_small_filesystem_with_files(tmp_path: Path, fio: str) -> None:
    require_tool("mkfs.ext4", "e2fsprogs")
    with loop_device(tmp_path, "fill", 256) as device:
        sh("mkfs.ext4", "-q", "-F", device)
        with mounted(device, tmp_path / "mnt") as mnt:
            target = await inspect_target(str(mnt))
            assert target.fs_type == "ext4" and target.dev == Path(device).name
            run = await run_on(str(mnt), settings("fill", file_bytes=32 * MIB))
            assert run.state is RunState.COMPLETE, run.message
            (step,) = run.steps
            files = int(step.param("nrfiles") or 0)
            assert files >= 3 and step.bytes_done == files * 32 * MIB
            done = [s.bytes_done for s in run.samples]
            assert done == sorted(done)  # MB/s against bytes written
            assert listing(mnt) == ["lost+found"]


async def test_stop_keeps_the_partial_result(tmp_path: Path, fio: str) -> None:
    stop = asyncio.Event()
    seen: list[Event] = []

    def on_event(event: Event) -> None:
        seen.append(event)
        if sum(isinstance(e, SampleReady) for e in seen) == 2:
            stop.set()

    target = await inspect_target(str(tmp_path))
    bench = BenchRunner(
        LocalBenchHost(), host_name="t", runs_dir=tmp_path / "runs", on_event=on_event
    )
    long = settings("randrw", size_bytes=16 * MIB, runtime_s=60.0)
    run = await bench.run(long, target, stop=stop)
    assert run.state is RunState.INTERRUPTED
    (step,) = run.steps
    assert step.error is None and step.iops > 0 and step.seconds < 20
    assert (tmp_path / "runs" / f"{run.run_id}.json").exists()
    assert listing(tmp_path) == ["runs"]


async def test_fio_killed_from_outside_keeps_the_samples(tmp_path: Path, fio: str) -> None:
    killed: list[int] = []

    def on_event(event: Event) -> None:
        if isinstance(event, SampleReady) and event.sample.phase is Phase.RUN and not killed:
            for pid in fio_children():
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)

    target = await inspect_target(str(tmp_path))
    bench = BenchRunner(LocalBenchHost(), host_name="t", runs_dir=None, on_event=on_event)
    run = await bench.run(settings("randrw", size_bytes=16 * MIB, runtime_s=60.0), target)
    assert killed
    assert run.state is RunState.FAILED and "exited -9" in run.message
    assert run.samples and run.steps[0].iops > 0  # what was measured before the kill
    assert listing(tmp_path) == []
    assert fio_children() == []  # --thread: no job process outlives its fio


def fio_children() -> list[int]:
    """fio processes started by this test process."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            comm = stat.read_text().split("(", 1)[1].rsplit(")", 1)[0]
        except (OSError, IndexError):
            continue
        if comm == "fio" and int(fields[1]) == os.getpid():
            found.append(int(stat.parent.name))
    return found
