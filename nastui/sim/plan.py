"""What a scenario resolves to for one seed: the drives, fans, pools and events of a run.

A `Plan` is fixed for the whole run. What changes with time (temperatures, defect counts, power
states, scan progress) is derived from it by the engine and the builders.

The simulator's own records (these, and those of `engine`, `thermal`, `profiles`, `boxes`,
`pools`, `hands` and `scenarios`) are NamedTuples rather than frozen dataclasses: as immutable,
changed with `_replace`, and a fraction of the cost to define. A frozen dataclass compiles its
generated methods when its module loads, about 0.6 ms a class on 3.11: 12 ms of every demo
start for these 21. What leaves the simulator (`nastui.model`) stays a dataclass.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from nastui.model import BayBinding, PoolKind, ScanKind, ScanProgress, ScanState, SelfTest
from nastui.sim.profiles import DriveProfile
from nastui.sim.thermal import FanSpec, SensorSpec


class DrivePlan(NamedTuple):
    """One simulated drive: who it is and where it sits.

    Attributes:
        profile: the real drive model it is.
        serial: its serial number.
        wwn: its WWN as smartctl prints it, if any.
        dev: kernel device name.
        by_id: /dev/disk/by-id names, the ata-/nvme- name first.
        by_path: /dev/disk/by-path name (the controller port).
        bay: the bay it sits in; None for a drive in no bay (M.2 on the board).
        cell: (row, column) of that bay on its face, for the airflow model.
        hours: power-on hours at the start of the simulation.
        wear: lifetime counters (power cycles, load cycles) relative to the profile's drive.
        rise: degrees above the room when idle with every fan running.
        io_scale: how busy the drive is when nothing special runs (1.0 = a quiet HDD).
        self_tests: the drive's self-test log, newest first.
    """

    profile: DriveProfile
    serial: str
    wwn: str | None
    dev: str
    by_id: tuple[str, ...]
    by_path: str | None
    bay: int | None
    cell: tuple[float, float] | None
    hours: int
    wear: float
    rise: float
    io_scale: float = 1.0
    self_tests: tuple[SelfTest, ...] = ()


class GroupPlan(NamedTuple):
    """A top-level vdev or array level.

    Attributes:
        name: as the tool prints it ("raidz3-0", "raid1").
        kind: vdev kind ("raidz3", "raid1").
        members: indices of its drives, in the tool's order.
    """

    name: str
    kind: str
    members: tuple[int, ...]


class ScanPlan(NamedTuple):
    """A scrub, check or resilver: when it runs and how much it reads.

    Attributes:
        kind: scrub, check, resilver...
        started_at: Unix time it started.
        duration: seconds it takes in all.
        bytes_total: bytes it examines.
        repaired_bytes: bytes it repairs (spread evenly over the run).
    """

    kind: ScanKind
    started_at: float
    duration: float
    bytes_total: int
    repaired_bytes: int = 0

    @property
    def ended_at(self) -> float:
        """Unix time it ends."""
        return self.started_at + self.duration

    def running(self, t: float) -> bool:
        """True while the scan runs at `t`."""
        return self.started_at <= t < self.ended_at

    def progress(self, t: float) -> ScanProgress | None:
        """The scan as the tool reports it at `t`; None before it starts."""
        if t < self.started_at:
            return None
        if t >= self.ended_at:
            return ScanProgress(
                self.kind,
                ScanState.FINISHED,
                started_at=self.started_at,
                ended_at=self.ended_at,
                bytes_done=self.bytes_total,
                bytes_total=self.bytes_total,
                errors=0,
                repaired_bytes=self.repaired_bytes,
            )
        x = (t - self.started_at) / self.duration
        done, rate = self._curve(x)
        return ScanProgress(
            self.kind,
            ScanState.RUNNING,
            started_at=self.started_at,
            bytes_done=done,
            bytes_total=self.bytes_total,
            rate_bytes_per_s=rate,
            eta_seconds=(self.bytes_total - done) / rate,
            errors=0,
            repaired_bytes=round(self.repaired_bytes * x),
        )

    def _curve(self, x: float) -> tuple[int, float]:
        """Bytes done and current rate at fraction `x` of the run.

        The rate wobbles by 10 % a few times an hour but the curve still ends exactly at
        `ended_at`: done(x) = total * (x + a * sin(2 pi k x) / (2 pi k)).
        """
        waves = max(1, round(self.duration / 2700))
        omega = 2 * math.pi * waves
        done = self.bytes_total * (x + 0.1 * math.sin(omega * x) / omega)
        rate = self.bytes_total / self.duration * (1 + 0.1 * math.cos(omega * x))
        return min(self.bytes_total, round(done)), rate


class PoolPlan(NamedTuple):
    """A pool of the simulated box.

    Attributes:
        name: pool, array or filesystem label.
        kind: zfs, mdraid or btrfs.
        groups: its top-level vdevs / levels.
        spares: hot spares (drive indices).
        size_bytes: usable size.
        allocated_bytes: bytes in use, when the stack knows.
        fragmentation: ZFS free-space fragmentation in percent.
        last_scrub: the scrub or check before the run began.
        scan: a scan that runs (or starts) during the run.
        schedule: the scrub timer found for the pool.
    """

    name: str
    kind: PoolKind
    groups: tuple[GroupPlan, ...]
    spares: tuple[int, ...] = ()
    size_bytes: int | None = None
    allocated_bytes: int | None = None
    fragmentation: int | None = None
    last_scrub: ScanPlan | None = None
    scan: ScanPlan | None = None
    schedule: str | None = None


class Replacement(NamedTuple):
    """A `zpool replace` in progress: the old drive is gone, the new one resilvers.

    Attributes:
        pool: pool name.
        group: index of the top-level vdev.
        position: index of the replaced leaf in that vdev.
        old_by_id: by-id name of the drive taken out.
        guid: the vdev GUID ZFS shows for the missing device.
        new: index of the new drive.
    """

    pool: str
    group: int
    position: int
    old_by_id: str
    guid: str
    new: int


class SleepPlan(NamedTuple):
    """When drives spin down and wake.

    Attributes:
        spin_down: per drive, the Unix time it spins down (None: never).
        wake: per drive, the Unix time it spins up again (None: never).
    """

    spin_down: tuple[float | None, ...]
    wake: tuple[float | None, ...]


class DeadFan(NamedTuple):
    """A fan that stops.

    Attributes:
        name: the fan's name.
        since: Unix time it died.
    """

    name: str
    since: float


class Plan(NamedTuple):
    """Everything fixed about one run of a scenario.

    Attributes:
        host: host name.
        preset: chassis preset key.
        drives: every drive, in the order snapshots list them.
        fans: every fan.
        sensors: non-drive sensors.
        pools: every pool.
        bindings: the bay bindings the scenario "configures".
        empty_bays: bays left empty on purpose.
        ambient: mean room temperature.
        ambient_phase: Unix time the daily room swing crosses the mean going up.
        failing: index of a drive growing bad sectors.
        dead_fan: a fan that died.
        sleep: spin-down schedule.
        replacement: a drive replacement being resilvered.
    """

    host: str
    preset: str
    drives: tuple[DrivePlan, ...]
    fans: tuple[FanSpec, ...]
    sensors: tuple[SensorSpec, ...]
    pools: tuple[PoolPlan, ...]
    bindings: tuple[BayBinding, ...]
    empty_bays: frozenset[int]
    ambient: float
    ambient_phase: float
    failing: int | None = None
    dead_fan: DeadFan | None = None
    sleep: SleepPlan | None = None
    replacement: Replacement | None = None

    def index_in_bay(self, bay: int) -> int:
        """Index of the drive sitting in `bay`."""
        for i, drive in enumerate(self.drives):
            if drive.bay == bay:
                return i
        raise KeyError(bay)
