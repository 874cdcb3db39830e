"""The benchmark profiles and the steps each one runs (pure).

| profile | what it measures |
|---|---|
| `cdm` | the CrystalDiskMark set: SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1, RND4K Q1T1, read and write |
| `sweep` | IOPS against latency over queue depth x numjobs, as fio-plot charts it |
| `randrw` | random 4k 50/50 read/write at QD1 over the whole device (or test file), over time |
| `wsc` | write-sync-close: seconds to write, fsync, close 1 GiB per record size, +- O_DIRECT |
| `fill` | N-GB files until the filesystem is full (a device: one pass), MB/s against bytes |
| `dd` | dd sequential write and read (and the speed of its data source) |
| `custom` | a fio job file of your own, streamed the same way |

Honest defaults: O_DIRECT, fresh random data for every write (`refill_buffers`: some SSDs
compress), libaio; `honesty_warnings` says what still makes figures flattering.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from nastui.bench.bounds import check_bounds
from nastui.bench.fiojob import check_custom_job, custom_job_text
from nastui.bench.jobs import Step, Tool, fio_params
from nastui.bench.sizes import size_label
from nastui.core.units import size
from nastui.model import BenchSettings, BenchTarget, TargetKind

BOTH = frozenset({TargetKind.DIRECTORY, TargetKind.DEVICE})
FILL_MARGIN = 64 << 20  # left free for the filesystem's own metadata
DEFAULT_FILE = 1 << 30  # the test file when a directory target is given no size
DD_BLOCK = 1 << 20
# (label, rw pattern, block size, queue depth) as CrystalDiskMark 8 runs them.
CDM_TESTS = (
    ("SEQ1M Q8T1", "read", 1 << 20, 8),
    ("SEQ1M Q1T1", "read", 1 << 20, 1),
    ("RND4K Q32T1", "randread", 4096, 32),
    ("RND4K Q1T1", "randread", 4096, 1),
)

Planner = Callable[[BenchSettings, BenchTarget], tuple[Step, ...]]


@dataclass(frozen=True, slots=True)
class Profile:
    """A benchmark profile.

    Attributes:
        name: what `nastui bench run NAME` takes.
        title: a few words.
        summary: one line for `nastui bench list`.
        plan: its steps for given settings and target.
        defaults: its settings when none are given.
        kinds: the targets it can run on.
    """

    name: str
    title: str
    summary: str
    plan: Planner
    defaults: BenchSettings
    kinds: frozenset[TargetKind] = BOTH


def _common(settings: BenchSettings, target: BenchTarget) -> dict[str, object]:
    """fio options every built-in job shares."""
    timed = settings.runtime_s is not None
    size_bytes = settings.size_bytes
    if size_bytes is None and target.kind is TargetKind.DIRECTORY:
        size_bytes = DEFAULT_FILE  # a test file needs a size; a device is used whole
    return {
        "size": size_bytes,
        "ioengine": "libaio",
        "direct": settings.direct,
        "refill_buffers": settings.refill,
        "randrepeat": 0,
        "time_based": True if timed else None,
        "runtime": settings.runtime_s if timed else None,
        "ramp_time": settings.ramp_s or None,
    }


def _seconds(settings: BenchSettings) -> float | None:
    return None if settings.runtime_s is None else settings.runtime_s + settings.ramp_s


def plan_cdm(settings: BenchSettings, target: BenchTarget) -> tuple[Step, ...]:
    """The four CrystalDiskMark tests read, then the four written."""
    steps = []
    for write in (False, True):
        for label, rw, bs, depth in CDM_TESTS:
            pattern = rw.replace("read", "write") if write else rw
            params = fio_params(
                rw=pattern, bs=bs, iodepth=depth, numjobs=1, **_common(settings, target)
            )
            name = f"{label} {'write' if write else 'read'}"
            steps.append(Step(Tool.FIO, name, params, seconds=_seconds(settings)))
    return tuple(steps)


def plan_sweep(settings: BenchSettings, target: BenchTarget) -> tuple[Step, ...]:
    """One step per numjobs x queue depth, grouped as one workload each."""
    steps = []
    for jobs in settings.numjobs:
        for depth in settings.iodepths:
            params = fio_params(
                rw=settings.rw,
                bs=settings.bs_bytes,
                iodepth=depth,
                numjobs=jobs,
                group_reporting=True,
                **_common(settings, target),
            )
            steps.append(Step(Tool.FIO, f"QD{depth} x{jobs}", params, seconds=_seconds(settings)))
    return tuple(steps)


def plan_randrw(settings: BenchSettings, target: BenchTarget) -> tuple[Step, ...]:
    """Random 4k 50/50 at QD1, every block once (norandommap), unless a runtime is given."""
    params = fio_params(
        rw="randrw",
        rwmixread=50,
        bs=settings.bs_bytes,
        iodepth=1,
        norandommap=True,
        **_common(settings, target),
    )
    whole = target.size_bytes if target.kind is TargetKind.DEVICE else DEFAULT_FILE
    total = settings.size_bytes or whole
    step = Step(Tool.FIO, f"randrw {size_label(settings.bs_bytes)} 50/50 QD1", params)
    return (replace(step, seconds=_seconds(settings), bytes_total=total),)


def fill_files(settings: BenchSettings, target: BenchTarget) -> int:
    """How many `file_bytes` files fit in the directory's free space (less a margin)."""
    free = (target.free_bytes or 0) - FILL_MARGIN
    return max(0, free // settings.file_bytes)


def plan_fill(settings: BenchSettings, target: BenchTarget) -> tuple[Step, ...]:
    """Sequential 1M writes: N-GB files one after another, each fsynced on close, until the
    filesystem is full; on a device, one pass from the first block to the last."""
    common = {
        "ioengine": "libaio",
        "direct": settings.direct,
        "refill_buffers": settings.refill,
        "rw": "write",
        "bs": 1 << 20,
        "iodepth": 1,
    }
    if target.kind is TargetKind.DEVICE:
        params = fio_params(**common)
        return (Step(Tool.FIO, "fill device", params, bytes_total=target.size_bytes),)
    count = fill_files(settings, target)
    if count == 0:
        raise ValueError(
            f"no {size(settings.file_bytes)} file fits in {target.path} "
            f"({size(target.free_bytes)} free): choose a smaller --file-size"
        )
    params = fio_params(
        filename_format="fill.$filenum",
        nrfiles=count,
        filesize=settings.file_bytes,
        size=count * settings.file_bytes,
        file_service_type="sequential",
        fallocate="none",
        fsync_on_close=True,
        **common,
    )
    label = f"fill {count} x {size_label(settings.file_bytes)}"
    return (Step(Tool.FIO, label, params, bytes_total=count * settings.file_bytes),)


def plan_wsc(settings: BenchSettings, target: BenchTarget) -> tuple[Step, ...]:
    """Write, fsync and close `size` bytes per record size, buffered and then O_DIRECT."""
    total = settings.size_bytes or (1 << 30)
    steps = []
    for direct in (False, True):
        for record in settings.record_sizes:
            params = (
                ("size", str(total)),
                ("record", str(record)),
                ("direct", "1" if direct else "0"),
                ("refill", "1" if settings.refill else "0"),
            )
            label = f"wsc {size_label(record)}{' O_DIRECT' if direct else ''}"
            steps.append(Step(Tool.WSC, label, params, bytes_total=total))
    return tuple(steps)


def plan_dd(settings: BenchSettings, target: BenchTarget) -> tuple[Step, ...]:
    """How fast the data source is, then a sequential write and read of `size` bytes."""
    total = settings.size_bytes or target.size_bytes or (1 << 30)
    count = str(max(1, total // DD_BLOCK))
    source = "/dev/urandom" if settings.refill else "/dev/zero"
    common = (("bs", "1M"), ("count", count), ("direct", "1" if settings.direct else "0"))
    src = ("source", source)
    return (
        Step(Tool.DD, f"dd source {source}", (("rw", "source"), *common, src), bytes_total=total),
        Step(Tool.DD, "dd write", (("rw", "write"), *common, src), bytes_total=total),
        Step(Tool.DD, "dd read", (("rw", "read"), *common), bytes_total=total),
    )


def plan_custom(settings: BenchSettings, target: BenchTarget) -> tuple[Step, ...]:
    """The job file, checked against the allowlist and rebuilt from what was checked."""
    text = check_custom_job(settings.job_text)
    custom_job_text(text, target.path)  # the target's path must be safe to write into a job
    return (Step(Tool.FIO, "custom job", (("job", text),), seconds=settings.runtime_s),)


def _defaults(profile: str, **changes: object) -> BenchSettings:
    return replace(BenchSettings(profile=profile), **changes)  # type: ignore[arg-type]


PROFILES: dict[str, Profile] = {
    p.name: p
    for p in (
        Profile(
            "cdm",
            "CrystalDiskMark set",
            "SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1, RND4K Q1T1; read and write",
            plan_cdm,
            _defaults("cdm"),
        ),
        Profile(
            "sweep",
            "queue depth sweep",
            "IOPS against latency for QD 1..32 x numjobs (fio-plot's chart)",
            plan_sweep,
            _defaults("sweep", runtime_s=10.0),
        ),
        Profile(
            "randrw",
            "whole-device random 4k",
            "randrw 4k 50/50 at QD1 over the whole device, graphed over time",
            plan_randrw,
            _defaults("randrw", size_bytes=None, runtime_s=None),
        ),
        Profile(
            "wsc",
            "write-sync-close",
            "time to write, fsync and close 1 GiB at 4K..16M records, with and without O_DIRECT",
            plan_wsc,
            _defaults("wsc", record_sizes=(4 << 10, 64 << 10, 1 << 20, 16 << 20)),
        ),
        Profile(
            "fill",
            "fill with big files",
            "N-GB files until full: MB/s against bytes written (zones, SLC cache, SMR)",
            plan_fill,
            _defaults("fill", size_bytes=None, runtime_s=None, file_bytes=1 << 30),
        ),
        Profile(
            "dd",
            "dd sequential",
            "dd write and read of 1 GiB in 1M blocks (and how fast the data source is)",
            plan_dd,
            _defaults("dd", runtime_s=None),
        ),
        Profile(
            "custom",
            "custom fio job",
            "your own fio job file, run on the guarded target and streamed the same way",
            plan_custom,
            _defaults("custom", runtime_s=None),
        ),
    )
}


def plan(settings: BenchSettings, target: BenchTarget) -> tuple[Step, ...]:
    """The steps of `settings.profile` on `target`, doubled (cache on, then off) for the
    write-cache matrix.

    Raises:
        ValueError: a setting out of its bounds, an unknown profile, a target kind it cannot run
            on, a custom job refused.
    """
    check_bounds(settings)
    profile = PROFILES.get(settings.profile)
    if profile is None:
        raise ValueError(f"no profile {settings.profile!r}: choose from {', '.join(PROFILES)}")
    if target.kind not in profile.kinds:
        raise ValueError(f"profile {profile.name} cannot run on a {target.kind.value}")
    steps = profile.plan(settings, target)
    if settings.cache_matrix:
        return tuple(s.with_cache("on") for s in steps) + tuple(s.with_cache("off") for s in steps)
    return steps


def honesty_warnings(settings: BenchSettings, target: BenchTarget) -> tuple[str, ...]:
    """What makes this run's figures flattering, one line each (empty when nothing does)."""
    warnings = []
    tested = None
    if settings.profile not in ("fill", "custom"):
        tested = settings.size_bytes or DEFAULT_FILE
    ram = target.ram_bytes
    if target.kind is TargetKind.DIRECTORY and tested is not None and ram and tested < 2 * ram:
        warnings.append(  # whole at 80 columns (the bench screen's setup line)
            f"test file {size(tested)} < 2 x the {size(ram)} of RAM: the page cache may answer "
            "reads"
        )
    if target.arc_max_bytes and target.fs_type == "zfs":
        warnings.append(
            f"ZFS ARC (up to {size(target.arc_max_bytes)}) caches this filesystem; O_DIRECT does "
            "not bypass it before OpenZFS 2.3: use a test file larger than RAM + ARC"
        )
    if not settings.direct:
        warnings.append("buffered I/O (direct off): the page cache answers part of it")
    if not settings.refill:
        warnings.append("compressible data (refill off): a compressing SSD looks faster")
    return tuple(warnings)
