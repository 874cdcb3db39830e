"""The processes the guard could not look into (`UnseenProcess`), from a fake /proc tree whose
refusals are injected where /proc makes them (the stat of a descriptor, the stat of a working
or root directory, the read of maps): the look keeps them beside the uses it found, at no
extra system call a descriptor; the verdict carries them without refusing; the guard says so
in one line before a run that writes; the watch says a new one once; a saved run keeps them.
On this machine's real /proc: tests/integration/test_guard_unseen.py."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import errno
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from nastui.bench import store
from nastui.bench.guard import Place, refusal, unseen_line, unseen_note
from nastui.bench.profiles import PROFILES
from nastui.bench.replay import ReplayHost, demo_recordings
from nastui.bench.runner import BenchRunner, Event, ProcessUnseen, watch_footprint
from nastui.collectors import procuse
from nastui.collectors.blockstack import inspect
from nastui.collectors.procuse import devno, parse_ring_files, process_uses, why_unseen
from nastui.core.footprint import File
from nastui.model import BenchRun, BenchTarget, RunState, TargetKind, UnseenProcess
from nastui.safeio import read_text_bounded
from tests.unit.test_guard_stack import RefusedEntry, fake_process, tree_with

INIT = UnseenProcess(1, "init", "descriptors refused")
LOOP = BenchTarget(
    "/dev/loop9", TargetKind.DEVICE, dev="loop9", devno="7:9", footprint=("loop9 bytes 0-end",)
)
WRITES = dataclasses.replace(PROFILES["randrw"].defaults, size_bytes=1 << 20)
READS = dataclasses.replace(PROFILES["sweep"].defaults, iodepths=(1,))


class Refusing:
    """/proc refusing to look into process `pid` (EACCES, as to root for a process of a
    parent user namespace): the parts named, each where /proc refuses it. Counts the stats
    of descriptors (`stats`) and the reads of /proc/PID/comm (`comms`)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, pid: int, *parts: str) -> None:
        self.pid, self.parts = str(pid), parts
        self.stats: list[str] = []
        self.comms = 0
        real_scandir, real_stat, real_read = os.scandir, os.stat, read_text_bounded
        mine = f"/{self.pid}/task/"

        @contextlib.contextmanager
        def scandir(path: str) -> Iterator[Iterator[object]]:
            with real_scandir(path) as found:
                refused = procuse.DESCRIPTORS in parts and mine in path
                yield (RefusedEntry(e, errno.EACCES, self.stats) if refused else e for e in found)

        def stat(path: str, *args: object, **kwargs: object) -> os.stat_result:
            if procuse.DIRECTORIES in parts and mine in str(path):
                raise PermissionError(errno.EACCES, "Permission denied", str(path))
            return real_stat(path, *args, **kwargs)  # type: ignore[arg-type]

        def read(path: str | Path, limit: int) -> str:
            if str(path).endswith(f"/{self.pid}/comm"):
                self.comms += 1
            if procuse.MAPS in parts and str(path).endswith(f"/{self.pid}/maps"):
                raise PermissionError(errno.EACCES, "Permission denied", str(path))
            return real_read(path, limit)

        monkeypatch.setattr(os, "scandir", scandir)
        monkeypatch.setattr(os, "stat", stat)
        monkeypatch.setattr(procuse, "read_text_bounded", read)


def used_file(tmp_path: Path) -> tuple[Path, File]:
    target = tmp_path / "t.img"
    target.write_bytes(b"")
    st = target.stat()
    return target, File(devno(st.st_dev), st.st_ino)


def test_a_process_whose_descriptors_are_refused_is_kept_once_beside_the_uses_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three threads, ten descriptors each, all refused: one note, one stat a thread (the
    refusal ends the directory, as before), its name from the /proc/PID/stat the look reads
    for every process anyway (no read of its own); the other process's uses are kept."""
    target, node = used_file(tmp_path)
    proc = tmp_path / "proc"
    fake_process(proc, 4242, {str(n): target for n in range(10)}, tmp_path, tids=(4243, 4244))
    fake_process(proc, 4300, {"3": target}, tmp_path)
    (proc / "4242" / "stat").write_text("4242 (init (odd)) S 1 4242 4242 0 -1\n")
    refusing = Refusing(monkeypatch, 4242, procuse.DESCRIPTORS)
    found = process_uses(proc)
    assert found.unseen == [UnseenProcess(4242, "init (odd)", "descriptors refused")]
    assert [u.what for u in found.uses if u.span.node == node] == ["open by pid 4300 (fake)"]
    assert len(refusing.stats) == 3 and refusing.comms == 0  # the name is the stat's
    assert found.denied == []


def test_each_refused_part_is_named_and_a_process_gone_is_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target, _ = used_file(tmp_path)
    proc = tmp_path / "proc"
    fake_process(proc, 4242, {"3": target}, tmp_path)
    Refusing(monkeypatch, 4242, procuse.MAPS)
    assert process_uses(proc).unseen == [UnseenProcess(4242, "fake", "maps refused")]
    monkeypatch.undo()
    Refusing(monkeypatch, 4242, procuse.DESCRIPTORS, procuse.DIRECTORIES, procuse.MAPS)
    (why,) = {p.why for p in process_uses(proc).unseen}
    assert why == "descriptors, directories and maps refused"
    monkeypatch.undo()
    (proc / "4242" / "task" / "4242" / "fd" / "3").unlink()
    (proc / "4242" / "task" / "4242" / "fd" / "3").symlink_to(tmp_path / "closed meanwhile")
    assert process_uses(proc).unseen == []  # ENOENT: closed, not refused


def test_why_in_words() -> None:
    assert why_unseen({procuse.MAPS, procuse.DESCRIPTORS}) == "descriptors and maps refused"
    assert why_unseen([procuse.DIRECTORIES]) == "directories refused"
    assert why_unseen([procuse.RING_FILES]) == "io_uring files unnamed"
    both = why_unseen([procuse.RING_FILES, procuse.MAPS])
    assert both == "maps refused; io_uring files unnamed"


def test_the_files_registered_with_an_io_uring() -> None:
    fdinfo = (
        "SqThread:\t-1\nUserFiles:\t3\n    0: /srv/disk.img\n    1: socket:[7061958]\n"
        "    2: /tmp/gone (deleted)\nUserBufs:\t0\nPollList:\n"
    )
    names = parse_ring_files(fdinfo)
    assert names == ["/srv/disk.img", "socket:[7061958]", "/tmp/gone (deleted)"]
    assert parse_ring_files("UserFiles:\t0\nUserBufs:\t0\n") == []


def test_the_verdict_carries_them_and_does_not_refuse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process /proc would not show adds no reason to refuse (the reasons are those of the
    look that saw it) and is named in the verdict as unseen; a fake tree alone names none."""
    root, _ = tree_with(tmp_path)
    target, _ = used_file(tmp_path)
    fake_process(root / "proc", 4300, {"3": target}, tmp_path)
    (root / "proc" / "4300" / "stat").write_text("4300 (sandbox-init) S 0 1 1 0 -1\n")
    before = inspect(root, "7:5", real=True)
    assert before.unseen == ()
    Refusing(monkeypatch, 4300, procuse.DESCRIPTORS, procuse.DIRECTORIES)
    verdict = inspect(root, "7:5", real=True)
    why = "descriptors and directories refused"
    assert verdict.unseen == (UnseenProcess(4300, "sandbox-init", why),)
    assert verdict.conflicts == before.conflicts and verdict.footprint == before.footprint
    assert inspect(root, "7:5", real=False).unseen == ()


def test_the_line_before_a_run_that_writes() -> None:
    target = dataclasses.replace(LOOP, unseen=(INIT,))
    assert unseen_note(WRITES, target) == (
        "could not look into 1 process: pid 1 (init), its descriptors refused by /proc: "
        "a write it holds open would not be seen"
    )
    assert unseen_note(READS, target) is None
    assert unseen_note(WRITES, LOOP) is None
    assert refusal(target, writing=True, confirm="/dev/loop9") is None  # never a refusal
    many = [UnseenProcess(p, f"p{p}", "maps refused") for p in range(1, 6)]
    assert unseen_line(many) == (
        "could not look into 5 processes: pid 1 (p1), its maps refused by /proc; pid 2 (p2), "
        "its maps refused by /proc; pid 3 (p3), its maps refused by /proc; and 2 more: "
        "a write they hold open would not be seen"
    )


class Unseeing(ReplayHost):
    """A replay whose looks cannot look into `init` from the first look and `late` from the
    `after`-th on."""

    def __init__(self, late: UnseenProcess, after: int) -> None:
        super().__init__(demo_recordings(), pace=0.2)
        self.late, self.after, self.looks = late, after, 0

    async def uses_now(self, target: BenchTarget) -> tuple[str, ...]:
        self.looks += 1
        return ()

    def unseen(self) -> tuple[UnseenProcess, ...]:
        return (INIT, self.late) if self.looks >= self.after else (INIT,)


@contextlib.contextmanager
def held(target: BenchTarget, run_id: str, *, writing: bool) -> Iterator[Place]:
    """The guarded workspace, minus the device (there is no /dev/loop9 here)."""
    yield Place(target.path)


async def test_the_watch_says_a_process_that_becomes_unseen_once_and_the_run_keeps_it(
    tmp_path: Path,
) -> None:
    """pid 1 was named before the run: not again. pid 77 becomes unseen at the second look:
    said once however many looks follow; the run is not stopped, and the saved run keeps
    both."""
    late = UnseenProcess(77, "agent", "descriptors refused")
    host, events = Unseeing(late, after=2), list[Event]()
    target = dataclasses.replace(LOOP, unseen=(INIT,))
    bench = BenchRunner(
        host, host_name="t", runs_dir=tmp_path, on_event=events.append, guarded=held
    )
    run = await bench.run(WRITES, target, confirm="/dev/loop9")
    assert run.state is RunState.COMPLETE, run.message
    assert host.looks >= 4
    said = [e for e in events if isinstance(e, ProcessUnseen)]
    assert said == [
        ProcessUnseen(
            late,
            "the watch could not look into 1 process: pid 77 (agent), its descriptors refused "
            "by /proc: a write it holds open would not be seen",
        )
    ]
    assert run.target.unseen == (INIT, late)
    (saved,) = store.list_runs(tmp_path)
    assert saved.target.unseen == (INIT, late)


async def test_the_watch_without_a_listener_only_watches() -> None:
    host, stop = Unseeing(UnseenProcess(77, "agent", "maps refused"), after=1), asyncio.Event()
    asyncio.get_running_loop().call_later(0.7, stop.set)
    assert await watch_footprint(host, LOOP, stop) == ""
    assert host.looks >= 2


def test_a_saved_run_keeps_them_and_one_saved_before_reads_as_none() -> None:
    with_unseen = BenchRun("x", "t", 0.0, WRITES, dataclasses.replace(LOOP, unseen=(INIT,)))
    assert store.from_dict(store.to_dict(with_unseen), "mem").target.unseen == (INIT,)
    data = store.to_dict(BenchRun("x", "t", 0.0, WRITES, LOOP))
    assert data["run"]["target"]["unseen"] == []
    del data["run"]["target"]["unseen"]
    assert store.from_dict(data, "saved before").target.unseen == ()
