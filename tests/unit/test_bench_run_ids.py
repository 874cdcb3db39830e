"""Run ids are unique where they live (the runner's own, the saved runs) and fresh directories
where they live (the target directory): with the demo's frozen clock every run is stamped the
same second, so a directory left by a killed run or another run going on (another thread or
process) must push the run's fresh directory to a new name, and a run saved meanwhile its id,
never refuse it and never touch what is there. A runner's ids sort in the order its runs were
made, whatever other processes do (the bench screen's pictures name them)."""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from pathlib import Path

import pytest

from nastui.bench import store
from nastui.bench.guard import FRESH_PREFIX
from nastui.bench.profiles import PROFILES
from nastui.bench.replay import ReplayHost, demo_recordings, demo_target
from nastui.bench.runner import BenchRunner, run_id_for
from nastui.model import BenchRun, BenchSettings, BenchTarget, RunState

CLOCK = 1_700_000_000.0  # frozen, as the demo's sim clock without a state directory
RANDRW: BenchSettings = PROFILES["randrw"].defaults


def runner(runs: Path | None, host: ReplayHost | None = None) -> BenchRunner:
    return BenchRunner(
        host or ReplayHost(demo_recordings()), host_name="t", runs_dir=runs, clock=lambda: CLOCK
    )


def fresh_dirs(path: Path) -> list[str]:
    return sorted(p.name for p in path.iterdir() if p.name.startswith(FRESH_PREFIX))


async def test_a_leftover_fresh_directory_is_passed_over_and_kept(tmp_path: Path) -> None:
    target = demo_target(str(tmp_path))
    first = run_id_for(CLOCK, target, "randrw")
    leftover = tmp_path / f"{FRESH_PREFIX}{first}"  # a killed run's, or another user's
    leftover.mkdir()
    (leftover / "nastui-bench.dat").write_bytes(b"not ours")
    run = await runner(tmp_path / "runs").run(RANDRW, target)
    assert run.state is RunState.COMPLETE, run.message
    assert run.run_id == first  # what the run is called does not depend on who writes there
    assert fresh_dirs(tmp_path) == [leftover.name]  # ours made and removed, the leftover kept
    assert (leftover / "nastui-bench.dat").read_bytes() == b"not ours"
    assert store.load(tmp_path / "runs" / f"{run.run_id}.json") == run


async def test_a_symlink_with_the_name_is_passed_over_too(tmp_path: Path) -> None:
    target = demo_target(str(tmp_path))
    first = run_id_for(CLOCK, target, "randrw")
    (tmp_path / f"{FRESH_PREFIX}{first}").symlink_to(tmp_path / "nowhere")
    run = await runner(None).run(RANDRW, target)
    assert run.state is RunState.COMPLETE and run.run_id == first
    assert not (tmp_path / "nowhere").exists()


async def test_two_runs_at_once_in_one_loop_both_complete(tmp_path: Path) -> None:
    """Two runners (two front ends, as two processes have) on the same target in the same
    frozen second: the second is started while the first writes in its fresh directory."""
    target = demo_target(str(tmp_path))
    runs = tmp_path / "runs"
    one = runner(runs, ReplayHost(demo_recordings(), pace=0.01))
    two = runner(runs, ReplayHost(demo_recordings(), pace=0.01))
    a, b = await asyncio.gather(one.run(RANDRW, target), two.run(RANDRW, target))
    assert_both_saved(a, b, runs)
    assert fresh_dirs(tmp_path) == []


def test_two_runs_at_once_in_two_threads_both_complete(tmp_path: Path) -> None:
    target = demo_target(str(tmp_path))
    runs = tmp_path / "runs"
    start = threading.Barrier(2)
    done: list[BenchRun] = []

    def go() -> None:
        bench = runner(runs, ReplayHost(demo_recordings(), pace=0.01))
        start.wait()
        done.append(asyncio.run(bench.run(RANDRW, target)))

    threads = [threading.Thread(target=go) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert len(done) == 2
    assert_both_saved(done[0], done[1], runs)
    assert fresh_dirs(tmp_path) == []


def assert_both_saved(a: BenchRun, b: BenchRun, runs: Path) -> None:
    assert a.state is RunState.COMPLETE, a.message
    assert b.state is RunState.COMPLETE, b.message
    assert a.run_id != b.run_id
    assert {store.load(runs / f"{r.run_id}.json") for r in (a, b)} == {a, b}
    assert [r.run_id for r in store.list_runs(runs)] == sorted([a.run_id, b.run_id], key=len)


class SavedMeanwhile(ReplayHost):
    """While its step runs, another process saves a run under the same id (it started the same
    second, on another target, and finished first)."""

    def __init__(self, runs: Path, other: BenchRun) -> None:
        super().__init__(demo_recordings())
        self.runs, self.other = runs, other

    async def stream(self, *args: object, **kwargs: object) -> object:  # type: ignore[override]
        if not (self.runs / f"{self.other.run_id}.json").exists():
            store.save(self.other, self.runs)
        return await super().stream(*args, **kwargs)  # type: ignore[arg-type]


async def test_a_run_saved_meanwhile_under_the_same_id_is_not_overwritten(
    tmp_path: Path,
) -> None:
    target = demo_target(str(tmp_path))
    runs = tmp_path / "runs"
    other = dataclasses.replace(await runner(None).run(RANDRW, target), host="elsewhere")
    run = await runner(runs, SavedMeanwhile(runs, other)).run(RANDRW, target)
    assert run.state is RunState.COMPLETE, run.message
    assert run.run_id == f"{other.run_id}-2"
    assert store.load(runs / f"{other.run_id}.json") == other  # untouched
    assert store.load(runs / f"{run.run_id}.json") == run
    assert sorted(p.name for p in runs.iterdir()) == sorted(
        f"{r.run_id}.{ext}" for r in (other, run) for ext in ("json", "csv")
    )


def test_suffixed_ids_list_in_the_order_they_were_made(tmp_path: Path) -> None:
    """With the clock frozen, "-10" comes after "-9" (not between the first and "-2"), so
    `last` is the last run made and the numbers `bench list` gives follow the runs."""
    target: BenchTarget = demo_target(str(tmp_path))
    bench = runner(tmp_path / "runs")
    made = [asyncio.run(bench.run(RANDRW, target)).run_id for _ in range(11)]
    assert made[-1].endswith("-11")
    assert [r.run_id for r in store.list_runs(tmp_path / "runs")] == made
    assert store.find(tmp_path / "runs", "last").run_id == made[-1]
    assert store.find(tmp_path / "runs", "#10").run_id == made[9]
    assert store.find(tmp_path / "runs", made[0]).run_id == made[0]  # exact beats prefix


async def test_a_runs_directory_that_is_a_file_fails_the_save_at_once(tmp_path: Path) -> None:
    """Only a run saved by the id moves the save to the next id: a runs directory that cannot
    be made is an error, raised (as before), never an endless search for a free name."""
    (tmp_path / "runs").write_text("not a directory")
    with pytest.raises(FileExistsError):
        await runner(tmp_path / "runs").run(RANDRW, demo_target(str(tmp_path)))
    assert (tmp_path / "runs").read_text() == "not a directory"


async def test_what_another_process_writes_does_not_rename_a_runners_runs(tmp_path: Path) -> None:
    """Two demos at once (two processes, no runs saved), each making two runs while the other
    writes in the same directory: each names its runs as it would alone, in the order it made
    them. (Naming them after the fresh directories on disk gave one "-2" then "" when the
    other's directory was gone by its second run, and the bench screen's pictures differed
    whenever two test workers ran them at once.)"""
    target = demo_target(str(tmp_path))
    first = run_id_for(CLOCK, target, "randrw")

    async def twice(bench: BenchRunner) -> list[str]:
        return [(await bench.run(RANDRW, target)).run_id for _ in range(2)]

    one = runner(None, ReplayHost(demo_recordings(), pace=0.01))
    two = runner(None, ReplayHost(demo_recordings(), pace=0.005))
    made = await asyncio.gather(twice(one), twice(two))
    assert list(made) == [[first, f"{first}-2"]] * 2
    assert fresh_dirs(tmp_path) == []


async def test_a_leftover_gone_by_the_next_run_keeps_the_order(tmp_path: Path) -> None:
    target = demo_target(str(tmp_path))
    first = run_id_for(CLOCK, target, "randrw")
    bench = runner(None)
    leftover = tmp_path / f"{FRESH_PREFIX}{first}"
    leftover.mkdir()
    before = await bench.run(RANDRW, target)
    leftover.rmdir()
    after = await bench.run(RANDRW, target)
    assert [before.run_id, after.run_id] == [first, f"{first}-2"]
