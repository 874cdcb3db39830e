"""`ModelHost`: benchmarks on a modelled drive, for the demo: every profile runs (fio, dd and
the write-sync-close timer alike) and prints what the real tool would, from
`nastui.bench.drivemodel`, through the real readers, differ and runner.

The drive modelled is the target's (`model_for(target.identity)`: a disk by its rpm, a SATA SSD,
an NVMe drive), taken when the runner asks for the target's SMART counters, the first thing a run
does. Nothing runs: the clock is the steps' own (one second per interval), and with `pace` > 0
each interval waits that many seconds (the TUI moves like a live run); 0 runs at once (the CLI,
tests, screenshots). The same seed and steps always give the same samples.
"""

from __future__ import annotations

import asyncio
import dataclasses
import math
import random
from collections.abc import Iterator, Sequence
from pathlib import Path

from nastui.bench.drivemodel import DriveModel, Workload, hdd, model_for, rates
from nastui.bench.host import LineHandler, Pairs, SimulatedOutcome
from nastui.bench.jobs import FIO_FLAGS
from nastui.bench.simsteps import (
    MAX_STEP_S,
    URANDOM_BPS,
    ZERO_BPS,
    Chunk,
    cut_note,
    fio_chunks,
    fio_step,
    jitter,
)
from nastui.bench.sizes import parse_size
from nastui.model import BenchTarget, DriveIdentity, UnseenProcess

WSC_MODULE = "nastui.bench.wsc"
PAGE_CACHE_BPS = 2.5e9  # buffered write() into the page cache
SYSCALL_S = 2e-6


def fio_options(argv: Sequence[str]) -> dict[str, str]:
    """fio's `--name=value` options (flags as "1"), or those of a job file's lines when the
    last argument is a job file (the custom profile)."""
    options: dict[str, str] = {}
    for arg in argv[1:]:
        if arg.startswith("--"):
            name, _, value = arg[2:].partition("=")
            options[name] = value if "=" in arg else "1"
    last = argv[-1] if argv else ""
    if not last.startswith("--") and len(argv) > 1:
        try:
            text = Path(last).read_text(encoding="utf-8")
        except OSError:
            return options
        for line in text.splitlines():
            name, eq, value = line.strip().partition("=")
            if eq and not name.startswith(("[", "#", ";")):
                options[name.strip()] = value.strip()
            elif name in FIO_FLAGS:
                options[name] = "1"
    return options


DEVICES = frozenset({"/dev/urandom", "/dev/zero", "/dev/null"})


def stable(argv: Sequence[str]) -> list[str]:
    """The step's arguments without the paths of its fresh workspace (named by the run id),
    so the same steps vary the same way whatever the run is called."""
    kept: list[str] = []
    for before, arg in zip(("", *argv), argv, strict=False):
        value = arg.partition("=")[2] if "=" in arg else arg
        if before == "--path" or ("/" in value and value not in DEVICES):
            continue
        kept.append(arg)
    return kept


def _progress(done: int, secs: float, rate: float) -> str:
    """dd's progress line (GNU coreutils' format)."""
    return (
        f"{done} bytes ({done / 1e9:.1f} GB, {done / 2**30:.1f} GiB) copied, "
        f"{secs:.5g} s, {rate / 1e6:.0f} MB/s"
    )


def dd_chunks(model: DriveModel, argv: Sequence[str], seed: int, label: str) -> Iterator[Chunk]:
    """dd's progress lines each second and its summary, at the modelled rate."""
    opts = {a.partition("=")[0]: a.partition("=")[2] for a in argv[1:] if "=" in a}
    block = parse_size(opts.get("bs", "1M"))
    total = block * int(opts.get("count", "1024"))
    src, dst = opts.get("if", ""), opts.get("of", "")
    direct = "direct" in opts.get("iflag", "") + opts.get("oflag", "")
    source = {"/dev/urandom": URANDOM_BPS, "/dev/zero": ZERO_BPS}.get(src)
    depth = 1 if direct else 4  # buffered: read-ahead and write-back keep a queue
    reading = dst == "/dev/null"
    if reading and source is not None:
        rate = source
    elif reading:
        rate = rates(model, Workload(block, False, 1.0, depth)).read_bps
    else:
        rate = min(rates(model, Workload(block, False, 0.0, depth)).write_bps, source or math.inf)
    device = source is None or not reading
    done, secs, second = 0, 0.0, 0
    while done < total and secs < MAX_STEP_S:
        pace = rate * jitter(seed, label, second)
        step = min(total - done, round(pace))
        took = step / pace
        done, secs, second = done + step, secs + took, second + 1
        moved = step if device else 0
        yield Chunk(
            stderr=(_progress(done, secs, done / secs),),
            seconds=took,
            read_bytes=moved if reading else 0,
            write_bytes=0 if reading else moved,
        )
    records = done // block
    last = _progress(done, secs, done / secs)
    summary = (f"{records}+0 records in", f"{records}+0 records out", last)
    note = (cut_note(total / rate),) if done < total else ()
    yield Chunk(stdout=note, stderr=summary)


def wsc_chunks(model: DriveModel, argv: Sequence[str], seed: int, label: str) -> Iterator[Chunk]:
    """The write-sync-close timer's lines: buffered writes land in the page cache and fsync
    waits for the drive; O_DIRECT writes wait for the drive one record at a time."""
    args = list(argv)
    size = parse_size(args[args.index("--size") + 1]) if "--size" in args else 1 << 30
    record = parse_size(args[args.index("--record") + 1]) if "--record" in args else 1 << 20
    direct = "--direct" in args
    disk = rates(model, Workload(record, False, 0.0, 1 if direct else 32)).write_bps
    if direct:
        rate, fsync_s = disk, 0.004
    else:
        rate = record / (SYSCALL_S + record / PAGE_CACHE_BPS)
        fsync_s = size / rates(model, Workload(1 << 20, False, 0.0, 32)).write_bps
    done, secs, second = 0, 0.0, 0
    while done < size and secs < MAX_STEP_S:
        pace = rate * jitter(seed, label, second)
        step = min(size - done, round(pace))
        done, secs, second = done + step, secs + step / pace, second + 1
        line = f'{{"t": {secs:.3f}, "bytes": {done}}}'
        yield Chunk(stdout=(line,), seconds=step / pace, write_bytes=step if direct else 0)
    fsync_s *= done / size
    final = (
        f'{{"done": true, "bytes": {done}, "write_s": {secs:.6f}, '
        f'"fsync_s": {fsync_s:.6f}, "close_s": 0.000012}}'
    )
    note = (cut_note(size / rate),) if done < size else ()
    yield Chunk(stdout=(*note, final), seconds=fsync_s, write_bytes=0 if direct else done)


class ModelHost:
    """A `BenchHost` whose steps run on a modelled drive (see the module)."""

    def __init__(
        self, model: DriveModel | None = None, *, seed: int = 0, pace: float = 0.0
    ) -> None:
        self.model = model or hdd()
        self.fixed = model is not None
        self.seed, self.pace = seed, pace
        self.played = 0
        self._clock = 0.0
        rng = random.Random(f"nastui-bench-disk:{seed}")
        self._disk = (rng.randrange(1 << 40), rng.randrange(1 << 40))  # since boot
        self._capacity: int | None = None

    @property
    def python(self) -> str:
        """What the write-sync-close step names (nothing is run)."""
        return "python3"

    def now(self) -> float:
        """The steps' own clock: seconds of modelled running."""
        return self._clock

    def disk_bytes(self, dev: str) -> tuple[int, int] | None:
        """The modelled device's counters."""
        return self._disk

    async def in_use(self, target: BenchTarget) -> tuple[str, ...]:
        """What the target was described as using."""
        return target.in_use

    async def uses_now(self, target: BenchTarget) -> tuple[str, ...]:
        """A modelled drive has no other users."""
        return ()

    def unseen(self) -> tuple[UnseenProcess, ...]:
        """A modelled drive's look sees every process."""
        return ()

    async def smart(self, target: BenchTarget) -> Pairs | None:
        """No SMART counters; the target's drive becomes the one modelled."""
        if not self.fixed:
            self.model = model_for(target.identity)
        self._capacity = target.size_bytes
        return None

    async def run(self, argv: Sequence[str], *, timeout: float) -> SimulatedOutcome:
        """Nothing runs on a modelled drive (the write-cache switch, for one)."""
        return SimulatedOutcome(1, error=f"{Path(argv[0]).name} does not run in the demo")

    def chunks(self, argv: Sequence[str]) -> Iterator[Chunk] | None:
        """What the step prints; None for a program the model does not know."""
        label = f"{self.played}:{' '.join(stable(argv))}"
        name = Path(argv[0]).name if argv else ""
        if name == "fio":
            options = fio_options(argv)
            step = fio_step(options, self._capacity, cache_off=False)
            return fio_chunks(self.model, step, self.seed, label)
        if name == "dd":
            return dd_chunks(self.model, argv, self.seed, label)
        if WSC_MODULE in argv:
            return wsc_chunks(self.model, argv, self.seed, label)
        return None

    async def stream(
        self,
        argv: Sequence[str],
        *,
        timeout: float,
        on_stdout: LineHandler,
        on_stderr: LineHandler,
        stop: asyncio.Event,
    ) -> SimulatedOutcome:
        """Print the step's output interval by interval; stops early (as fio after SIGINT)."""
        chunks = self.chunks(argv)
        name = Path(argv[0]).name if argv else "?"
        if chunks is None:
            return SimulatedOutcome(127, error=f"{name} does not run in the demo")
        self.played += 1
        for chunk in chunks:
            self._clock += chunk.seconds
            read, write = self._disk
            self._disk = (read + chunk.read_bytes, write + chunk.write_bytes)
            for line in chunk.stderr:
                on_stderr(line)
            for line in chunk.stdout:
                on_stdout(line)
            if self.pace > 0 and chunk.seconds > 0:
                await asyncio.sleep(self.pace * min(1.0, chunk.seconds))
            if stop.is_set():
                break
        return SimulatedOutcome(0)


def directory_on(base: BenchTarget, identity: DriveIdentity, dev: str) -> BenchTarget:
    """`base` (a demo directory) as a directory on a filesystem of the demo drive `dev`: the
    drive it models, three quarters of it free."""
    capacity = identity.capacity_bytes or base.size_bytes
    return dataclasses.replace(
        base,
        dev=dev,
        identity=identity,
        size_bytes=capacity,
        free_bytes=capacity * 3 // 4 if capacity else base.free_bytes,
    )
