"""One fio JSON document as cumulative counters (`Dump`), and percentiles from json+ bins (pure).

Every status dump holds totals since the job started (or since `ramp_time` ended, or since the
file-creation phase ended): bytes, I/Os, the latency mean and count, and with `json+` the
completion-latency histogram ("bins": {latency_ns: count}). Jobs are summed, so a job file with
several jobs or `numjobs` without `group_reporting` reads as one workload.

Field names follow fio's `stat.c` (`show_thread_status_json`, `add_ddir_status_json`). fio 3.x
reports latencies in ns (`lat_ns`, `clat_ns`, with `N`); fio 2.x in us (`lat`, `clat`, no `N`)
and `io_bytes` in KiB.

# Sample:
{"fio version": "fio-3.33", "timestamp_ms": 1795250101346, "jobs": [{"jobname": "t",
 "error": 0, "job_runtime": 662, "read": {"io_bytes": 73281536, "total_ios": 17927,
 "runtime": 662, "lat_ns": {"mean": 147286.3, "N": 17923}, "clat_ns": {"percentile":
 {"50.000000": 104960}, "bins": {"32640": 1, "33536": 1}}}, "write": {...}}]}
"""

from __future__ import annotations

import functools
import json
import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from nastui.model.errors import ParseError

DIRECTIONS = ("read", "write")


@dataclass(frozen=True, slots=True)
class DirCounters:
    """Cumulative counters of one direction (read or write), summed over jobs.

    Attributes:
        io_bytes: bytes transferred.
        total_ios: I/Os issued and completed.
        lat_n: I/Os whose latency was recorded (0 during ramp_time).
        lat_sum_ns: mean x count: sums difference where means do not.
        bins: json+ completion-latency histogram, ns -> count (empty without json+).
        runtime_ms: the longest job's runtime in this direction.
        percentiles: fio's own clat percentiles (percent -> ns), from the final result.
    """

    io_bytes: int = 0
    total_ios: int = 0
    lat_n: int = 0
    lat_sum_ns: float = 0.0
    bins: Mapping[int, int] = field(default_factory=dict)
    runtime_ms: int = 0
    percentiles: Mapping[float, float] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Dump:
    """One fio JSON document.

    Attributes:
        timestamp_ms: when fio printed it (Unix ms), when fio says.
        job_runtime_ms: the longest job's runtime (wall time: a `group_reporting` entry's
            `job_runtime` is the sum over its threads, so it is divided by their count); it
            restarts after ramp_time and after the file-creation phase.
        read, write: counters per direction.
        errors: one line per job that reports an error.
        version: "fio-3.33".
        jobs: how many job entries were summed.
    """

    timestamp_ms: int | None
    job_runtime_ms: int
    read: DirCounters
    write: DirCounters
    errors: tuple[str, ...] = ()
    version: str | None = None
    jobs: int = 0

    def direction(self, name: str) -> DirCounters:
        """`read` or `write` by name."""
        return self.read if name == "read" else self.write

    @property
    def total_ios(self) -> int:
        """I/Os in both directions."""
        return self.read.total_ios + self.write.total_ios


def _number(value: Any, what: str, source: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ParseError(source, f"{what} is not a number: {value!r}")
    if not math.isfinite(value) or value < 0:
        raise ParseError(source, f"{what} is not a count: {value!r}")
    return float(value)


def _histogram(raw: Any, source: str) -> dict[int, int]:
    if not isinstance(raw, Mapping):
        return {}
    bins: dict[int, int] = {}
    for key, count in raw.items():
        try:
            bucket = int(key)
        except (TypeError, ValueError):
            raise ParseError(source, f"latency bin {key!r} is not a number") from None
        bins[bucket] = bins.get(bucket, 0) + int(_number(count, f"bin {key}", source))
    return bins


def _percentiles(raw: Any, scale: float) -> dict[float, float]:
    if not isinstance(raw, Mapping):
        return {}
    result: dict[float, float] = {}
    for key, value in raw.items():
        try:
            result[float(key)] = float(value) * scale
        except (TypeError, ValueError):
            continue
    return result


def _direction(raw: Any, source: str) -> DirCounters:
    """One job's direction; fio 2.x (us, KiB) and 3.x (ns, bytes) alike."""
    if not isinstance(raw, Mapping):
        return DirCounters()
    ios = int(_number(raw.get("total_ios", 0), "total_ios", source))
    old = "lat_ns" not in raw and "lat" in raw
    scale = 1000.0 if old else 1.0
    io_bytes = _number(raw.get("io_bytes", 0), "io_bytes", source)
    if old and "io_kbytes" not in raw:
        io_bytes *= 1024  # fio 2.x reported KiB here
    lat = raw.get("lat") if old else raw.get("lat_ns", {})
    clat = raw.get("clat") if old else raw.get("clat_ns", {})
    lat = lat if isinstance(lat, Mapping) else {}
    clat = clat if isinstance(clat, Mapping) else {}
    n = int(_number(lat.get("N", ios if "mean" in lat else 0), "lat N", source))
    mean = _number(lat.get("mean", 0), "lat mean", source) * scale
    return DirCounters(
        io_bytes=int(io_bytes),
        total_ios=ios,
        lat_n=n,
        lat_sum_ns=mean * n,
        bins=_histogram(clat.get("bins"), source),
        runtime_ms=int(_number(raw.get("runtime", 0), "runtime", source)),
        percentiles=_percentiles(clat.get("percentile"), scale),
    )


def merge(a: DirCounters, b: DirCounters) -> DirCounters:
    """Two jobs' counters as one (percentiles: the first job's, when it has any)."""
    bins = dict(a.bins)
    for bucket, count in b.bins.items():
        bins[bucket] = bins.get(bucket, 0) + count
    return DirCounters(
        io_bytes=a.io_bytes + b.io_bytes,
        total_ios=a.total_ios + b.total_ios,
        lat_n=a.lat_n + b.lat_n,
        lat_sum_ns=a.lat_sum_ns + b.lat_sum_ns,
        bins=bins,
        runtime_ms=max(a.runtime_ms, b.runtime_ms),
        percentiles=a.percentiles or b.percentiles,
    )


def _summed(jobs: list[DirCounters]) -> DirCounters:
    """Every job's counters as one; a lone job's as they are (its histogram not copied)."""
    return functools.reduce(merge, jobs) if jobs else DirCounters()


def _numjobs(job: Mapping[str, Any], data: Mapping[str, Any]) -> int:
    """The job's `numjobs` (its own options, else the job file's [global]), 1 when unset."""
    for options in (job.get("job options"), data.get("global options")):
        value = options.get("numjobs") if isinstance(options, Mapping) else None
        if isinstance(value, str) and value.isdigit() and int(value) > 0:
            return int(value)
    return 1


def _wall_ms(job: Mapping[str, Any], data: Mapping[str, Any], entries: int, source: str) -> int:
    """A job entry's runtime in wall ms. fio prints one entry per thread, except under
    `group_reporting` (one entry for the section's `numjobs` threads, `entries` < numjobs),
    whose `job_runtime` adds up every thread's: 4 threads for 1 s read 4000 ms. fio 2.x has
    only `elapsed` (whole seconds)."""
    if "job_runtime" not in job:
        elapsed = job.get("elapsed", 0)
        return elapsed * 1000 if isinstance(elapsed, int) and not isinstance(elapsed, bool) else 0
    summed = _number(job["job_runtime"], "runtime", source)
    return int(summed / max(1, _numjobs(job, data) // max(1, entries)))


def dump_from(data: Any, source: str) -> Dump:
    """A decoded fio JSON document as a `Dump`.

    Raises:
        ParseError: not a fio result (no "jobs" list, counters that are not numbers).
    """
    if not isinstance(data, Mapping):
        raise ParseError(source, "not a JSON object")
    jobs = data.get("jobs")
    if not isinstance(jobs, list) or not all(isinstance(j, Mapping) for j in jobs):
        raise ParseError(source, 'no "jobs" list: not fio JSON output')
    reads, writes, runtime, errors = [], [], 0, []
    names = Counter(job.get("jobname") for job in jobs)
    for job in jobs:
        reads.append(_direction(job.get("read"), source))
        writes.append(_direction(job.get("write"), source))
        runtime = max(runtime, _wall_ms(job, data, names[job.get("jobname")], source))
        if job.get("error"):
            errors.append(f"{job.get('jobname', '?')}: error {job.get('error')}")
    stamp = data.get("timestamp_ms")
    version = data.get("fio version")
    return Dump(
        timestamp_ms=int(stamp) if isinstance(stamp, int) and not isinstance(stamp, bool) else None,
        job_runtime_ms=runtime,
        read=_summed(reads),
        write=_summed(writes),
        errors=tuple(errors),
        version=version if isinstance(version, str) else None,
        jobs=len(jobs),
    )


def parse_dump(text: str, source: str) -> Dump:
    """One fio JSON document's text as a `Dump`.

    Raises:
        ParseError: not JSON, or not fio's.
    """
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise ParseError(source, f"not JSON ({exc})") from exc
    return dump_from(data, source)


def percentile(bins: Mapping[int, int], percent: float) -> float | None:
    """The latency (ns) below which `percent` % of the histogram's I/Os completed.

    As fio computes it: the first bucket at which the running count reaches the share.
    None for an empty histogram.
    """
    total = sum(c for c in bins.values() if c > 0)
    if total <= 0:
        return None
    wanted = total * min(100.0, max(0.0, percent)) / 100.0
    running = 0
    for bucket in sorted(bins):
        count = bins[bucket]
        if count <= 0:
            continue
        running += count
        if running >= wanted:
            return float(bucket)
    return float(max(bins))


def subtract(now: Mapping[int, int], before: Mapping[int, int]) -> dict[int, int]:
    """Histogram of the I/Os completed between two dumps (negative counts dropped)."""
    result: dict[int, int] = {}
    for bucket, count in now.items():
        diff = count - before.get(bucket, 0)
        if diff > 0:
            result[bucket] = diff
    return result
