"""The guard's watch, without root: the runner looks at the footprint while a run writes to a
device and stops it at the first use by anyone else, keeping the partial result
(`BenchRunner`, a replayed fio); the local host lets a read-only probe pass once
(`LocalBenchHost.uses_now`). On real loop devices: tests/integration/test_guard_attacks.py."""

from __future__ import annotations

import contextlib
import dataclasses
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from nastui.bench import store
from nastui.bench.guard import Place
from nastui.bench.profiles import PROFILES
from nastui.bench.replay import ReplayHost, demo_recordings
from nastui.bench.runner import BenchRunner
from nastui.collectors import fio_host, fio_target
from nastui.collectors.blockstack import Verdict
from nastui.collectors.fio_host import LocalBenchHost
from nastui.model import BenchTarget, RunState, TargetKind

LOOP = BenchTarget(
    "/dev/loop9", TargetKind.DEVICE, dev="loop9", devno="7:9", footprint=("loop9 bytes 0-end",)
)


class WatchedHost(ReplayHost):
    """A replay (one dump every 0.2 s) whose footprint gains a user at the `after`-th look."""

    def __init__(self, after: int) -> None:
        super().__init__(demo_recordings(), pace=0.2)
        self.after, self.looks = after, 0

    async def uses_now(self, target: BenchTarget) -> tuple[str, ...]:
        self.looks += 1
        return ("loop9: loop12 over it at offset 0",) if self.looks >= self.after else ()


@contextlib.contextmanager
def held(target: BenchTarget, run_id: str, *, writing: bool) -> Iterator[Place]:
    """The guarded workspace, minus the device (there is no /dev/loop9 here)."""
    yield Place(target.path)


def runner(host: ReplayHost, runs: Path | None = None) -> BenchRunner:
    return BenchRunner(host, host_name="t", runs_dir=runs, guarded=held)


async def test_a_new_user_stops_the_run_and_keeps_the_partial_result(tmp_path: Path) -> None:
    host = WatchedHost(after=3)
    settings = dataclasses.replace(PROFILES["cdm"].defaults, size_bytes=1 << 20)
    run = await runner(host, tmp_path).run(settings, LOOP, confirm="/dev/loop9")
    assert run.state is RunState.REFUSED
    assert run.message.startswith("stopped by the guard: loop9: loop12 over it at offset 0; ")
    assert run.message.endswith("the partial result kept")
    assert 1 <= len(run.steps) < 8 and run.samples
    assert store.list_runs(tmp_path), "a run the guard stopped is saved"


async def test_reads_are_not_watched() -> None:
    host = WatchedHost(after=1)
    read_only = dataclasses.replace(PROFILES["sweep"].defaults, iodepths=(1,))
    run = await runner(host).run(read_only, LOOP)
    assert run.state is RunState.COMPLETE and host.looks == 0


async def test_a_quiet_footprint_lets_the_run_finish() -> None:
    host = WatchedHost(after=10_000)
    settings = dataclasses.replace(PROFILES["randrw"].defaults, size_bytes=1 << 20)
    run = await runner(host).run(settings, LOOP, confirm="/dev/loop9")
    assert run.state is RunState.COMPLETE, run.message
    assert host.looks >= 1


async def test_a_read_only_probe_counts_when_a_second_look_still_sees_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    probe, mount = "loop9: open read-only by pid 7 (blkid)", "loop9: mounted at /x (ext4)"
    looks = iter(
        [
            Verdict(LOOP.footprint, (probe,), frozenset({probe})),
            Verdict(LOOP.footprint, (), frozenset()),
            Verdict(LOOP.footprint, (probe,), frozenset({probe})),
            Verdict(LOOP.footprint, (probe,), frozenset({probe})),
            Verdict(LOOP.footprint, (mount,), frozenset()),
            Verdict(("loop9 bytes 4096-end",), (), frozenset()),
        ]
    )

    async def looked(root: Path, number: str, timeout: float, held: object = None) -> Verdict:
        return next(looks)

    monkeypatch.setattr(fio_host, "looked", looked)
    host = LocalBenchHost()
    assert await host.uses_now(LOOP) == ()  # a probe, once
    assert await host.uses_now(LOOP) == ()  # gone
    assert await host.uses_now(LOOP) == ()  # back, once
    assert await host.uses_now(LOOP) == (probe,)  # still there: a user
    assert await host.uses_now(LOOP) == (mount,)  # anything else: at once
    changed = await host.uses_now(LOOP)
    assert changed == (
        "what the target writes to changed: now loop9 bytes 4096-end (was loop9 bytes 0-end)",
    )


async def test_a_look_that_hangs_refuses(monkeypatch: pytest.MonkeyPatch) -> None:
    """A look stuck in a hung filesystem (stat on a dead NFS server) is given up on: that
    refuses, and its thread is a daemon's, so nastui still exits."""
    release = threading.Event()

    def stuck(root: Path, number: str, held: object = None) -> Verdict:
        release.wait(30)
        return Verdict((), ())

    monkeypatch.setattr(fio_target, "footprint_verdict", stuck)
    verdict = await fio_target.looked(Path("/"), "7:9", timeout=0.2)
    assert verdict.conflicts == (
        "the look at what uses it did not finish within 0.2 s (a hung filesystem?)",
    )
    assert any(t.name == "nastui-guard-look" and t.daemon for t in threading.enumerate())
    release.set()

    def broken(root: Path, number: str, held: object = None) -> Verdict:
        raise OSError("boom")

    monkeypatch.setattr(fio_target, "footprint_verdict", broken)
    with pytest.raises(OSError, match="boom"):
        await fio_target.looked(Path("/"), "7:9", timeout=5)
