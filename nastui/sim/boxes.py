"""The three simulated machines, healthy, before any scenario changes them.

* `nano_box`: the 24-bay Ri-vier RV-4324 ZFS NAS the project began from (host "nano"): 24 HGST
  4 TB drives in one raidz3 pool, three IBM M1015 HBAs, device names and temperatures laid out as
  its lsidrivemap tables showed them.
* `homelab_box`: a 12-bay 2U with a ZFS raidz2 of WD Reds, an mdraid RAID1 of two SATA SSDs and
  a btrfs RAID1 of two M.2 NVMe drives on the board.
* `archive_box`: a 102-bay top-loader with 100 18 TB drives in ten raidz2 vdevs and a hot spare.
"""

from __future__ import annotations

import random
import string
from typing import NamedTuple

from nastui.config.presets import PRESETS
from nastui.core.layout import build_chassis
from nastui.model import Bay, BayBinding, PoolKind, ScanKind, SelfTest, Transport
from nastui.sim.clock import SIM_EPOCH
from nastui.sim.grid import DAY_S
from nastui.sim.plan import DrivePlan, GroupPlan, Plan, PoolPlan, ScanPlan
from nastui.sim.profiles import DriveProfile, by_id_names, make_serial, make_wwn, profile
from nastui.sim.thermal import FanSpec, SensorSpec, ambient_at

NANO_DEVICES = (
    ("sdr", "sds", "sdt", "sdq"),
    ("sdu", "sdv", "sdx", "sdw"),
    ("sdi", "sdl", "sdp", "sdm"),
    ("sdj", "sdk", "sdn", "sdo"),
    ("sdb", "sdc", "sde", "sdf"),
    ("sda", "sdd", "sdh", "sdg"),
)
"""`lsidrivemap disk` on the source NAS, rows top to bottom."""

NANO_TEMPS = (
    (36, 39, 40, 38),
    (36, 36, 37, 36),
    (35, 38, 36, 36),
    (35, 37, 36, 35),
    (35, 36, 36, 35),
    (34, 35, 36, 35),
)
"""`lsidrivemap temp` on the source NAS: the top rows run a few degrees hotter."""

USABLE = 0.965
"""Share of the data drives' capacity ZFS leaves usable (slop space and metadata)."""


class Slot(NamedTuple):
    """Where a new drive goes.

    Attributes:
        dev: kernel device name.
        bay: the bay, or None for a drive on the board.
        by_path: the controller port's by-path name.
    """

    dev: str
    bay: Bay | None
    by_path: str | None


def sd_name(index: int) -> str:
    """The kernel name of the index-th SCSI disk: sda ... sdz, sdaa ..."""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = string.ascii_lowercase[rest] + letters
    return "sd" + letters


def dev_order(dev: str) -> tuple[int, str]:
    """Sort key putting kernel names in the kernel's order (sdz before sdaa)."""
    return len(dev), dev


def self_test_log(prof: DriveProfile, hours: int, rng: random.Random) -> tuple[SelfTest, ...]:
    """A healthy self-test log: a recent short test and an older extended one (none for NVMe)."""
    if prof.transport is Transport.NVME:
        return ()
    short = SelfTest(
        "Short offline", "Completed without error", True, max(0, hours - rng.randint(10, 160)), 0
    )
    if hours < 1000:
        return (short,)
    extended = SelfTest(
        "Extended offline", "Completed without error", True, hours - rng.randint(300, 700), 0
    )
    return short, extended


def new_drive(
    prof: DriveProfile, slot: Slot, rng: random.Random, *, hours: int, rise: float
) -> DrivePlan:
    """A drive of model `prof` with a fresh serial, WWN and by-id names, placed at `slot`."""
    serial = make_serial(prof, rng)
    wwn = make_wwn(prof, serial, rng)
    return DrivePlan(
        profile=prof,
        serial=serial,
        wwn=wwn,
        dev=slot.dev,
        by_id=by_id_names(prof, serial, wwn, rng),
        by_path=slot.by_path,
        bay=slot.bay.number if slot.bay else None,
        cell=(float(slot.bay.row), float(slot.bay.column)) if slot.bay else None,
        hours=hours,
        wear=hours / prof.power_on_hours * rng.uniform(0.9, 1.1),
        rise=rise,
        io_scale=1.0 if prof.rotational else 2.5,
        self_tests=self_test_log(prof, hours, rng),
    )


def bays_of(preset: str) -> tuple[Bay, ...]:
    """The numbered bays of a preset chassis."""
    return build_chassis(PRESETS[preset]).bays


def bay_numbered(preset: str, number: int | None) -> Bay | None:
    """The bay with this number in a preset chassis (None for None)."""
    return None if number is None else build_chassis(PRESETS[preset]).bay(number)


def serial_bindings(drives: tuple[DrivePlan, ...]) -> tuple[BayBinding, ...]:
    """One binding by serial for every drive in a bay."""
    return tuple(BayBinding(d.bay, serial=d.serial) for d in drives if d.bay is not None)


def finished_scrub(
    kind: ScanKind, total: int, rate: float, days_ago: float, rng: random.Random
) -> ScanPlan:
    """A scan of `total` bytes at about `rate` bytes/s that ended `days_ago` days before t0."""
    duration = total / rate * rng.uniform(0.95, 1.05)
    return ScanPlan(kind, SIM_EPOCH - days_ago * DAY_S - duration, duration, total)


def room_phase(rng: random.Random) -> float:
    """When the room's daily swing crosses its mean going up (so it peaks mid-afternoon)."""
    return SIM_EPOCH + rng.uniform(7.0, 9.0) * 3600


def _nano_drive(bay: Bay, room: float, rng: random.Random) -> DrivePlan:
    prof = profile("hgst-hus724040ala640")
    hba, phy = divmod(bay.row * 4 + bay.column, 8)
    slot = Slot(
        NANO_DEVICES[bay.row][bay.column], bay, f"pci-0000:0{hba + 1}:00.0-sas-phy{phy}-lun-0"
    )
    # Most drives were bought together; a few are younger replacements.
    share = rng.uniform(0.84, 1.0) if rng.random() > 0.12 else rng.uniform(0.25, 0.55)
    rise = NANO_TEMPS[bay.row][bay.column] - room + rng.uniform(-0.7, 0.7)
    return new_drive(prof, slot, rng, hours=round(prof.power_on_hours * share), rise=rise)


def nano_fans(rng: random.Random) -> tuple[FanSpec, ...]:
    """Three 120 mm fan-wall fans and two 80 mm rear fans.

    Fan 2 sits behind the top middle bays; fans 1 and 3 lower down at the sides, so the top
    corners get the least air (the source NAS's top rows ran a few degrees hotter).
    """
    centers = ((2.5, -0.5), (1.0, 1.5), (2.5, 3.5))
    wall = tuple(
        FanSpec(f"fan-wall-{i + 1}", "drives", rng.randint(1080, 1120), 45.0, center)
        for i, center in enumerate(centers)
    )
    rear = tuple(
        FanSpec(f"rear-{i + 1}", "exhaust", rng.randint(1960, 2040), 45.0) for i in range(2)
    )
    return wall + rear


def zfs_pool(
    name: str,
    groups: tuple[GroupPlan, ...],
    data_bytes: int,
    rng: random.Random,
    *,
    used: float,
    scrub_rate: float = 1.2e9,
) -> PoolPlan:
    """A ZFS pool with `used` of its usable space allocated, last scrubbed 12 days ago.

    Args:
        name: pool name.
        groups: its top-level vdevs.
        data_bytes: total capacity of the data (non-parity) drives.
        rng: the plan's generator.
        used: allocated share of the usable space.
        scrub_rate: bytes/s the last scrub ran at.
    """
    size = round(data_bytes * USABLE)
    allocated = round(size * used * rng.uniform(0.98, 1.02))
    return PoolPlan(
        name,
        PoolKind.ZFS,
        groups,
        size_bytes=size,
        allocated_bytes=allocated,
        fragmentation=rng.randint(2, 5),
        last_scrub=finished_scrub(ScanKind.SCRUB, allocated, scrub_rate, 12, rng),
        schedule=f"zfs-scrub-monthly@{name}.timer",
    )


def nano_box(rng: random.Random) -> Plan:
    """The source NAS, healthy: 24 x HGST HUS724040ALA640 in raidz3 pool `storage`."""
    phase = room_phase(rng)
    room = ambient_at(24.0, phase, SIM_EPOCH)
    drives = tuple(_nano_drive(bay, room, rng) for bay in bays_of("rv-4324"))
    order = tuple(sorted(range(len(drives)), key=lambda i: dev_order(drives[i].dev)))
    capacity = drives[0].profile.capacity_bytes
    pool = zfs_pool(
        "storage", (GroupPlan("raidz3-0", "raidz3", order),), 21 * capacity, rng, used=0.4
    )
    return Plan(
        host="nano",
        preset="rv-4324",
        drives=drives,
        fans=nano_fans(rng),
        sensors=(
            SensorSpec("CPU package", 21.0, busy=7.0),
            SensorSpec("System", 7.0),
            SensorSpec("Peripheral", 14.0, busy=2.0),
        ),
        pools=(pool,),
        bindings=serial_bindings(drives),
        empty_bays=frozenset(),
        ambient=24.0,
        ambient_phase=phase,
    )


def _homelab_drives(rng: random.Random) -> tuple[DrivePlan, ...]:
    bays = bays_of("2u-12")
    red, ssd, nvme = (
        profile("wdc-wd40efrx-68wt0n0"),
        profile("crucial-ct500mx500ssd1"),
        profile("samsung-970-evo-plus-250gb"),
    )
    drives = [
        new_drive(
            red,
            Slot(sd_name(i), bays[i], f"pci-0000:01:00.0-sas-phy{i}-lun-0"),
            rng,
            hours=rng.randint(21_000, 24_000),
            rise=9.0 + 0.6 * bays[i].row + rng.uniform(-0.6, 0.6),
        )
        for i in range(8)
    ]
    for i in (8, 9):
        slot = Slot(sd_name(i), bays[i], f"pci-0000:00:17.0-ata-{i - 7}.0")
        drives.append(new_drive(ssd, slot, rng, hours=rng.randint(13_000, 15_000), rise=8.0))
    for n in (0, 1):
        slot = Slot(f"nvme{n}n1", None, f"pci-0000:0{4 + n}:00.0-nvme-1")
        drives.append(new_drive(nvme, slot, rng, hours=rng.randint(2_900, 3_400), rise=13.0))
    return tuple(drives)


def _homelab_pools(drives: tuple[DrivePlan, ...], rng: random.Random) -> tuple[PoolPlan, ...]:
    tank = zfs_pool(
        "tank",
        (GroupPlan("raidz2-0", "raidz2", tuple(range(8))),),
        6 * drives[0].profile.capacity_bytes,
        rng,
        used=0.52,
    )
    md_size = drives[8].profile.capacity_bytes - 2 * 1024 * 1024
    md0 = PoolPlan(
        "md0",
        PoolKind.MDRAID,
        (GroupPlan("raid1", "raid1", (8, 9)),),
        size_bytes=md_size,
        last_scrub=finished_scrub(ScanKind.CHECK, md_size, 4.0e8, 27, rng),
        schedule="mdadm checkarray (cron, first Sunday of the month)",
    )
    fast_size = drives[10].profile.capacity_bytes
    fast_used = round(fast_size * rng.uniform(0.36, 0.4))
    fast = PoolPlan(
        "fast",
        PoolKind.BTRFS,
        (GroupPlan("raid1", "raid1", (10, 11)),),
        size_bytes=fast_size,
        allocated_bytes=fast_used,
        last_scrub=finished_scrub(ScanKind.SCRUB, 2 * fast_used, 2.5e9, 9, rng),
    )
    return tank, md0, fast


def homelab_box(rng: random.Random) -> Plan:
    """The mixed 2U: ZFS, mdraid and btrfs side by side, one bay spare, one drive missing."""
    drives = _homelab_drives(rng)
    missing = make_serial(drives[0].profile, rng)
    wall = tuple(
        FanSpec(f"fan-{i + 1}", "drives", rng.randint(4200, 4400), 40.0, (1.0, 1.5 * i))
        for i in range(3)
    )
    rear = tuple(
        FanSpec(f"rear-{i + 1}", "exhaust", rng.randint(3700, 3900), 40.0) for i in range(2)
    )
    return Plan(
        host="homelab-2u",
        preset="2u-12",
        drives=drives,
        fans=wall + rear,
        sensors=(SensorSpec("CPU package", 22.0, busy=4.0), SensorSpec("System", 8.0)),
        pools=_homelab_pools(drives, rng),
        bindings=(*serial_bindings(drives), BayBinding(11, serial=missing)),
        empty_bays=frozenset({10}),
        ambient=25.0,
        ambient_phase=room_phase(rng),
    )


def _archive_drive(bay: Bay, rng: random.Random, hours: int) -> DrivePlan:
    prof = profile("wdc-wuh721818ale6l4")
    expander = ("5000ccab0405db7f", "5000ccab0405dbff")[bay.number // 51]
    slot = Slot(
        sd_name(bay.number),
        bay,
        f"pci-0000:5e:00.0-sas-exp0x{expander}-phy{bay.number % 51}-lun-0",
    )
    middle = 1.0 - abs(bay.column - 6.5) / 6.5
    rise = 5.0 + 2.2 * bay.row + 0.8 * middle + rng.uniform(-0.5, 0.5)
    return new_drive(prof, slot, rng, hours=hours + rng.randint(-40, 40), rise=rise)


def archive_box(rng: random.Random) -> Plan:
    """The 102-bay top-loader: 100 x 18 TB in ten raidz2 vdevs, a hot spare, one bay empty."""
    hours = rng.randint(5_000, 9_000)
    drives = tuple(_archive_drive(bay, rng, hours) for bay in bays_of("top-102")[:101])
    groups = tuple(
        GroupPlan(f"raidz2-{g}", "raidz2", tuple(range(10 * g, 10 * g + 10))) for g in range(10)
    )
    data_bytes = 80 * drives[0].profile.capacity_bytes
    pool = zfs_pool("archive", groups, data_bytes, rng, used=0.71, scrub_rate=9.0e9)
    pool = pool._replace(spares=(100,))
    fans = tuple(
        FanSpec(f"fan-{i + 1}", "drives", rng.randint(5300, 5500), 40.0, (8.5, 1.75 + 3.5 * i), 3.5)
        for i in range(4)
    )
    return Plan(
        host="archive-102",
        preset="top-102",
        drives=drives,
        fans=fans,
        sensors=(
            SensorSpec("Inlet", 0.5),
            SensorSpec("Outlet", 15.0, busy=2.0),
            SensorSpec("CPU package", 30.0, busy=8.0),
        ),
        pools=(pool,),
        bindings=serial_bindings(drives),
        empty_bays=frozenset({101}),
        ambient=21.0,
        ambient_phase=room_phase(rng),
    )
