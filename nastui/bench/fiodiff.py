"""Per-interval figures from fio's cumulative dumps (`Differ`), and a step's result (pure).

Each status dump holds totals since the job (re)started, so an interval's IOPS, bandwidth, mean
latency and percentiles are differences of two dumps over the job-runtime between them: the
latency mean from differences of mean x count, the percentiles from the difference of the json+
histograms. The counters restart twice in a job's life, and the differ notices by a counter or the
job runtime going backwards:
- after the file-creation phase ("Laying out IO file"): `job_runtime` restarts, no I/O yet;
- after `ramp_time`: the I/O counters restart; ramp intervals have I/O but no latency.
After a restart the baseline is zero and the interval is the new runtime. The final result
repeats the last status dump a few milliseconds later: an interval under `MIN_INTERVAL_S` yields
no sample.

# Sample (job_runtime_ms, read total_ios, lat N) of a ramp_time=2 run:
#   896 10248 0 / 1896 20438 0 / 999 11160 11159 / 1999 23379 23378 / 3001 34029 34029
"""

from __future__ import annotations

from dataclasses import dataclass

from nastui.bench.fiojson import DIRECTIONS, DirCounters, Dump, percentile, subtract
from nastui.model import BenchSample, Phase, StepResult

MIN_INTERVAL_S = 0.05
_ZERO = Dump(timestamp_ms=None, job_runtime_ms=0, read=DirCounters(), write=DirCounters())


@dataclass(frozen=True, slots=True)
class Interval:
    """What happened between two dumps."""

    seconds: float
    ios: dict[str, int]
    io_bytes: dict[str, int]
    lat_n: int
    lat_sum_ns: float
    bins: dict[int, int]


def restarted(before: Dump, now: Dump) -> bool:
    """Whether fio's counters restarted between two dumps (ramp end, file layout end)."""
    if now.job_runtime_ms < before.job_runtime_ms:
        return True
    for name in DIRECTIONS:
        b, n = before.direction(name), now.direction(name)
        if n.total_ios < b.total_ios or n.io_bytes < b.io_bytes or n.lat_n < b.lat_n:
            return True
    return False


def interval(before: Dump, now: Dump) -> Interval:
    """The difference of two dumps (`before` is `_ZERO` after a restart)."""
    seconds = (now.job_runtime_ms - before.job_runtime_ms) / 1000.0
    if seconds <= 0 and before.timestamp_ms is not None and now.timestamp_ms is not None:
        seconds = (now.timestamp_ms - before.timestamp_ms) / 1000.0
    bins: dict[int, int] = {}
    for name in DIRECTIONS:
        new = subtract(now.direction(name).bins, before.direction(name).bins)
        for bucket, count in new.items():
            bins[bucket] = bins.get(bucket, 0) + count
    return Interval(
        seconds=max(0.0, seconds),
        ios={d: now.direction(d).total_ios - before.direction(d).total_ios for d in DIRECTIONS},
        io_bytes={d: now.direction(d).io_bytes - before.direction(d).io_bytes for d in DIRECTIONS},
        lat_n=now.read.lat_n + now.write.lat_n - before.read.lat_n - before.write.lat_n,
        lat_sum_ns=now.read.lat_sum_ns
        + now.write.lat_sum_ns
        - before.read.lat_sum_ns
        - before.write.lat_sum_ns,
        bins=bins,
    )


class Differ:
    """Turns one job's dumps, in order, into samples."""

    def __init__(self, step: int, *, t0: float = 0.0, ramp: bool = False) -> None:
        """Start a job.

        Args:
            step: the step index the samples belong to.
            t0: run time (s) at which the job started.
            ramp: the job has a ramp_time, so I/O before the first restart is ramp.
        """
        self.step = step
        self.t0 = t0
        self._ramp = ramp
        self._last: Dump | None = None
        self._carried = 0  # bytes counted before the counters restarted
        self._start_ms: int | None = None
        self._elapsed = 0.0
        self._measured = False
        self.restarts = 0

    @property
    def last(self) -> Dump | None:
        """The newest dump pushed."""
        return self._last

    def push(self, dump: Dump) -> BenchSample | None:
        """The interval since the previous dump, or None for one too short to mean anything."""
        before = self._last if self._last is not None else _ZERO
        if self._last is not None and restarted(self._last, dump):
            self.restarts += 1
            self._ramp = False
            self._carried += self._last.read.io_bytes + self._last.write.io_bytes
            before = _ZERO
        self._last = dump
        if self._start_ms is None and dump.timestamp_ms is not None:
            self._start_ms = dump.timestamp_ms - dump.job_runtime_ms
        step = interval(before, dump)
        if step.seconds < MIN_INTERVAL_S:
            return None
        self._elapsed += step.seconds
        return self._sample(dump, step)

    def _phase(self, dump: Dump) -> Phase:
        if dump.total_ios == 0 and not self._measured:
            return Phase.SETUP
        if self._ramp and dump.read.lat_n + dump.write.lat_n == 0:
            return Phase.RAMP
        self._measured = True
        return Phase.RUN

    def _sample(self, dump: Dump, step: Interval) -> BenchSample:
        secs = step.seconds
        if self._start_ms is not None and dump.timestamp_ms is not None:
            t = self.t0 + (dump.timestamp_ms - self._start_ms) / 1000.0
        else:
            t = self.t0 + self._elapsed
        return BenchSample(
            t=round(t, 3),
            step=self.step,
            phase=self._phase(dump),
            seconds=round(secs, 3),
            read_iops=step.ios["read"] / secs,
            write_iops=step.ios["write"] / secs,
            read_bps=step.io_bytes["read"] / secs,
            write_bps=step.io_bytes["write"] / secs,
            lat_mean_ns=step.lat_sum_ns / step.lat_n if step.lat_n > 0 < step.lat_sum_ns else None,
            lat_p50_ns=percentile(step.bins, 50.0),
            lat_p99_ns=percentile(step.bins, 99.0),
            bytes_done=self._carried + dump.read.io_bytes + dump.write.io_bytes,
            at=dump.timestamp_ms / 1000.0 if dump.timestamp_ms is not None else None,
        )


def _latency(counters: list[DirCounters], pct: float) -> float | None:
    bins: dict[int, int] = {}
    for c in counters:
        for bucket, count in c.bins.items():
            bins[bucket] = bins.get(bucket, 0) + count
    if bins:
        return percentile(bins, pct)
    reported = [c.percentiles[pct] for c in counters if pct in c.percentiles and c.total_ios]
    return max(reported) if reported else None


def step_result(label: str, params: tuple[tuple[str, str], ...], final: Dump) -> StepResult:
    """A step's result from fio's final (or last) dump: averages over the measured part."""
    dirs = [final.read, final.write]
    seconds = max(d.runtime_ms for d in dirs) / 1000.0 or final.job_runtime_ms / 1000.0
    lat_n = sum(d.lat_n for d in dirs)

    def per_s(value: int, runtime_ms: int) -> float:
        return value / (runtime_ms / 1000.0) if runtime_ms > 0 else 0.0

    return StepResult(
        label=label,
        params=params,
        seconds=round(seconds, 3),
        read_iops=per_s(final.read.total_ios, final.read.runtime_ms),
        write_iops=per_s(final.write.total_ios, final.write.runtime_ms),
        read_bps=per_s(final.read.io_bytes, final.read.runtime_ms),
        write_bps=per_s(final.write.io_bytes, final.write.runtime_ms),
        lat_mean_ns=sum(d.lat_sum_ns for d in dirs) / lat_n if lat_n else None,
        lat_p50_ns=_latency(dirs, 50.0),
        lat_p99_ns=_latency(dirs, 99.0),
        lat_p999_ns=_latency(dirs, 99.9),
        bytes_done=final.read.io_bytes + final.write.io_bytes,
        error="; ".join(final.errors) or None,
    )
