"""`BenchRunner`: runs a profile on a target, the same way for the CLI and the TUI.

    plan -> guard (refusal, confirmation) -> SMART before -> workspace (fresh directory, or the
    device held O_EXCL) -> second look, then the watch -> [write cache] -> each step streamed:
    lines -> reader -> samples (+ /proc/diskstats of the device beside each) -> results ->
    restore cache, clean up -> SMART after -> saved as JSON + CSV

Front ends get `Event`s as things happen (a step started, a sample, a step finished) and the
finished `BenchRun`. Setting the `stop` event (Ctrl-C, SIGTERM, `s` in the TUI) sends fio
SIGINT: it prints its final result, which is kept, and the run ends INTERRUPTED with everything
measured so far saved. Cleanup runs in `finally`, on every way out.

While a run writes to a device, the watch looks at the device's footprint every `WATCH_S`
seconds (`BenchHost.uses_now`): a user that appears, or a footprint that changes, stops the
tool the same way, and the run ends REFUSED with the reason and the partial result. A run
that may fill a directory's filesystem (`fills`) is watched the same way for something that
comes to need its free space (a loop device set up over a file there). A process
the watch cannot look into (`BenchHost.unseen`) that the inspection could is said once
(`ProcessUnseen`) and kept in the run's `target.unseen`; it does not stop the run.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import signal
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from nastui.bench import store
from nastui.bench.cache import CacheError, WriteCacheSwitch
from nastui.bench.fiojob import custom_job_text
from nastui.bench.guard import (
    GuardRefused,
    Place,
    fills,
    refusal,
    unseen_line,
    workspace,
    writes,
)
from nastui.bench.host import BenchHost
from nastui.bench.jobs import (
    CUSTOM_FILE,
    Step,
    Tool,
    custom_argv,
    dd_argv,
    fio_argv,
    wsc_argv,
)
from nastui.bench.names import numbered
from nastui.bench.profiles import honesty_warnings, plan
from nastui.bench.readers import DdReader, FioReader, StepReader, WscReader
from nastui.model import (
    BenchRun,
    BenchSample,
    BenchSettings,
    BenchTarget,
    RunState,
    StepResult,
    TargetKind,
    UnseenProcess,
)

UNBOUNDED_STEP_S = 14 * 86400.0  # a size-bound job (filling 20 TB) may take days
WATCH_S = 0.5  # the watch starts a look this often (or at once when a look took longer)


@dataclass(frozen=True, slots=True)
class StepStarted:
    """Step `index` of `total` began."""

    index: int
    step: Step
    total: int


@dataclass(frozen=True, slots=True)
class SampleReady:
    """A new interval was measured."""

    sample: BenchSample


@dataclass(frozen=True, slots=True)
class StepFinished:
    """Step `index` ended with `result`."""

    index: int
    result: StepResult


@dataclass(frozen=True, slots=True)
class RunNote:
    """Something the tools said that is worth a line (fio's own messages)."""

    text: str


@dataclass(frozen=True, slots=True)
class ProcessUnseen:
    """The watch could not look into a process it had not met before (`text`: in one line)."""

    process: UnseenProcess
    text: str


Event = StepStarted | SampleReady | StepFinished | RunNote | ProcessUnseen


class Workspace(Protocol):
    """`nastui.bench.guard.workspace`'s signature."""

    def __call__(
        self, target: BenchTarget, run_id: str, *, writing: bool
    ) -> contextlib.AbstractContextManager[Place]: ...


@dataclass(slots=True)
class _Job:
    """A run in progress: what it is, its steps, and what it has measured so far."""

    base: BenchRun
    steps: tuple[Step, ...]
    stop: asyncio.Event
    results: list[StepResult] = field(default_factory=list)
    samples: list[BenchSample] = field(default_factory=list)
    guard: str | None = None  # why the watch stopped the run
    unseen: list[UnseenProcess] = field(default_factory=list)  # met by the watch


def run_id_for(started: float, target: BenchTarget, profile: str) -> str:
    """ "20250301-142233-sdc-cdm": sortable, says what and where."""
    where = target.dev or Path(target.path).name or "target"
    return f"{time.strftime('%Y%m%d-%H%M%S', time.localtime(started))}-{where}-{profile}"


def step_timeout(step: Step) -> float:
    """How long a step may run before it is killed: generous, never unbounded."""
    return UNBOUNDED_STEP_S if step.seconds is None else step.seconds * 3 + 120


class DiskRates:
    """/proc/diskstats rates of the target's device, over the same intervals as the samples."""

    def __init__(self, host: BenchHost, dev: str | None) -> None:
        self.host, self.dev = host, dev
        self._last: tuple[float, int, int] | None = None
        self.mark()

    def mark(self) -> None:
        """Take a baseline now."""
        counters = self.host.disk_bytes(self.dev) if self.dev else None
        self._last = None if counters is None else (self.host.now(), *counters)

    def annotate(self, sample: BenchSample) -> BenchSample:
        """`sample` with the device's read and write rates since the previous one."""
        before = self._last
        self.mark()
        now = self._last
        if before is None or now is None or now[0] - before[0] < 0.05:
            return sample
        secs = now[0] - before[0]
        read, write = (now[1] - before[1]) / secs, (now[2] - before[2]) / secs
        if read < 0 or write < 0:
            return sample
        return dataclasses.replace(sample, disk_read_bps=read, disk_write_bps=write)


def make_reader(index: int, step: Step, t0: float, settings: BenchSettings) -> StepReader:
    """The reader for a step's tool."""
    if step.tool is Tool.DD:
        return DdReader(index, step, t0=t0)
    if step.tool is Tool.WSC:
        return WscReader(index, step, t0=t0)
    ramp = bool(step.param("ramp_time")) or (step.param("job") is not None and settings.ramp_s > 0)
    return FioReader(index, step, t0=t0, ramp=ramp)


@contextlib.contextmanager
def stop_on_signals(stop: asyncio.Event, signals: tuple[int, ...]) -> Iterator[None]:
    """While in the block, these signals set `stop` (the run then ends cleanly, kept)."""
    loop = asyncio.get_running_loop()
    installed = []
    for sig in signals:
        with contextlib.suppress(ValueError, RuntimeError, NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
            installed.append(sig)
    try:
        yield
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)


async def watch_footprint(
    host: BenchHost,
    target: BenchTarget,
    stop: asyncio.Event,
    on_unseen: Callable[[UnseenProcess], None] | None = None,
) -> str:
    """Look at `target`'s footprint every `WATCH_S` seconds until `stop` is set: at the first
    use of it by anyone else, or a change in it, return why ("" once `stop` was set by
    another). The caller records why and sets `stop` (no other task runs in between).
    `on_unseen` hears of each process a look could not look into, once (by pid and name),
    unless the inspection named it already (`target.unseen`)."""
    said = {(p.pid, p.comm) for p in target.unseen}
    while not stop.is_set():
        began = time.monotonic()
        uses = await host.uses_now(target)
        for process in host.unseen():
            if on_unseen is not None and (process.pid, process.comm) not in said:
                said.add((process.pid, process.comm))
                on_unseen(process)
        if uses:
            return "; ".join(uses)
        await asyncio.sleep(max(0.0, WATCH_S - (time.monotonic() - began)))
    return ""


CLI_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
UI_SIGNALS = (signal.SIGTERM, signal.SIGHUP)  # Ctrl-C is a key in the TUI


class BenchRunner:
    """Runs benchmarks through a `BenchHost`; reports `Event`s; saves every run it ends."""

    def __init__(
        self,
        host: BenchHost,
        *,
        host_name: str,
        runs_dir: Path | None,
        on_event: Callable[[Event], None] | None = None,
        clock: Callable[[], float] = time.time,
        tool_note: str = "",
        guarded: Workspace = workspace,
    ) -> None:
        """Set up.

        Args:
            host: the machine (or a replay).
            host_name: saved with each run.
            runs_dir: where runs are saved; None: not saved.
            on_event: called with every `Event` as it happens.
            clock: Unix time (runs are stamped with it).
            tool_note: saved beside the tool's name ("replayed recording").
            guarded: the guarded workspace (`nastui.bench.guard.workspace`; tests of the
                write-cache logic hand in one that needs no real device).
        """
        self.host, self.host_name, self.runs_dir = host, host_name, runs_dir
        self.tool_note = tool_note
        self.guarded = guarded
        self._given: dict[str, int] = {}  # an id's base -> how many of its names were passed
        self.on_event = on_event or (lambda event: None)
        self.clock = clock

    async def run(
        self,
        settings: BenchSettings,
        target: BenchTarget,
        *,
        confirm: str | None = None,
        stop: asyncio.Event | None = None,
    ) -> BenchRun:
        """Run `settings.profile` on `target`; never raises for a refusal or a failed tool.

        Args:
            settings: the profile and its settings.
            target: the target as inspected (`nastui.collectors.fio_target.inspect_target`).
            confirm: what the user typed to confirm raw-device writes.
            stop: set it to stop early; the partial result is kept.
        """
        stop = stop or asyncio.Event()
        started = self.clock()
        base = BenchRun(
            run_id="",
            host=self.host_name,
            started_at=started,
            settings=settings,
            target=target,
            warnings=honesty_warnings(settings, target),
        )
        base = dataclasses.replace(base, run_id=self._unique(base))
        try:
            steps = plan(settings, target)
        except ValueError as exc:
            return self._end(base, RunState.REFUSED, str(exc))
        writing = writes(steps)
        why = refusal(target, writing=writing, confirm=confirm, filling=fills(steps, target))
        if why is not None:
            return self._end(base, RunState.REFUSED, why)
        before = await self.host.smart(target)
        job = _Job(base, steps, stop)
        state, message = await self._steps(job, writing)
        after = None if state is RunState.REFUSED else await self.host.smart(target)
        tools = {s.tool.value for s in steps}
        unseen = (*target.unseen, *job.unseen)
        return self._end(
            dataclasses.replace(
                base,
                target=dataclasses.replace(target, unseen=unseen) if job.unseen else target,
                steps=tuple(job.results),
                samples=tuple(job.samples),
                smart_before=before,
                smart_after=after,
                tool=", ".join(sorted(tools)) + (f" ({self.tool_note})" if self.tool_note else ""),
            ),
            state,
            message,
        )

    async def _steps(self, job: _Job, writing: bool) -> tuple[RunState, str]:
        """Every step inside the guarded workspace; (how it ended, one line)."""
        base, steps, stop = job.base, job.steps, job.stop
        state, message = RunState.COMPLETE, f"{len(steps)} step{'s' * (len(steps) != 1)} complete"
        cache: WriteCacheSwitch | None = None
        try:
            with self.guarded(base.target, base.run_id, writing=writing) as place:
                await self._still_free(base.target, place, writing)
                if base.settings.cache_matrix:
                    cache = WriteCacheSwitch(self.host, base.target)
                async with self._watching(job, writing):
                    state, message = await self._each_step(job, place, cache, (state, message))
        except GuardRefused as exc:
            state, message = RunState.REFUSED, str(exc)
        except CacheError as exc:
            state, message = RunState.FAILED, str(exc)
        finally:
            note = await cache.restore() if cache is not None else None
        if job.guard is not None:
            done = len(job.results)
            state = RunState.REFUSED
            message = (
                f"stopped by the guard: {job.guard}; {done} of {len(steps)} steps, "
                "the partial result kept"
            )
        elif stop.is_set() and state is RunState.COMPLETE:
            state = RunState.INTERRUPTED
            done = len(job.results)
            message = f"stopped: {done} of {len(steps)} steps, the partial result kept"
        if cache is not None and cache.original is not None:
            was = "on" if cache.original else "off"
            message += f"; write cache {'NOT ' if note else ''}restored to {was}"
        return state, message + (f" ({note})" if note else "")

    async def _each_step(
        self,
        job: _Job,
        place: Place,
        cache: WriteCacheSwitch | None,
        ending: tuple[RunState, str],
    ) -> tuple[RunState, str]:
        """The steps in order, the held device checked after each; how they ended."""
        for index, step in enumerate(job.steps):
            if job.stop.is_set():
                break
            if cache is not None and step.cache is not None:
                await cache.switch(step.cache == "on")
            result = await self._step(job, index, place.path)
            job.results.append(result)
            place.recheck()
            if result.error and not job.stop.is_set():
                return RunState.FAILED, f"{step.label}: {result.error}"
        return ending

    async def _still_free(self, target: BenchTarget, place: Place, writing: bool) -> None:
        """With the device held O_EXCL, look again, at the device held: what began using it
        since it was inspected (a loop device, a process, a label) stops the run before
        anything is written."""
        if not writing or target.kind is not TargetKind.DEVICE:
            return
        uses = await self.host.in_use(dataclasses.replace(target, path=place.path))
        if uses:
            raise GuardRefused(f"{target.path} is in use, nothing written: " + "; ".join(uses))

    @contextlib.asynccontextmanager
    async def _watching(self, job: _Job, writing: bool) -> AsyncIterator[None]:
        """While in the block, the watch runs: a device target being written, or a directory
        target being filled (what needs its free space: `fills`)."""
        target = job.base.target
        device = target.kind is TargetKind.DEVICE
        if not writing or not (device or fills(job.steps, target)):
            yield
            return
        watch = asyncio.ensure_future(self._watch(job))
        try:
            yield
        finally:
            watch.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watch

    async def _watch(self, job: _Job) -> None:
        """The watch (`watch_footprint`) over the run's target: at the first use of it by
        anyone else, or a change in it, say why and stop the run; a process it cannot look
        into is said once (`ProcessUnseen`) and kept for the run's record."""

        def unseen(process: UnseenProcess) -> None:
            job.unseen.append(process)
            self.on_event(ProcessUnseen(process, f"the watch {unseen_line((process,))}"))

        why = await watch_footprint(self.host, job.base.target, job.stop, unseen)
        if why:
            job.guard = why
            job.stop.set()

    async def _step(self, job: _Job, index: int, path: str) -> StepResult:
        """One step, streamed; its result."""
        step = job.steps[index]
        self.on_event(StepStarted(index, step, len(job.steps)))
        t0 = job.samples[-1].t if job.samples else 0.0
        reader = make_reader(index, step, t0, job.base.settings)
        disk = DiskRates(self.host, job.base.target.dev)
        seen_notes = 0

        def take(new: list[BenchSample]) -> None:
            nonlocal seen_notes
            for raw in new:
                sample = disk.annotate(raw)
                job.samples.append(sample)
                self.on_event(SampleReady(sample))
            for note in reader.notes[seen_notes:]:
                self.on_event(RunNote(note))
            seen_notes = len(reader.notes)

        with self._argv(step, path) as argv:
            outcome = await self.host.stream(
                argv,
                timeout=step_timeout(step),
                on_stdout=lambda line: take(reader.stdout(line)),
                on_stderr=lambda line: take(reader.stderr(line)),
                stop=job.stop,
            )
        failure = None if outcome.ok or job.stop.is_set() else outcome.describe()
        result = reader.finish(failure)
        self.on_event(StepFinished(index, result))
        return result

    @contextlib.contextmanager
    def _argv(self, step: Step, path: str) -> Iterator[tuple[str, ...]]:
        """The step's command line (a custom job's file lives only as long as the step)."""
        if step.tool is Tool.DD:
            yield dd_argv(step, path)
        elif step.tool is Tool.WSC:
            yield wsc_argv(self.host.python, step, path)
        elif step.param("job") is not None:
            with tempfile.TemporaryDirectory(prefix="nastui-job-") as tmp:
                job = Path(tmp) / CUSTOM_FILE
                job.write_text(custom_job_text(step.param("job") or "", path), "utf-8")
                yield custom_argv(str(job))
        else:
            yield fio_argv(step, path)

    def _unique(self, run: BenchRun) -> str:
        """The run's id: `run_id_for` its start, target and profile, or with "-2", "-3"...:
        past every name of that second this runner gave (so its ids sort in the order its
        runs were made, `store.run_order`) and past any a saved run has. Ids are unique where
        they live; a fresh directory's name is made unique where it lives (`FreshDirectory`,
        mkdir as the claim), so another process's run going on or a killed run's leftover
        changes where this run writes, never what it is called (the demo's frozen clock
        stamps every run the same second). Two processes may still pick the same id at the
        same moment: the run is then saved under the next free id (`_save`)."""
        base = run_id_for(run.started_at, run.target, run.settings.profile)
        passed = self._given.get(base, 0)
        for index, candidate in enumerate(numbered(base)):
            if index >= passed and not self._saved(candidate):
                self._given[base] = index + 1
                return candidate
        raise AssertionError("numbered() has no end")  # pragma: no cover

    def _saved(self, run_id: str) -> bool:
        """Whether a saved run has this id."""
        return self.runs_dir is not None and store.taken(self.runs_dir, run_id)

    def _end(self, run: BenchRun, state: RunState, message: str) -> BenchRun:
        """Stamp the end, save (unless refused before anything ran), return."""
        ended = dataclasses.replace(run, state=state, message=message, ended_at=self.clock())
        if self.runs_dir is not None and (state is not RunState.REFUSED or ended.steps):
            return self._save(ended, self.runs_dir)
        return ended

    def _save(self, run: BenchRun, runs_dir: Path) -> BenchRun:
        """Save `run`; under the next free id when another process saved one by its id
        meanwhile (a file is never replaced); the run as saved."""
        while True:
            try:
                store.save(run, runs_dir)
            except store.IdTaken:
                run = dataclasses.replace(run, run_id=self._unique(run))
                continue
            return run
