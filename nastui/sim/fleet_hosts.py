"""The simulated fleet's hosts: who they are and what each reports at a moment.

Every scenario has a small fleet: "backup-nas" (Synology-like: 8 drives with temperatures and the
vendor's disk status, one RAID volume), "archive" (TrueNAS-like: two zpools), "ups-rack" (an APC
UPS) and "offsite" (a QNAP that stopped answering three hours before t0). What happens to them
follows the scenario: in "healthy-24-bay" (the demo's default, the first thing a new user sees)
the whole fleet is well, "offsite" answering too; the archive's "cold" mirror is DEGRADED in
"failing-drive", its "tank" scrubs in "scrubbing", the UPS runs on battery in "hot-bay" (the
room's air conditioning lost power with it), and "datacenter-102" adds a rack of storage nodes
and two more UPSes.

A host's raw snapshot depends only on (scenario, seed, host, time): temperatures wander on a
30-second grid, UPS charge and runtime follow the minutes on battery. `nastui.sim.fleet` polls
them.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass

from nastui.model import (
    Drive,
    DriveIdentity,
    HostSnapshot,
    Pool,
    PoolKind,
    PoolState,
    PowerState,
    ScanKind,
    ScanProgress,
    ScanState,
    Temperature,
    TempSource,
    Ups,
    UpsStatus,
    Vdev,
)
from nastui.sim.clock import SIM_EPOCH
from nastui.sim.grid import DAY_S, TEMP_S, rng_for
from nastui.sim.profiles import make_serial, profile

OFFSITE_SILENT_S = 3 * 3600 + 7 * 60
"""How long before t0 "offsite" last answered (where it is silent: not in `ALL_ANSWER`)."""
ALL_ANSWER = frozenset({"healthy-24-bay"})
"""The scenarios whose whole fleet answers: the healthy box's fleet is healthy too."""

Build = Callable[["HostContext"], HostSnapshot]


@dataclass(frozen=True, slots=True)
class HostContext:
    """What a host builder needs: the run's identity, the host and the time."""

    seed: int
    scenario: str
    host: str
    t: float

    def rng_key(self, *keys: object) -> float:
        """A uniform draw in [-1, 1) for `keys` at this host (stable across polls)."""
        return rng_for(self.seed, self.scenario, "fleet", self.host, *keys).uniform(-1.0, 1.0)


@dataclass(frozen=True, slots=True)
class SimHost:
    """One simulated remote host.

    Attributes:
        name: the name it would have in `[[host]]`.
        address: "address:port".
        profile: the SNMP profile it would be read with.
        description: its sysDescr.
        build: makes its raw snapshot at a moment.
        silent_since: Unix time it stopped answering; None while it answers.
    """

    name: str
    address: str
    profile: str
    description: str
    build: Build
    silent_since: float | None = None


# ---------------------------------------------------------------------------------- drives
def _temperature(ctx: HostContext, index: int, base: float) -> float:
    """A whole-degree reading that drifts over the hour and jitters every 30 s."""
    step = math.floor((ctx.t - SIM_EPOCH) / TEMP_S)
    phase = ctx.rng_key("phase", index) * math.pi
    drift = 1.5 * math.sin(2 * math.pi * (ctx.t - SIM_EPOCH) / 3600 + phase)
    return float(round(base + drift + 0.6 * ctx.rng_key("temp", index, step)))


def _drives(
    ctx: HostContext,
    names: list[str],
    profile_key: str,
    base: float,
    *,
    hot: dict[str, float] | None = None,
) -> tuple[Drive, ...]:
    """Drives as a vendor MIB reports them: identity, temperature and overall status; `hot`
    adds degrees to some of them."""
    prof = profile(profile_key)
    drives = []
    for i, name in enumerate(names):
        serial = make_serial(prof, rng_for(ctx.seed, ctx.scenario, "fleet", ctx.host, "sn", i))
        warm = base + 2.0 * ctx.rng_key("rise", i) + (hot or {}).get(name, 0.0)
        identity = DriveIdentity(
            model=prof.model,
            serial=serial,
            firmware=prof.firmware,
            capacity_bytes=prof.capacity_bytes,
            transport=prof.transport,
            rotational=prof.rotational,
            rpm=prof.rpm,
        )
        drives.append(
            Drive(
                dev=name,
                identity=identity,
                power=PowerState.ACTIVE,
                temperature=Temperature(_temperature(ctx, i, warm), ctx.t, TempSource.SNMP),
                smart_passed=True,
                power_on_hours=prof.power_on_hours,
                smart_read_at=ctx.t,
            )
        )
    return tuple(drives)


def _vdev(
    name: str, kind: str, drives: tuple[Drive, ...], replaced: dict[str, Vdev] | None = None
) -> Vdev:
    """A group with one leaf disk per drive; `replaced` swaps in other leaves by drive name.
    The group is DEGRADED when a leaf is not ONLINE."""
    leaves = tuple(
        (replaced or {}).get(d.dev) or Vdev(d.dev, "disk", PoolState.ONLINE, 0, 0, 0, drive=d.key)
        for d in drives
    )
    online = all(leaf.state is PoolState.ONLINE for leaf in leaves)
    return Vdev(name, kind, PoolState.ONLINE if online else PoolState.DEGRADED, 0, 0, 0, leaves)


def _pool(
    name: str,
    kind: PoolKind,
    group: Vdev,
    size: int | None,
    used: int | None = None,
    *,
    last_scrub: ScanProgress | None = None,
    scan: ScanProgress | None = None,
    status_text: str | None = None,
) -> Pool:
    """A pool of one vdev group under its root, in the group's state."""
    root = Vdev(name, "root", group.state, children=(group,))
    return Pool(
        name,
        kind,
        group.state,
        root,
        size_bytes=size,
        allocated_bytes=used,
        scan=scan,
        last_scrub=last_scrub,
        status_text=status_text,
    )


def _finished_scrub(total: int, days_ago: float, hours: float) -> ScanProgress:
    ended = SIM_EPOCH - days_ago * DAY_S
    return ScanProgress(
        ScanKind.SCRUB, ScanState.FINISHED, ended - hours * 3600, ended, total, total, errors=0
    )


def _running_scrub(ctx: HostContext, total: int, started: float, rate: float) -> ScanProgress:
    done = min(total, int(max(0.0, ctx.t - started) * rate))
    return ScanProgress(
        ScanKind.SCRUB,
        ScanState.RUNNING,
        started,
        bytes_done=done,
        bytes_total=total,
        rate_bytes_per_s=rate,
        eta_seconds=(total - done) / rate,
        errors=0,
        repaired_bytes=0,
    )


# ---------------------------------------------------------------------------------- hosts
def _backup_nas(ctx: HostContext) -> HostSnapshot:
    """Synology-like: 8 x WD Red 4 TB in one RAID 6 volume (md under the hood)."""
    drives = _drives(ctx, [f"disk{i}" for i in range(1, 9)], "wdc-wd40efrx-68wt0n0", 34.0)
    total = 6 * drives[0].identity.capacity_bytes if drives[0].identity.capacity_bytes else None
    raid6 = _vdev("raid6", "raid6", drives)
    used = int(total * 0.62) if total else None
    volume = _pool("volume1", PoolKind.MDRAID, raid6, total, used)
    return HostSnapshot(ctx.host, ctx.t, drives=drives, pools=(volume,), source="snmp:synology")


def _archive(ctx: HostContext) -> HostSnapshot:
    """TrueNAS-like: "tank" (raidz2 of 6 x 18 TB) and "cold" (a mirror of 2 x 4 TB)."""
    big = _drives(ctx, [f"sd{c}" for c in "abcdef"], "wdc-wuh721818ale6l4", 36.0)
    small = _drives(ctx, ["sdg", "sdh"], "wdc-wd40efrx-68wt0n0", 31.0)
    tank_size = 4 * (big[0].identity.capacity_bytes or 0)
    scan = None
    if ctx.scenario == "scrubbing":
        scan = _running_scrub(ctx, int(tank_size * 0.55), SIM_EPOCH - 4 * 3600, 9.0e8)
    tank_used = int(tank_size * 0.55)
    tank = _pool(
        "tank",
        PoolKind.ZFS,
        _vdev("raidz2-0", "raidz2", big),
        tank_size,
        tank_used,
        scan=scan,
        last_scrub=_finished_scrub(tank_used, 17, 9.5),
    )
    faulted = ctx.scenario == "failing-drive"
    leaf = Vdev(
        "sdh", "disk", PoolState.FAULTED, 3, 112, 0, drive=small[1].key, note="too many errors"
    )
    mirror = _vdev("mirror-0", "mirror", small, {"sdh": leaf} if faulted else None)
    cold_size = small[0].identity.capacity_bytes or 0
    cold_used = int(cold_size * 0.78)  # under the default 80 % capacity warning
    cold = _pool(
        "cold",
        PoolKind.ZFS,
        mirror,  # DEGRADED with the faulted leaf
        cold_size,
        cold_used,
        last_scrub=_finished_scrub(cold_used, 3, 6.0),
        status_text=(
            "One or more devices are faulted in response to persistent errors. "
            "Replace the faulted device, or use 'zpool clear' to mark it repaired."
            if faulted
            else None
        ),
    )
    return HostSnapshot(
        ctx.host, ctx.t, drives=big + small, pools=(tank, cold), source="snmp:truenas"
    )


def _ups(
    ctx: HostContext, *, on_battery_since: float | None, model: str, full_runtime_s: float
) -> Ups:
    load = 31.0 + 2.0 * ctx.rng_key("load", math.floor((ctx.t - SIM_EPOCH) / TEMP_S))
    if on_battery_since is None or ctx.t < on_battery_since:
        return Ups(
            ctx.host,
            UpsStatus.ONLINE,
            model,
            charge_percent=100.0,
            runtime_s=round(full_runtime_s * 31.0 / load / 60) * 60,
            load_percent=round(load),
            input_voltage=float(round(230 + 2 * ctx.rng_key("volt", math.floor(ctx.t / 60)))),
        )
    elapsed = ctx.t - on_battery_since
    charge = max(0.0, 100.0 - elapsed / full_runtime_s * 100 * 1.35)
    status = UpsStatus.BATTERY_LOW if charge < 20 else UpsStatus.ON_BATTERY
    return Ups(
        ctx.host,
        status,
        model,
        charge_percent=round(charge),
        runtime_s=round(full_runtime_s * charge / 100 * 31.0 / load / 60) * 60,
        on_battery_s=elapsed,
        load_percent=round(load),
        input_voltage=0.0,
    )


def _ups_rack(ctx: HostContext) -> HostSnapshot:
    """An APC Smart-UPS; on battery since 10 minutes before t0 in "hot-bay"."""
    since = SIM_EPOCH - 600 if ctx.scenario == "hot-bay" else None
    ups = _ups(ctx, on_battery_since=since, model="APC Smart-UPS 1500", full_runtime_s=42 * 60)
    return HostSnapshot(ctx.host, ctx.t, ups=(ups,), source="snmp:apc")


def _offsite(ctx: HostContext) -> HostSnapshot:
    """QNAP-like, 4 bays: what it said before it fell silent."""
    drives = _drives(ctx, [f"disk{i}" for i in range(1, 5)], "wdc-wd40efrx-68wt0n0", 33.0)
    size = 3 * (drives[0].identity.capacity_bytes or 0)
    pool = _pool("DataVol1", PoolKind.MDRAID, _vdev("raid5", "raid5", drives), size)
    return HostSnapshot(ctx.host, ctx.t, drives=drives, pools=(pool,), source="snmp:qnap")


def _node(index: int) -> Build:
    """A storage node of the datacenter rack: 12 x 18 TB in a raidz2; node 5 runs hot."""

    def build(ctx: HostContext) -> HostSnapshot:
        hot = {"sdc": 17.0, "sdd": 15.0} if index == 5 else {}  # past an HDD's 50 °C warning
        drives = _drives(
            ctx, [f"sd{chr(97 + i)}" for i in range(12)], "wdc-wuh721818ale6l4", 35.0, hot=hot
        )
        size = 10 * (drives[0].identity.capacity_bytes or 0)
        pool = _pool(
            f"node{index:02d}",
            PoolKind.ZFS,
            _vdev("raidz2-0", "raidz2", drives),
            size,
            int(size * (0.4 + 0.05 * index)),
            last_scrub=_finished_scrub(int(size * 0.5), 2 + index, 14.0),
        )
        return HostSnapshot(ctx.host, ctx.t, drives=drives, pools=(pool,), source="snmp:truenas")

    return build


def _rack_ups(ctx: HostContext) -> HostSnapshot:
    ups = _ups(ctx, on_battery_since=None, model="APC Smart-UPS SRT 5000", full_runtime_s=18 * 60)
    return HostSnapshot(ctx.host, ctx.t, ups=(ups,), source="snmp:apc")


BASE_HOSTS = (
    SimHost(
        "backup-nas",
        "192.0.2.20:161",
        "synology",
        "Linux backup-nas 4.4.302+ #72806 SMP x86_64 (Synology DS1821+)",
        _backup_nas,
    ),
    SimHost(
        "archive",
        "192.0.2.30:161",
        "truenas",
        "TrueNAS-SCALE-24.04.2. Hardware: x86_64 AMD EPYC 7302P",
        _archive,
    ),
    SimHost(
        "ups-rack",
        "192.0.2.50:161",
        "apc",
        "APC Web/SNMP Management Card (MB:v4.1.0 PF:v7.0.4 AOS)",
        _ups_rack,
    ),
    SimHost(
        "offsite",
        "192.0.2.40:161",
        "qnap",
        "Linux offsite 5.10.60-qnap x86_64",
        _offsite,
        silent_since=SIM_EPOCH - OFFSITE_SILENT_S,
    ),
)


def _datacenter_hosts() -> tuple[SimHost, ...]:
    nodes = tuple(
        SimHost(
            f"store-{i:02d}",
            f"10.20.0.{10 + i}:161",
            "truenas",
            f"TrueNAS-SCALE-24.04.2 store-{i:02d}",
            _node(i),
        )
        for i in range(1, 9)
    )
    upses = tuple(
        SimHost(
            f"ups-{side}",
            f"10.20.0.{n}:161",
            "apc",
            "APC Web/SNMP Management Card (MB:v4.2.1 PF:v7.1.2 AOS)",
            _rack_ups,
        )
        for side, n in (("a", 2), ("b", 3))
    )
    return BASE_HOSTS + nodes + upses


def fleet_for(scenario: str) -> tuple[SimHost, ...]:
    """The simulated hosts of a scenario, in configured order."""
    if scenario in ALL_ANSWER:
        return tuple(dataclasses.replace(host, silent_since=None) for host in BASE_HOSTS)
    return _datacenter_hosts() if scenario == "datacenter-102" else BASE_HOSTS
