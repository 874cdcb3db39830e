"""How fast a simulated drive is (pure): IOPS, MB/s and latency per block size, pattern and
queue depth, for the demo's benchmarks (`nastui.bench.simhost`).

One model per drive class, from published figures of common drives:

| class | sequential 1M | random 4K QD1 | random 4K at depth |
|---|---|---|---|
| HDD 5400 rpm | ~145 MB/s | ~60 IOPS (seek + half a turn) | ~150 IOPS (NCQ) |
| HDD 7200 rpm | ~185 MB/s | ~80 IOPS | ~200 IOPS |
| HDD 10k/15k rpm | 220/240 MB/s | 130/180 IOPS | 330/450 IOPS |
| SATA SSD | 550/520 MB/s (Q8), ~500 (Q1) | ~11k read, ~30k write | ~90k read, ~80k write |
| NVMe | 3.4/3.0 GB/s (Q8), ~2 GB/s (Q1) | ~14k read, ~50k write | ~450k read, ~400k write |

A request takes `access + bytes / transfer rate`; a queue keeps `depth` requests in flight
(Little's law: IOPS = in flight / latency) up to the drive's IOPS ceiling and its bandwidth
ceiling (MB/s = IOPS x block size, always). A disk head cannot overlap seeks: at depth NCQ only
reorders them, shortening each (`reorder`). Mixed read/write splits the requests by the mix.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass

from nastui.model import DriveIdentity, Transport


class DriveClass(enum.Enum):
    """The kinds of drive the demo models."""

    HDD = "hdd"
    SATA_SSD = "sata-ssd"
    NVME = "nvme"


@dataclass(frozen=True, slots=True)
class Direction:
    """One direction (read or write) of a drive.

    Attributes:
        access_s: time to reach random data (seek + rotation; controller latency on flash).
        seq_access_s: the same for the next block of a sequential stream.
        transfer_bps: bytes per second one request moves once it is reached.
        max_bps: the bandwidth ceiling (interface or media).
        max_iops: the IOPS ceiling at depth (flash: controller; disks: unbounded, see reorder).
        spread: p99 latency over the median (how wide the latency distribution is).
    """

    access_s: float
    seq_access_s: float
    transfer_bps: float
    max_bps: float
    max_iops: float
    spread: float


@dataclass(frozen=True, slots=True)
class DriveModel:
    """A drive's performance.

    Attributes:
        name: "HDD 7200 rpm", "SATA SSD", "NVMe".
        drive_class: which class.
        read, write: each direction.
        reorder: how much a queue shortens a disk's random access (0 for flash): the access
            time at depth d is divided by 1 + reorder x log2(d).
        slow_after: bytes written at full speed before writes slow down (an SSD's SLC cache;
            a disk's outer zones), None when they do not.
        slow_factor: write speed after that, as a share of the full speed.
    """

    name: str
    drive_class: DriveClass
    read: Direction
    write: Direction
    reorder: float = 0.0
    slow_after: int | None = None
    slow_factor: float = 1.0

    def direction(self, writing: bool) -> Direction:
        """`write` or `read`."""
        return self.write if writing else self.read


def hdd(rpm: int = 7200) -> DriveModel:
    """A disk spinning at `rpm`: half a turn plus an average seek to reach random data."""
    half_turn = 30.0 / max(rpm, 3600)
    seek = {5400: 0.0115, 7200: 0.0085, 10000: 0.0045, 15000: 0.0035}.get(
        rpm, 0.0085 * 7200 / max(rpm, 3600)
    )
    media = {5400: 145e6, 7200: 185e6, 10000: 220e6, 15000: 240e6}.get(rpm, 185e6 * rpm / 7200)
    read = Direction(seek + half_turn, 0.0002, media, media, math.inf, 2.6)
    write = Direction(seek + half_turn + 0.0005, 0.0002, media * 0.96, media * 0.96, math.inf, 2.8)
    return DriveModel(f"HDD {rpm} rpm", DriveClass.HDD, read, write, reorder=0.3, slow_after=None)


SATA_SSD = DriveModel(
    "SATA SSD",
    DriveClass.SATA_SSD,
    read=Direction(88e-6, 30e-6, 520e6, 555e6, 92_000, 2.2),
    write=Direction(32e-6, 25e-6, 500e6, 525e6, 82_000, 3.0),
    slow_after=24 << 30,
    slow_factor=0.45,
)
NVME = DriveModel(
    "NVMe",
    DriveClass.NVME,
    read=Direction(70e-6, 20e-6, 2.2e9, 3.45e9, 460_000, 2.0),
    write=Direction(20e-6, 15e-6, 2.0e9, 3.0e9, 400_000, 3.5),
    slow_after=60 << 30,
    slow_factor=0.5,
)


def model_for(identity: DriveIdentity | None) -> DriveModel:
    """The model of a drive as identified: NVMe, a solid-state SATA/SAS drive, or a disk
    (by its rpm, 7200 when unknown)."""
    if identity is None:
        return hdd()
    if identity.transport is Transport.NVME:
        return NVME
    if identity.rotational is False or identity.rpm == 0:
        return SATA_SSD
    return hdd(identity.rpm or 7200)


@dataclass(frozen=True, slots=True)
class Workload:
    """What a step asks of the drive.

    Attributes:
        block: bytes per request.
        random: random (else sequential) offsets.
        read_share: share of requests that read (1.0 read-only, 0.0 write-only).
        depth: requests each job keeps in flight.
        jobs: jobs running at once.
        cache_off: the drive's volatile write cache is off (writes wait for the media).
    """

    block: int
    random: bool
    read_share: float
    depth: int = 1
    jobs: int = 1
    cache_off: bool = False


@dataclass(frozen=True, slots=True)
class Rates:
    """The steady state of a workload: per-second figures and the latency of a request.

    MB/s is IOPS x block size in each direction by construction.
    """

    read_iops: float
    write_iops: float
    read_bps: float
    write_bps: float
    lat_mean_s: float
    spread: float

    @property
    def iops(self) -> float:
        """Both directions."""
        return self.read_iops + self.write_iops


def _latency(model: DriveModel, load: Workload, writing: bool) -> float:
    """Seconds one request of this direction takes at depth 1."""
    d = model.direction(writing)
    access = d.access_s if load.random else d.seq_access_s
    if writing and load.cache_off:
        access += 30.0 / 7200 if model.drive_class is DriveClass.HDD else 3 * d.access_s
    return access + load.block / d.transfer_bps


def rates(model: DriveModel, load: Workload) -> Rates:
    """The steady state of `load` on `model`."""
    share = min(1.0, max(0.0, load.read_share))
    in_flight = max(1, load.depth) * max(1, load.jobs)
    parts = [(share, False), (1.0 - share, True)]
    lat1 = sum(w * _latency(model, load, writing) for w, writing in parts if w > 0)
    if model.reorder and load.random:
        speedup = 1.0 + model.reorder * math.log2(in_flight)
        iops = speedup / lat1  # one head: a queue reorders the seeks, never overlaps them
    else:
        iops = in_flight / lat1
    for w, writing in parts:
        if w > 0:
            d = model.direction(writing)
            ceiling = min(d.max_iops, d.max_bps / load.block)
            iops = min(iops, ceiling / w)
    lat = in_flight / iops  # Little's law: what a request waits, queue included
    spread = max(model.direction(w).spread for s, w in parts if s > 0)
    read_iops, write_iops = iops * share, iops * (1.0 - share)
    return Rates(
        read_iops=read_iops,
        write_iops=write_iops,
        read_bps=read_iops * load.block,
        write_bps=write_iops * load.block,
        lat_mean_s=lat,
        spread=spread,
    )


def write_slowdown(model: DriveModel, written: int) -> float:
    """The share of full write speed left after `written` bytes (SLC cache exhausted)."""
    if model.slow_after is None or written < model.slow_after:
        return 1.0
    return model.slow_factor


def zone_factor(model: DriveModel, position: float) -> float:
    """A disk's speed at `position` (0 outer edge .. 1 inner) as a share of the outer zone's:
    the inner tracks hold about half as much per turn. Flash is the same everywhere."""
    if model.drive_class is not DriveClass.HDD:
        return 1.0
    return 1.0 - 0.45 * min(1.0, max(0.0, position))
