"""The named scenarios: a box from `nastui.sim.boxes` and what happens to it.

`SCENARIOS` maps each name to a `Scenario`; `Scenario.plan(seed)` resolves it for one seed.
All events are timed relative to `SIM_EPOCH` (t0), the moment a default `FakeClock` starts at.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import NamedTuple

from nastui.model import ScanKind, SelfTest
from nastui.sim.boxes import (
    Slot,
    archive_box,
    bay_numbered,
    finished_scrub,
    homelab_box,
    nano_box,
    new_drive,
    serial_bindings,
)
from nastui.sim.clock import SIM_EPOCH
from nastui.sim.grid import rng_for
from nastui.sim.plan import DeadFan, Plan, PoolPlan, Replacement, ScanPlan, SleepPlan
from nastui.sim.profiles import profile

DEFAULT_SCENARIO = "healthy-24-bay"

FAILING_BAY = 10
"""The failing drive's bay: row 2, column 2 of the RV-4324 (sdp)."""

REPLACED_POSITION = 0
"""Which leaf of raidz3-0 is being replaced (the pool was created from sda..sdx, so sda)."""


class Scenario(NamedTuple):
    """A named simulated situation.

    Attributes:
        name: the scenario's name ("healthy-24-bay").
        description: one line on what it shows.
        preset: the chassis preset it runs on.
        build: makes the plan from a seeded generator.
    """

    name: str
    description: str
    preset: str
    build: Callable[[random.Random], Plan]

    def plan(self, seed: int) -> Plan:
        """The scenario resolved for `seed`."""
        return self.build(rng_for(seed, self.name, "plan"))


class UnknownScenario(ValueError):
    """A scenario name that does not exist; the message lists the ones that do."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f'unknown scenario "{name}"; choose one of: {", ".join(SCENARIOS)}')


def _with_pool(plan: Plan, pool: PoolPlan) -> Plan:
    """`plan` with its pool of the same name swapped for `pool`."""
    return plan._replace(pools=tuple(pool if p.name == pool.name else p for p in plan.pools))


def _run_scan(kind: ScanKind, total: int, rate: float, done: float, rng: random.Random) -> ScanPlan:
    """A scan of `total` bytes at about `rate` bytes/s that is `done` (0..1) through at t0."""
    duration = total / rate * rng.uniform(0.97, 1.03)
    return ScanPlan(kind, SIM_EPOCH - done * duration, duration, total)


def scrubbing(rng: random.Random) -> Plan:
    """The monthly scrub, started about three hours before t0, 40 % through."""
    plan = nano_box(rng)
    pool = plan.pools[0]
    total = pool.allocated_bytes or 0
    return _with_pool(
        plan,
        pool._replace(
            last_scrub=finished_scrub(ScanKind.SCRUB, total, 1.1e9, 29, rng),
            scan=_run_scan(ScanKind.SCRUB, total, 1.1e9, 0.40, rng),
        ),
    )


def resilvering(rng: random.Random) -> Plan:
    """sda was swapped for a new HUS726040ALE614 (now sdy), which resilvers."""
    plan = nano_box(rng)
    pool = plan.pools[0]
    index = pool.groups[0].members[REPLACED_POSITION]
    old = plan.drives[index]
    new = new_drive(
        profile("hgst-hus726040ale614"),
        Slot("sdy", bay_numbered(plan.preset, old.bay), old.by_path),
        rng,
        hours=rng.randint(8, 40),
        rise=old.rise,
    )
    drives = tuple(new if i == index else d for i, d in enumerate(plan.drives))
    swap = Replacement(
        pool.name, 0, REPLACED_POSITION, old.by_id[0], str(rng.randrange(10**18, 10**19)), index
    )
    total = pool.allocated_bytes or 0
    plan = plan._replace(drives=drives, bindings=serial_bindings(drives), replacement=swap)
    return _with_pool(
        plan, pool._replace(scan=_run_scan(ScanKind.RESILVER, total, 8.0e8, 0.88, rng))
    )


def failing_drive(rng: random.Random) -> Plan:
    """The drive in bay 10 grows bad sectors; its last extended self-test hit a read failure."""
    plan = nano_box(rng)
    index = plan.index_in_bay(FAILING_BAY)
    drive = plan.drives[index]
    lba = rng.randrange(drive.profile.capacity_bytes // 512)
    failed = SelfTest(
        "Extended offline", "Completed: read failure", False, drive.hours - 2, 90, lba
    )
    drives = tuple(
        d._replace(self_tests=(failed, *d.self_tests)) if i == index else d
        for i, d in enumerate(plan.drives)
    )
    pool = plan.pools[0]
    last = pool.last_scrub and pool.last_scrub._replace(repaired_bytes=1_572_864)
    return _with_pool(plan._replace(drives=drives, failing=index), pool._replace(last_scrub=last))


def hot_bay(rng: random.Random) -> Plan:
    """Fan-wall fan 2 (behind the top middle bays) died 20 minutes before t0."""
    return nano_box(rng)._replace(dead_fan=DeadFan("fan-wall-2", SIM_EPOCH - 1200))


def sleeping(rng: random.Random) -> Plan:
    """Every drive but one spun down 40-45 minutes before t0; another wakes 10-25 minutes in."""
    plan = nano_box(rng)
    count = len(plan.drives)
    awake, waking = rng.sample(range(count), 2)
    down = [SIM_EPOCH - 2400 - rng.uniform(0, 300) for _ in range(count)]
    wake_at = SIM_EPOCH + rng.uniform(600, 1500)
    sleep = SleepPlan(
        tuple(None if i == awake else d for i, d in enumerate(down)),
        tuple(wake_at if i == waking else None for i in range(count)),
    )
    return plan._replace(sleep=sleep)


_RV = "rv-4324"

SCENARIOS: Mapping[str, Scenario] = {
    s.name: s
    for s in (
        Scenario(
            "healthy-24-bay",
            "The source NAS on a quiet night: 24 x HGST 4 TB in one raidz3 pool, all ONLINE.",
            _RV,
            nano_box,
        ),
        Scenario(
            "scrubbing",
            "Monthly scrub of the 24-bay raidz3 pool, 40 % done at about 1.1 GB/s, drives busy.",
            _RV,
            scrubbing,
        ),
        Scenario(
            "resilvering",
            "A replaced drive resilvers in bay 20: pool DEGRADED, ONLINE again in about 80 min.",
            _RV,
            resilvering,
        ),
        Scenario(
            "failing-drive",
            "Bay 10's drive grows pending and reallocated sectors and failed its self-test.",
            _RV,
            failing_drive,
        ),
        Scenario(
            "hot-bay",
            "Fan-wall fan 2 is dead: the top middle bays pass 45 °C and climb towards 52 °C.",
            _RV,
            hot_bay,
        ),
        Scenario(
            "sleeping",
            "Drives spun down 40 min ago with stale temperatures; one of them wakes up soon.",
            _RV,
            sleeping,
        ),
        Scenario(
            "mixed",
            "A 2U with ZFS raidz2, mdraid RAID1 SSDs and btrfs RAID1 NVMe; one drive missing.",
            "2u-12",
            homelab_box,
        ),
        Scenario(
            "datacenter-102",
            "102-bay top-loader: 100 x 18 TB in 10 raidz2 vdevs plus a spare, warmer at the rear.",
            "top-102",
            archive_box,
        ),
    )
}
"""Every scenario by name, in the order menus list them."""


def get_scenario(name: str) -> Scenario:
    """The scenario called `name`.

    Raises:
        UnknownScenario: there is none by that name.
    """
    try:
        return SCENARIOS[name]
    except KeyError:
        raise UnknownScenario(name) from None
