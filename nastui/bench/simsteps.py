"""The output a step would print on a modelled drive (pure): fio's json+ status dumps, dd's
progress lines and the write-sync-close timer's JSON lines, one `Chunk` per second.

The figures come from `nastui.bench.drivemodel`; each second varies a little around the steady
state (seeded by the seed, the step's label and the second, so the same run repeats exactly and
no two steps repeat each other), a disk slows toward its inner tracks and an SSD once its write
cache is full. A step that would run longer than `MAX_STEP_S` (filling 3 TB, every 4K block of
a 4 TB disk) is shown for its first `MAX_STEP_S` seconds and says so.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from nastui.bench.drivemodel import DriveModel, Rates, Workload, rates, write_slowdown, zone_factor
from nastui.bench.sizes import parse_size

MAX_STEP_S = 60
FIO_VERSION = "fio-3.33"
# Latency histogram: (z of a normal over log-latency, share of requests) with the median at
# z = 0 and the 99th percentile at z = 2.33: p50 = median, p99 = median x spread.
_BUCKETS = (
    (-1.6, 0.055),
    (-0.8, 0.157),
    (0.0, 0.288),
    (0.6, 0.226),
    (1.2, 0.159),
    (1.9, 0.086),
    (2.33, 0.019),
    (3.1, 0.010),
)
URANDOM_BPS = 480e6  # getrandom/ChaCha20 on one core
ZERO_BPS = 9e9


@dataclass(frozen=True, slots=True)
class Chunk:
    """What a step printed during one interval, and the device I/O behind it.

    Attributes:
        stdout, stderr: lines printed.
        seconds: how long the interval lasted.
        read_bytes, write_bytes: bytes the device moved in it.
    """

    stdout: tuple[str, ...] = ()
    stderr: tuple[str, ...] = ()
    seconds: float = 0.0
    read_bytes: int = 0
    write_bytes: int = 0


def jitter(seed: int, label: str, second: int) -> float:
    """A factor near 1 (within about +-6 %) for one second of one step."""
    rng = random.Random(f"nastui-bench:{seed}:{label}:{second}")
    return max(0.85, min(1.15, 1.0 + rng.gauss(0.0, 0.03)))


def workload(options: Mapping[str, str], cache_off: bool = False) -> Workload:
    """The workload of fio options (`rw`, `bs`, `iodepth`, `numjobs`, `rwmixread`)."""
    rw = options.get("rw", options.get("readwrite", "read"))
    share = {"read": 1.0, "randread": 1.0, "write": 0.0, "randwrite": 0.0}.get(rw)
    if share is None:  # rw / randrw / readwrite / trimwrite...
        mix = options.get("rwmixread")
        share = float(mix) / 100.0 if mix and mix.isdigit() else 0.5
    return Workload(
        block=parse_size(options.get("bs", "4k")),
        random=rw.startswith("rand"),
        read_share=min(1.0, max(0.0, share)),
        depth=max(1, int(options.get("iodepth", "1"))),
        jobs=max(1, int(options.get("numjobs", "1"))),
        cache_off=cache_off,
    )


def _histogram(count: int, median_ns: float, spread: float) -> dict[int, int]:
    """`count` requests spread over the latency buckets."""
    sigma = math.log(max(spread, 1.01)) / 2.33
    bins: dict[int, int] = {}
    placed = 0
    for z, share in _BUCKETS:
        n = int(count * share)
        bucket = max(1, round(median_ns * math.exp(sigma * z)))
        bins[bucket] = bins.get(bucket, 0) + n
        placed += n
    middle = max(1, round(median_ns))
    bins[middle] = bins.get(middle, 0) + count - placed
    return {k: v for k, v in bins.items() if v > 0}


@dataclass
class _Dir:
    """One direction's cumulative counters, as fio keeps them."""

    ios: int = 0
    io_bytes: int = 0
    lat_n: int = 0
    lat_sum_ns: float = 0.0
    runtime_ms: int = 0
    bins: dict[int, int] | None = None

    def add(self, ios: int, block: int, lat_ns: float | None, spread: float, ms: int) -> None:
        self.ios += ios
        self.io_bytes += ios * block
        self.runtime_ms += ms
        if lat_ns is not None and ios > 0:
            median = lat_ns / math.exp((math.log(max(spread, 1.01)) / 2.33) ** 2 / 2)
            self.lat_n += ios
            self.lat_sum_ns += lat_ns * ios
            merged = dict(self.bins or {})
            for bucket, n in _histogram(ios, median, spread).items():
                merged[bucket] = merged.get(bucket, 0) + n
            self.bins = merged

    def json(self) -> dict[str, object]:
        mean = self.lat_sum_ns / self.lat_n if self.lat_n else 0.0
        bins = {str(k): v for k, v in sorted((self.bins or {}).items())}
        return {
            "io_bytes": self.io_bytes,
            "total_ios": self.ios,
            "runtime": self.runtime_ms,
            "lat_ns": {"mean": round(mean, 3), "N": self.lat_n},
            "clat_ns": {"bins": bins},
        }


def _dump(name: str, runtime_ms: int, read: _Dir, write: _Dir) -> tuple[str, ...]:
    doc = {
        "fio version": FIO_VERSION,
        "jobs": [
            {
                "jobname": name,
                "error": 0,
                "job_runtime": runtime_ms,
                "read": read.json(),
                "write": write.json(),
            }
        ],
    }
    return tuple(json.dumps(doc, indent=2).splitlines())


@dataclass(frozen=True, slots=True)
class FioStep:
    """A fio step as the model runs it.

    Attributes:
        name: the job name.
        load: the workload.
        runtime_s: seconds, when time-based (or a limit).
        ramp_s: seconds of ramp_time before measuring.
        size: bytes each job transfers, when size-bound.
        capacity: bytes of the device (where a disk's zones are), for size-bound writes.
    """

    name: str
    load: Workload
    runtime_s: float | None
    ramp_s: float
    size: int | None
    capacity: int | None = None


def fio_step(options: Mapping[str, str], capacity: int | None, cache_off: bool) -> FioStep:
    """The step fio's options describe (`--time_based` with `--runtime`, else size-bound: its
    size, or the whole device of `capacity` bytes)."""
    runtime = options.get("runtime")
    timed = options.get("time_based") in ("", "1") and runtime is not None
    size = options.get("size")
    return FioStep(
        name=options.get("name", "job"),
        load=workload(options, cache_off),
        runtime_s=float(runtime) if runtime else None,
        ramp_s=float(options.get("ramp_time", "0") or 0),
        size=None if timed else _size(size, capacity),
        capacity=capacity,
    )


def _size(size: str | None, capacity: int | None) -> int | None:
    """Bytes a size-bound job moves: its `size` (a share of the device for "N%"), else the
    whole device, as fio does."""
    if size and size.endswith("%") and capacity:
        return capacity * int(size[:-1] or 100) // 100 if size[:-1].isdigit() else capacity
    if size and not size.endswith("%"):
        return parse_size(size)
    return capacity


def _seconds(model: DriveModel, step: FioStep, steady: Rates) -> float:
    """How long the measured part runs: its runtime, or its size at the steady rate."""
    limits = [step.runtime_s] if step.runtime_s is not None else []
    if step.size is not None:
        per_s = (steady.read_bps + steady.write_bps) / step.load.jobs
        limits.append(step.size / per_s if per_s > 0 else MAX_STEP_S)
    return min(limits) if limits else MAX_STEP_S


def fio_chunks(model: DriveModel, step: FioStep, seed: int, label: str) -> Iterator[Chunk]:
    """fio's status dumps for `step`: ramp seconds (no latency), then measured ones."""
    steady = rates(model, step.load)
    total = _seconds(model, step, steady)
    shown = min(total, float(MAX_STEP_S))
    written = 0
    for phase, length in (("ramp", step.ramp_s), ("run", shown)):
        read, write, elapsed = _Dir(), _Dir(), 0.0
        second, owed_r, owed_w = 0, 0.0, 0.0  # fractions of an I/O carried to the next second
        while elapsed < length - 1e-9:
            secs = min(1.0, length - elapsed)
            factor = jitter(seed, f"{label}/{phase}", second)
            if step.load.read_share < 1.0:
                factor *= write_slowdown(model, written)
                if step.size is not None and step.capacity:
                    factor *= zone_factor(model, written / step.capacity)
            owed_r += steady.read_iops * factor * secs
            owed_w += steady.write_iops * factor * secs
            r_ios, w_ios = math.floor(owed_r), math.floor(owed_w)
            owed_r, owed_w = owed_r - r_ios, owed_w - w_ios
            lat = None if phase == "ramp" else steady.lat_mean_s * 1e9 / factor
            ms = round(secs * 1000)
            read.add(r_ios, step.load.block, lat if r_ios else None, steady.spread, ms)
            write.add(w_ios, step.load.block, lat if w_ios else None, steady.spread, ms)
            written += w_ios * step.load.block
            elapsed += secs
            second += 1
            skew = 20 if phase == "ramp" else 0  # fio's ramp dumps land a little late
            yield Chunk(
                stdout=_dump(step.name, round(elapsed * 1000) + skew, read, write),
                seconds=secs,
                read_bytes=r_ios * step.load.block,
                write_bytes=w_ios * step.load.block,
            )
    if total > shown:
        yield Chunk(stdout=(cut_note(total),))


def cut_note(total: float) -> str:
    """The line a step cut short by the demo prints."""
    return f"nastui demo: shown for its first {MAX_STEP_S} s of about {total:,.0f} s"
