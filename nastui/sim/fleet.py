"""`SimFleet`: simulated remote hosts behind the real `FleetSource` seam, for the demo, the tests
and the screenshots.

Every scenario has a small fleet: "backup-nas" (Synology-like: 8 drives with temperatures and the
vendor's disk status, one RAID volume), "archive" (TrueNAS-like: two zpools), "ups-rack" (an APC
UPS) and "offsite" (a QNAP that stopped answering three hours before t0). What happens to them
follows the scenario: the archive's "cold" mirror is DEGRADED in "failing-drive", its "tank"
scrubs in "scrubbing", the UPS runs on battery in "hot-bay" (the room's air conditioning lost
power with it), and "datacenter-102" adds a rack of storage nodes and two more UPSes.

Like `SimBackend`, the hosts at a given clock time depend only on (scenario, seed, time):
temperatures wander on a 30-second grid, UPS charge and runtime follow the minutes on battery.
Snapshots are assessed with `nastui.core.assess.assess` and default thresholds, so their alerts
and roll-ups are the real ones.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from nastui.core.assess import assess
from nastui.core.clock import Clock
from nastui.model import (
    Drive,
    DriveIdentity,
    FleetHost,
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
    Thresholds,
    Ups,
    UpsStatus,
    Vdev,
)
from nastui.sim.clock import SIM_EPOCH, FakeClock
from nastui.sim.grid import DAY_S, TEMP_S, rng_for
from nastui.sim.profiles import make_serial, profile
from nastui.sim.scenarios import DEFAULT_SCENARIO, get_scenario

OFFSITE_SILENT_S = 3 * 3600 + 7 * 60
"""How long before t0 "offsite" last answered."""

FLEET_PERIOD_S = 60
FLEET_PHASE_S = 12
"""The simulated fleet is polled every minute, the last time 12 s before t0: a poll returns the
hosts as that poll found them."""

Build = Callable[["_Ctx"], HostSnapshot]


@dataclass(frozen=True, slots=True)
class _Ctx:
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
def _temperature(ctx: _Ctx, index: int, base: float) -> float:
    """A whole-degree reading that drifts over the hour and jitters every 30 s."""
    step = math.floor((ctx.t - SIM_EPOCH) / TEMP_S)
    phase = ctx.rng_key("phase", index) * math.pi
    drift = 1.5 * math.sin(2 * math.pi * (ctx.t - SIM_EPOCH) / 3600 + phase)
    return float(round(base + drift + 0.6 * ctx.rng_key("temp", index, step)))


def _drives(
    ctx: _Ctx,
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


def _finished_scrub(total: int, days_ago: float, hours: float) -> ScanProgress:
    ended = SIM_EPOCH - days_ago * DAY_S
    return ScanProgress(
        ScanKind.SCRUB, ScanState.FINISHED, ended - hours * 3600, ended, total, total, errors=0
    )


def _running_scrub(ctx: _Ctx, total: int, started: float, rate: float) -> ScanProgress:
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
def _backup_nas(ctx: _Ctx) -> HostSnapshot:
    """Synology-like: 8 x WD Red 4 TB in one RAID 6 volume (md under the hood)."""
    drives = _drives(ctx, [f"disk{i}" for i in range(1, 9)], "wdc-wd40efrx-68wt0n0", 34.0)
    total = 6 * drives[0].identity.capacity_bytes if drives[0].identity.capacity_bytes else None
    volume = Pool(
        "volume1",
        PoolKind.MDRAID,
        PoolState.ONLINE,
        Vdev("volume1", "root", PoolState.ONLINE, children=(_vdev("raid6", "raid6", drives),)),
        size_bytes=total,
        allocated_bytes=int(total * 0.62) if total else None,
    )
    return HostSnapshot(ctx.host, ctx.t, drives=drives, pools=(volume,), source="snmp:synology")


def _archive(ctx: _Ctx) -> HostSnapshot:
    """TrueNAS-like: "tank" (raidz2 of 6 x 18 TB) and "cold" (a mirror of 2 x 4 TB)."""
    big = _drives(ctx, [f"sd{c}" for c in "abcdef"], "wdc-wuh721818ale6l4", 36.0)
    small = _drives(ctx, ["sdg", "sdh"], "wdc-wd40efrx-68wt0n0", 31.0)
    tank_size = 4 * (big[0].identity.capacity_bytes or 0)
    scan = None
    if ctx.scenario == "scrubbing":
        scan = _running_scrub(ctx, int(tank_size * 0.55), SIM_EPOCH - 4 * 3600, 9.0e8)
    tank = Pool(
        "tank",
        PoolKind.ZFS,
        PoolState.ONLINE,
        Vdev("tank", "root", PoolState.ONLINE, children=(_vdev("raidz2-0", "raidz2", big),)),
        size_bytes=tank_size,
        allocated_bytes=int(tank_size * 0.55),
        scan=scan,
        last_scrub=_finished_scrub(int(tank_size * 0.55), 17, 9.5),
    )
    faulted = ctx.scenario == "failing-drive"
    leaf = Vdev(
        "sdh", "disk", PoolState.FAULTED, 3, 112, 0, drive=small[1].key, note="too many errors"
    )
    mirror = _vdev("mirror-0", "mirror", small, {"sdh": leaf} if faulted else None)
    state = PoolState.DEGRADED if faulted else PoolState.ONLINE
    cold_size = small[0].identity.capacity_bytes or 0
    cold = Pool(
        "cold",
        PoolKind.ZFS,
        state,
        Vdev("cold", "root", state, children=(mirror,)),
        size_bytes=cold_size,
        allocated_bytes=int(cold_size * 0.81),
        last_scrub=_finished_scrub(int(cold_size * 0.81), 3, 6.0),
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


def _ups(ctx: _Ctx, *, on_battery_since: float | None, model: str, full_runtime_s: float) -> Ups:
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


def _ups_rack(ctx: _Ctx) -> HostSnapshot:
    """An APC Smart-UPS; on battery since 10 minutes before t0 in "hot-bay"."""
    since = SIM_EPOCH - 600 if ctx.scenario == "hot-bay" else None
    ups = _ups(ctx, on_battery_since=since, model="APC Smart-UPS 1500", full_runtime_s=42 * 60)
    return HostSnapshot(ctx.host, ctx.t, ups=(ups,), source="snmp:apc")


def _offsite(ctx: _Ctx) -> HostSnapshot:
    """QNAP-like, 4 bays: what it said before it fell silent."""
    drives = _drives(ctx, [f"disk{i}" for i in range(1, 5)], "wdc-wd40efrx-68wt0n0", 33.0)
    size = 3 * (drives[0].identity.capacity_bytes or 0)
    pool = Pool(
        "DataVol1",
        PoolKind.MDRAID,
        PoolState.ONLINE,
        Vdev("DataVol1", "root", PoolState.ONLINE, children=(_vdev("raid5", "raid5", drives),)),
        size_bytes=size,
    )
    return HostSnapshot(ctx.host, ctx.t, drives=drives, pools=(pool,), source="snmp:qnap")


def _node(index: int) -> Build:
    """A storage node of the datacenter rack: 12 x 18 TB in a raidz2; node 5 runs hot."""

    def build(ctx: _Ctx) -> HostSnapshot:
        hot = {"sdc": 12.0, "sdd": 10.0} if index == 5 else {}
        drives = _drives(
            ctx, [f"sd{chr(97 + i)}" for i in range(12)], "wdc-wuh721818ale6l4", 35.0, hot=hot
        )
        size = 10 * (drives[0].identity.capacity_bytes or 0)
        pool = Pool(
            f"node{index:02d}",
            PoolKind.ZFS,
            PoolState.ONLINE,
            Vdev(
                f"node{index:02d}",
                "root",
                PoolState.ONLINE,
                children=(_vdev("raidz2-0", "raidz2", drives),),
            ),
            size_bytes=size,
            allocated_bytes=int(size * (0.4 + 0.05 * index)),
            last_scrub=_finished_scrub(int(size * 0.5), 2 + index, 14.0),
        )
        return HostSnapshot(ctx.host, ctx.t, drives=drives, pools=(pool,), source="snmp:truenas")

    return build


def _rack_ups(ctx: _Ctx) -> HostSnapshot:
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
    return _datacenter_hosts() if scenario == "datacenter-102" else BASE_HOSTS


def silent_error(host: SimHost) -> str:
    """The poll error of a v2c host that does not answer (2 s timeout, 1 retry), in the words
    of `nastui.collectors.snmp_target.timeout_message`."""
    return (
        f"no answer from {host.address} within 2 s (1 retry): "
        "host down, wrong port or community, or a firewall"
    )


class SimFleet:
    """A seeded, deterministic simulated fleet (implements `nastui.collectors.base.FleetSource`)."""

    def __init__(
        self,
        scenario: str = DEFAULT_SCENARIO,
        *,
        seed: int = 0,
        clock: Clock | None = None,
        limits: Thresholds | None = None,
    ) -> None:
        """Set up the scenario's fleet.

        Args:
            scenario: a name from `nastui.sim.SCENARIOS`.
            seed: varies serial numbers and readings; same seed, same fleet.
            clock: where time comes from; a `FakeClock` at `SIM_EPOCH` by default.
            limits: thresholds the snapshots are assessed with (defaults if None).

        Raises:
            UnknownScenario: no scenario has that name.
        """
        self._scenario = get_scenario(scenario).name
        self._seed = seed
        self._clock: Clock = clock if clock is not None else FakeClock()
        self._limits = limits or Thresholds()
        self._hosts = fleet_for(self._scenario)
        self.polls = 0
        self.closed = False

    @property
    def hosts(self) -> tuple[SimHost, ...]:
        """The simulated hosts, in configured order."""
        return self._hosts

    def hosts_at(self, t: float) -> tuple[FleetHost, ...]:
        """Every host as the last simulated poll before time `t` found it."""
        return tuple(self._host_at(host, t) for host in self._hosts)

    async def poll(self) -> tuple[FleetHost, ...]:
        """The `FleetSource` protocol's poll: every host at `clock.now()`."""
        self.polls += 1
        return self.hosts_at(self._clock.now())

    def close(self) -> None:
        """Nothing to release; recorded for tests."""
        self.closed = True

    def _snapshot(self, host: SimHost, t: float) -> HostSnapshot:
        raw = host.build(_Ctx(self._seed, self._scenario, host.name, t))
        return assess(raw, self._limits, t)

    def _host_at(self, host: SimHost, now: float) -> FleetHost:
        t = now - (now - SIM_EPOCH + FLEET_PHASE_S) % FLEET_PERIOD_S
        silent = host.silent_since
        answered = silent is None or t < silent
        contact = t if answered else silent
        if contact is None:
            return FleetHost(host.name, host.address, host.profile, polled_at=t)
        return FleetHost(
            host.name,
            host.address,
            host.profile,
            snapshot=self._snapshot(host, contact),
            polled_at=t,
            last_contact=contact,
            error=None if answered else silent_error(host),
            description=host.description,
        )
