"""Benchmark records: what a run measured, on what, with which settings.

`BenchSample` is one interval of a running job (one fio status dump, one dd progress line);
`StepResult` is one finished job of a profile (a CrystalDiskMark test, one point of a queue-depth
sweep, one record size of write-sync-close); `BenchRun` is the whole run as saved and compared.
`BenchTarget` is what the target is and what uses it, as inspected before anything is written.
Unknown is `None`, never 0: a latency fio did not measure is not a latency of zero.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from nastui.model.drive import DriveIdentity

Pairs = tuple[tuple[str, str], ...]


class TargetKind(enum.Enum):
    """What a benchmark writes to."""

    DIRECTORY = "directory"  # test files in a fresh directory made inside it, removed afterwards
    DEVICE = "device"  # the raw block device itself


class Phase(enum.Enum):
    """What fio was doing during an interval."""

    SETUP = "setup"  # laying out files: no I/O counted yet
    RAMP = "ramp"  # ramp_time: I/O counted, latency not (the counters reset afterwards)
    RUN = "run"  # measured


class RunState(enum.Enum):
    """How a run ended (or that it has not)."""

    RUNNING = "running"
    COMPLETE = "complete"
    INTERRUPTED = "interrupted"  # stopped (Ctrl-C, `s`): the partial result is kept
    FAILED = "failed"  # a job failed; the steps before it are kept
    REFUSED = "refused"  # the guard refused the target: nothing was written


@dataclass(frozen=True, slots=True)
class UnseenProcess:
    """A process the guard could not look into: /proc refused its descriptors, working and
    root directories or maps even to root (a process of a parent user namespace, such as a
    sandbox's process 1), so a use of the target by it would not be seen.

    Attributes:
        pid: its process id.
        comm: its name (/proc/PID/comm), "?" when it could not be read.
        why: what was refused, in words ("descriptors refused", "descriptors and maps
            refused").
    """

    pid: int
    comm: str
    why: str


@dataclass(frozen=True, slots=True)
class BenchTarget:
    """A benchmark target as inspected before the run.

    Attributes:
        path: what the user named (/dev/sdc, /dev/disk/by-id/..., /srv/tank/bench).
        kind: a directory on a filesystem, or a raw block device.
        dev: kernel name of the block device (the device itself, or the one holding the
            directory's filesystem), when known.
        identity: model, serial, firmware of that device, when known.
        size_bytes: the device's size, or the filesystem's size for a directory.
        free_bytes: free space in the directory's filesystem (None for devices).
        fs_type: the filesystem holding the directory ("ext4", "zfs", "btrfs"), or None.
        in_use: why the device is in use, one line each (mounted, holders, partitions,
            filesystem signatures, swap, open by a process); empty when nothing was found.
        ram_bytes: the machine's memory, for the page-cache warning.
        arc_max_bytes: the ZFS ARC's maximum size, when ZFS is loaded.
        backing: for a loop device, its backing file.
        devno: the device number ("7:3") the path named when inspected: the device itself, or
            the filesystem holding the directory. The run holds what has this number, never
            whatever the path names later.
        inode: the directory's inode, when the target is a directory.
        footprint: what a write to the device lands on, one line each (the device, the
            devices and files below it), as inspected: the run is stopped if it changes.
        unseen: the processes the guard could not look into (`UnseenProcess`): named before
            a run that writes, never a reason to refuse. In a finished run, also those the
            watch met while it wrote.
        starved: for a directory, what would fail its writes if the run took the free space of
            its filesystem (a loop device over a file on it, one line each): a run that may
            fill it (`nastui.bench.guard.fills`) is refused.
        lowers: (path, device number) of each device below the target that its writes reach
            raw through a loop device, as inspected: a run that writes holds them O_EXCL with
            the target (the kernel claims nothing under a loop device).
    """

    path: str
    kind: TargetKind
    dev: str | None = None
    identity: DriveIdentity | None = None
    size_bytes: int | None = None
    free_bytes: int | None = None
    fs_type: str | None = None
    in_use: tuple[str, ...] = ()
    ram_bytes: int | None = None
    arc_max_bytes: int | None = None
    backing: str | None = None
    devno: str | None = None
    inode: int | None = None
    footprint: tuple[str, ...] = ()
    unseen: tuple[UnseenProcess, ...] = ()
    lowers: tuple[tuple[str, str], ...] = ()
    starved: tuple[str, ...] = ()

    @property
    def confirm_token(self) -> str:
        """What the user types to allow raw writes: the serial number, else the WWN, else
        (a device that reports neither, such as a loop device) its path."""
        identity = self.identity
        if identity is not None and identity.serial:
            return identity.serial
        if identity is not None and identity.wwn:
            return identity.wwn
        return self.path


@dataclass(frozen=True, slots=True)
class BenchSettings:
    """How a profile runs.

    Attributes:
        profile: the profile's name ("cdm", "sweep", "randrw", "wsc", "fill", "dd", "custom").
        size_bytes: test file size (per job); for devices, None means the whole device.
        runtime_s: seconds per job for time-based jobs; None runs until `size_bytes` is done.
        ramp_s: fio ramp_time: I/O before measuring starts.
        direct: O_DIRECT (bypass the page cache).
        refill: fresh random data for every write (incompressible: some SSDs compress).
        iodepths: queue depths for the sweep.
        numjobs: job counts for the sweep.
        rw: the sweep's pattern ("randread", "randwrite", "randrw").
        bs_bytes: block size for the sweep and the whole-device test.
        file_bytes: the fill profile's file size.
        record_sizes: write-sync-close record sizes in bytes.
        cache_matrix: run every step with the drive's write cache on and then off.
        job_text: the custom profile's fio job file.
    """

    profile: str
    size_bytes: int | None = 1 << 30
    runtime_s: float | None = 5.0
    ramp_s: float = 0.0
    direct: bool = True
    refill: bool = True
    iodepths: tuple[int, ...] = (1, 2, 4, 8, 16, 32)
    numjobs: tuple[int, ...] = (1,)
    rw: str = "randread"
    bs_bytes: int = 4096
    file_bytes: int = 1 << 30
    record_sizes: tuple[int, ...] = (4 << 10, 64 << 10, 1 << 20, 16 << 20)
    cache_matrix: bool = False
    job_text: str = ""


class _ReadWrite:
    """Totals of a record with read and write figures."""

    __slots__ = ()
    read_iops: float
    write_iops: float
    read_bps: float
    write_bps: float

    @property
    def iops(self) -> float:
        """Read and write operations per second."""
        return self.read_iops + self.write_iops

    @property
    def bps(self) -> float:
        """Read and write bytes per second."""
        return self.read_bps + self.write_bps


@dataclass(frozen=True, slots=True)
class BenchSample(_ReadWrite):
    """One interval of a running job, from differences of cumulative counters.

    Attributes:
        t: seconds since the run started, at the end of the interval.
        step: index of the step (job) it belongs to.
        phase: setup, ramp or measured.
        seconds: length of the interval.
        read_iops, write_iops: operations per second in the interval.
        read_bps, write_bps: bytes per second in the interval.
        lat_mean_ns: mean total latency of the I/Os completed in the interval.
        lat_p50_ns, lat_p99_ns: completion-latency percentiles of the interval (json+ bins).
        bytes_done: bytes transferred by the step so far (fill: MB/s against bytes written).
        disk_read_bps, disk_write_bps: what the kernel counted for the device (/proc/diskstats)
            over about the same interval: when these and fio disagree, a cache answered.
        at: wall-clock time fio printed it (Unix seconds), when known.
    """

    t: float
    step: int
    phase: Phase
    seconds: float
    read_iops: float = 0.0
    write_iops: float = 0.0
    read_bps: float = 0.0
    write_bps: float = 0.0
    lat_mean_ns: float | None = None
    lat_p50_ns: float | None = None
    lat_p99_ns: float | None = None
    bytes_done: int = 0
    disk_read_bps: float | None = None
    disk_write_bps: float | None = None
    at: float | None = None


@dataclass(frozen=True, slots=True)
class StepResult(_ReadWrite):
    """One finished job of a run.

    Attributes:
        label: what it was ("SEQ1M Q8T1 read", "QD16 x1", "wsc 64K O_DIRECT").
        params: the job's settings as (name, value) pairs (rw, bs, iodepth, numjobs, ...).
        cache: the write cache during the step ("on", "off"), when the matrix switched it.
        seconds: how long it ran (measured part).
        read_iops, write_iops, read_bps, write_bps: averages over the measured part.
        lat_mean_ns, lat_p50_ns, lat_p99_ns, lat_p999_ns: latency over the whole step.
        bytes_done: bytes transferred.
        timings: named phase durations in seconds (write-sync-close: write, fsync, close).
        error: why the step failed, when it did.
    """

    label: str
    params: Pairs = ()
    cache: str | None = None
    seconds: float = 0.0
    read_iops: float = 0.0
    write_iops: float = 0.0
    read_bps: float = 0.0
    write_bps: float = 0.0
    lat_mean_ns: float | None = None
    lat_p50_ns: float | None = None
    lat_p99_ns: float | None = None
    lat_p999_ns: float | None = None
    bytes_done: int = 0
    timings: tuple[tuple[str, float], ...] = ()
    error: str | None = None

    def param(self, name: str) -> str | None:
        """One of `params` by name."""
        return dict(self.params).get(name)


@dataclass(frozen=True, slots=True)
class BenchRun:
    """A whole benchmark run, as saved (JSON + CSV) and compared.

    Attributes:
        run_id: unique and sortable ("20250301-142233-sdc-cdm").
        host: the machine it ran on.
        started_at, ended_at: Unix times.
        state: complete, interrupted, failed, refused (or running, while it runs).
        settings: the profile and its settings.
        target: the target as inspected before the run.
        steps: the finished steps, in order.
        samples: every interval of every step, in order.
        smart_before, smart_after: SMART counters before and after, as (name, value) pairs;
            None when the device has no SMART (a loop device) or it could not be read.
        warnings: what makes the figures less than honest (a test file smaller than twice the
            RAM, a ZFS ARC, buffered I/O), one line each.
        message: how it ended, in one line.
        tool: the tool and version ("fio-3.33").
    """

    run_id: str
    host: str
    started_at: float
    settings: BenchSettings
    target: BenchTarget
    ended_at: float | None = None
    state: RunState = RunState.RUNNING
    steps: tuple[StepResult, ...] = ()
    samples: tuple[BenchSample, ...] = field(default=(), repr=False)
    smart_before: Pairs | None = None
    smart_after: Pairs | None = None
    warnings: tuple[str, ...] = ()
    message: str = ""
    tool: str | None = None
