"""Live SMART for every drive: standby-safe, concurrent, bounded, never stalling a poll.

Each drive gets, through the runner and always with `-n standby` and its interface:
- a full read every `smart_every` seconds (default 300): pySMART parses `smartctl -a`
  (`nastui.collectors.smart.pysmart_parse`), with any further command pySMART asks for run the same
  way; the exit status bits are kept;
- between full reads, for drives without a hwmon sensor, a quick temperature and power-mode
  probe every `temp_every` seconds (default 30): `smartctl -n standby -j -A`, parsed as JSON.
Reads run as tasks, at most `concurrency` (32) at once, each bounded by the runner's timeout. A poll
waits up to `wait_s` for the reads it started (no later than the poll's deadline, if it has one:
`nastui.collectors.base.reads_until`) and publishes what is done; a hung smartctl keeps only its
own drive waiting. A read still going on is taken up by the next poll; until a drive's first read
ends, the drive is `smart_pending`. A read cut short (its event loop closed) is due again at the
next poll. A drive in standby keeps its last SMART data and temperature (shown stale) and is
never woken: see `nastui.collectors.smart.wake` for the wake-up counter.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import stat
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from nastui.collectors import runner
from nastui.collectors.base import read_deadline
from nastui.collectors.smart.errors import SmartProblem, problem_of
from nastui.collectors.smart.json_report import parse_json
from nastui.collectors.smart.pysmart_parse import (
    STANDBY_GUARD,
    Answer,
    Request,
    command_line,
    first_request,
    parse_answers,
    parse_text,
)
from nastui.collectors.smart.reading import SmartReading, apply_reading
from nastui.collectors.smart.text import normalized_lines, power_state, unread_attribute_rows
from nastui.collectors.smart.wake import WakeTracker
from nastui.collectors.sysfs import read_text
from nastui.core.clock import due
from nastui.core.drivepolicy import is_virtual
from nastui.model import CollectorError, Drive, PowerState, Temperature, TempSource, Transport
from nastui.model.errors import ParseError

RunFn = Callable[..., Awaitable[runner.CommandResult]]
SMART_TYPES = {
    Transport.NVME: "nvme",
    Transport.SAS: "scsi",
    Transport.SATA: "sat",
    Transport.USB: "sat",
    Transport.UNKNOWN: "sat",
}
MAX_ROUNDS = 3


def smart_type(transport: Transport) -> str | None:
    """smartctl's `-d` type for a transport; None for virtual disks, which have no SMART."""
    return SMART_TYPES.get(transport)


def probe_argv(kind: str, path: str) -> tuple[str, ...]:
    """The quick probe: temperature and power mode as JSON, without waking the drive."""
    return ("smartctl", *STANDBY_GUARD, "-j", "-d", kind, "-A", path)


@dataclass(frozen=True, slots=True)
class Target:
    """A drive as the SMART reader needs it."""

    dev: str
    path: str
    transport: Transport
    is_device: bool = True
    kind: str = "sat"

    def problem(self, result: runner.CommandResult, euid: int) -> SmartProblem | None:
        """What went wrong with a smartctl run on this drive (`problem_of`), if anything."""
        return problem_of(
            result, path=self.path, transport=self.transport, is_device=self.is_device, euid=euid
        )


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one read found: a reading, or the problem that prevented one."""

    reading: SmartReading | None = None
    problem: SmartProblem | None = None
    probe: bool = False


def _answer(result: runner.CommandResult) -> Answer:
    unread = tuple(unread_attribute_rows(result.stdout.splitlines()))
    return Answer(tuple(normalized_lines(result.stdout)), result.returncode or 0, unread)


async def read_full(target: Target, run: RunFn, timeout: float, euid: int = 0) -> Outcome:
    """One full SMART read of `target` through pySMART (see the module docstring)."""
    kind = target.kind
    first = first_request(target.dev, kind)
    answers: dict[Request, Answer] = {}
    pending: list[Request] = [first]
    reading: SmartReading | None = None
    for _ in range(MAX_ROUNDS):
        for request in pending:
            result = await run(command_line(request, target.dev, target.path), timeout=timeout)
            problem = target.problem(result, euid) if request == first else None
            if problem is not None:
                return Outcome(problem=problem)
            answers[request] = _answer(result)
        status = answers[first].status
        power = power_state(answers[first].lines)
        if power.spun_down:
            return Outcome(SmartReading(target.path, power=power, exit_status=status))
        try:
            parsed, pending = parse_answers(target.dev, kind, answers, f"smartctl -a {target.path}")
        except ParseError as exc:
            return Outcome(problem=SmartProblem(f"SMART not read: {exc}"))
        reading = dataclasses.replace(parsed, exit_status=status)
        if not pending:
            break
    return Outcome(reading)


async def read_probe(target: Target, run: RunFn, timeout: float, euid: int = 0) -> Outcome:
    """The quick temperature and power-mode probe (`probe_argv`)."""
    result = await run(probe_argv(target.kind, target.path), timeout=timeout)
    try:
        return Outcome(parse_json(result.stdout, f"smartctl -j -A {target.path}"), probe=True)
    except ParseError:
        why = f"SMART not read: smartctl printed no JSON for {target.path}"
        return Outcome(problem=target.problem(result, euid) or SmartProblem(why))


class Due(Enum):
    """What a drive is due for in one poll."""

    NOTHING = "nothing"  # a read is running, it sleeps, it has no SMART, or it is not time
    FULL = "full"  # everything (smartctl -x), every `smart_s`
    PROBE = "probe"  # the temperature only, every `temperature_s`, when nothing else gives it


@dataclass
class _State:
    """What is known about one drive between polls."""

    reading: SmartReading | None = None
    read_at: float | None = None
    problem: SmartProblem | None = None
    power: PowerState = PowerState.UNKNOWN
    temperature: Temperature | None = None
    full_at: float | None = None
    probe_at: float | None = None
    task: asyncio.Task[Outcome] | None = None
    # When the running read's kind was last due before it started: put back if it is cut short.
    before: tuple[float | None, float | None] = (None, None)


def is_device_node(path: Path) -> bool:
    """Whether `path` is a block or character device (not a file in a captured tree)."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return stat.S_ISBLK(mode) or stat.S_ISCHR(mode)


def target_of(root: Path, drive: Drive) -> Target:
    """How smartctl is pointed at `drive` under `root`: its path and `-d` type."""
    path = root / "dev" / drive.dev
    transport = drive.identity.transport
    kind = smart_type(transport) or "sat"
    if kind == "scsi" and read_text(root / "sys/block" / drive.dev / "device/vendor") == "ATA":
        kind = "sat"  # a SATA drive behind a SAS HBA or expander: ATA through SAT
    return Target(drive.dev, str(path), transport, is_device_node(path), kind)


class SmartCollector:
    """SMART, temperatures and power states of the drives under `root`, polled on a schedule."""

    def __init__(
        self,
        root: Path = Path("/"),
        *,
        run: RunFn = runner.run,
        smart_every: float = 300.0,
        temp_every: float = 30.0,
        timeout: float = 20.0,
        concurrency: int = 32,
        wait_s: float = 8.0,
        euid: int | None = None,
    ) -> None:
        self._root = root
        self._run = run
        self._smart_every = smart_every
        self._temp_every = temp_every
        self._timeout = timeout
        self._concurrency = concurrency
        self._wait_s = wait_s
        self._euid = os.geteuid() if euid is None else euid
        self._states: dict[str, _State] = {}
        self._limit: tuple[asyncio.AbstractEventLoop, asyncio.Semaphore] | None = None
        self.wakes = WakeTracker()

    def _semaphore(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        if self._limit is None or self._limit[0] is not loop:
            self._limit = (loop, asyncio.Semaphore(self._concurrency))
        return self._limit[1]

    async def _bounded(self, target: Target, probe: bool) -> Outcome:
        async with self._semaphore():
            read = read_probe if probe else read_full
            return await read(target, self._run, self._timeout, self._euid)

    def _target(self, drive: Drive) -> Target:
        return target_of(self._root, drive)

    def _due(self, drive: Drive, state: _State, now: float, io: int | None) -> Due:
        """What `drive` is due for in this poll."""
        if state.task is not None and not state.task.done():
            return Due.NOTHING
        if smart_type(drive.identity.transport) is None:
            return Due.NOTHING
        if not self.wakes.may_query(drive.key, io):
            return Due.NOTHING
        if due(state.full_at, now, self._smart_every):
            return Due.FULL
        wants_temp = drive.temperature is None
        if wants_temp and due(state.probe_at, now, self._temp_every):
            return Due.PROBE
        return Due.NOTHING

    def _start(
        self, drives: Sequence[Drive], now: float, io: Mapping[str, int]
    ) -> list[asyncio.Task[Outcome]]:
        started = []
        for drive in drives:
            state = self._states.setdefault(drive.key, _State())
            if smart_type(drive.identity.transport) is None:
                state.problem = SmartProblem(
                    "a virtual disk has no SMART (watch the host's drives instead)"
                )
            wanted = self._due(drive, state, now, io.get(drive.dev))
            if wanted is Due.NOTHING:
                continue
            probe = wanted is Due.PROBE
            state.before = (state.full_at, state.probe_at)
            if not probe:
                state.full_at = now
            state.probe_at = now  # a full read brings the temperature too
            state.task = asyncio.ensure_future(self._bounded(self._target(drive), probe))
            started.append(state.task)
        return started

    def _finish_all(self, drives: Sequence[Drive], now: float, io: Mapping[str, int]) -> None:
        for drive in drives:
            state = self._states.setdefault(drive.key, _State())
            self._finish(drive, state, now, io.get(drive.dev))

    def _finish(self, drive: Drive, state: _State, now: float, io: int | None) -> None:
        task = state.task
        if task is None or not task.done():
            return
        state.task = None
        if task.cancelled():  # cut short (its event loop closed): due again, as if not started
            state.full_at, state.probe_at = state.before
            return
        error = task.exception()
        if error is not None:
            text = f"SMART read failed ({type(error).__name__}: {error})"
            state.problem = SmartProblem(text)
            return
        outcome = task.result()
        if outcome.reading is None:
            state.problem = outcome.problem
            return
        self._note(drive, state, outcome, now, io)

    def _note(
        self, drive: Drive, state: _State, outcome: Outcome, now: float, io: int | None
    ) -> None:
        reading = outcome.reading
        assert reading is not None
        state.problem = None
        power = reading.power
        if power is PowerState.UNKNOWN and reading.has_health:
            power = PowerState.ACTIVE  # it answered SMART commands (NVMe reports no mode)
        self.wakes.observe(drive.key, power, io)
        if reading.standby_check_unsupported:
            self.wakes.mark_cautious(drive.key)
        if power is not PowerState.UNKNOWN:
            state.power = power
        if reading.in_standby:
            return
        if reading.temperature_c is not None:
            state.temperature = Temperature(reading.temperature_c, now, TempSource.SMART)
        if outcome.probe:
            return
        state.reading, state.read_at = reading, now
        if not reading.has_health and reading.notes:
            state.problem = SmartProblem(f"SMART not read: {reading.notes[0]}")

    def _merged(self, drive: Drive, state: _State) -> Drive:
        out = drive
        if state.reading is not None and state.read_at is not None:
            out = apply_reading(drive, state.reading, state.read_at)
        temperature = drive.temperature or state.temperature or out.temperature
        return dataclasses.replace(
            out,
            power=state.power if state.power is not PowerState.UNKNOWN else out.power,
            temperature=temperature,
            smart_problem=state.problem.text if state.problem else None,
            smart_pending=_first_read_running(state),
            wakeups=self.wakes.wakeups(drive.key),
        )

    def _errors(self, drives: Sequence[Drive]) -> list[CollectorError]:
        """A host-wide problem once (none for virtual disks, which have no SMART anyway: a
        VM without smartctl is fine), and each drive nastui woke."""
        host: dict[str, list[str]] = {}
        errors: list[CollectorError] = []
        for drive in drives:
            problem = self._states[drive.key].problem
            if problem is not None and problem.host_wide and not is_virtual(drive.identity):
                host.setdefault(problem.text, []).append(drive.dev)
            woken = self.wakes.wakeups(drive.key)
            if woken:
                errors.append(
                    CollectorError(
                        f"smart:{drive.dev}:wake",
                        f"{drive.dev}: nastui's SMART queries woke it from standby {woken} "
                        "time(s) (it ignores smartctl -n standby): now asked only while busy",
                    )
                )
        return [CollectorError("smart", text) for text in host] + errors

    async def poll(
        self, drives: Sequence[Drive], now: float, io: Mapping[str, int] | None = None
    ) -> tuple[tuple[Drive, ...], tuple[CollectorError, ...]]:
        """Start the reads that are due, wait up to `wait_s` for them, merge what is known.

        Args:
            drives: the drives as discovered (hwmon temperatures already filled in).
            now: the current Unix time.
            io: device name -> bytes read and written so far (/proc/diskstats), for the
                wake-up counter; None when unknown.

        Returns:
            The drives with SMART data, power state, temperature and problems merged in, and
            the problems as collector errors (host-wide ones once).
        """
        counters = io or {}
        self._finish_all(drives, now, counters)  # reads that ended since the last poll
        started = self._start(drives, now, counters)
        if started:
            await asyncio.wait(started, timeout=self._waiting())
        self._finish_all(drives, now, counters)
        merged = tuple(self._merged(d, self._states[d.key]) for d in drives)
        return merged, tuple(self._errors(drives))

    def _waiting(self) -> float:
        """How long this poll waits for the reads it started: `wait_s`, or less by the poll's
        deadline (none left: it publishes at once)."""
        deadline = read_deadline()
        if deadline is None:
            return self._wait_s
        left = deadline - asyncio.get_running_loop().time()
        return max(0.0, min(self._wait_s, left))

    async def settle(self) -> None:
        """Wait for the reads still running to end; each is bounded by the runner's timeout,
        after which the runner kills its smartctl."""
        tasks = [s.task for s in self._states.values() if s.task is not None and not s.task.done()]
        if tasks:
            await asyncio.wait(tasks)


def _first_read_running(state: _State) -> bool:
    """A drive's first SMART read is under way: none has ended (with data or a problem)."""
    running = state.task is not None and not state.task.done()
    return running and state.reading is None and state.problem is None


def parse_capture(text: str, source: str) -> SmartReading:
    """A saved `smartctl -x`/`-a` text or `smartctl -j` report, through the parsers the live
    path uses (pySMART for text, the JSON parser for JSON).

    Raises:
        ParseError: it is neither.
    """
    if text.lstrip().startswith("{"):
        return parse_json(text, source)
    return parse_text(text, source)
