"""The simulated fleet: deterministic hosts per scenario behind the `FleetSource` seam."""

from __future__ import annotations

import pytest

from nastui.collectors.base import FleetSource
from nastui.core.fleetview import fleet_rows
from nastui.model import UNASSESSED, Health, PoolState, ScanState, UpsStatus
from nastui.sim import SCENARIOS, UnknownScenario
from nastui.sim.clock import SIM_EPOCH, FakeClock
from nastui.sim.fleet import FLEET_PHASE_S, SimFleet
from nastui.sim.fleet_hosts import ALL_ANSWER, OFFSITE_SILENT_S

BASE = ["backup-nas", "archive", "ups-rack", "offsite"]


async def test_implements_fleet_source_and_polls_at_the_clock() -> None:
    clock = FakeClock()
    fleet = SimFleet(clock=clock)
    source: FleetSource = fleet
    first = await source.poll()
    assert [h.name for h in first] == BASE
    assert first == fleet.hosts_at(SIM_EPOCH)
    clock.advance(60)
    assert await source.poll() == fleet.hosts_at(SIM_EPOCH + 60)
    assert fleet.polls == 2
    source.close()
    assert fleet.closed


def test_unknown_scenario_is_refused() -> None:
    with pytest.raises(UnknownScenario):
        SimFleet("nope")


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_every_scenario_has_a_fleet_whose_drives_are_assessed(scenario: str) -> None:
    hosts = SimFleet(scenario).hosts_at(SIM_EPOCH)
    assert [h.name for h in hosts][:4] == BASE
    for host in hosts:
        assert host.snapshot is not None
        assert host.polled_at == SIM_EPOCH - FLEET_PHASE_S
        assert all(d.verdict is not UNASSESSED for d in host.snapshot.drives)
        assert all(d.temperature is not None for d in host.snapshot.drives)
        assert host.snapshot.source.startswith("snmp:")


def test_same_seed_same_fleet_other_seed_other_serials() -> None:
    one = SimFleet("failing-drive", seed=3).hosts_at(SIM_EPOCH + 123)
    assert one == SimFleet("failing-drive", seed=3).hosts_at(SIM_EPOCH + 123)
    other = SimFleet("failing-drive", seed=4).hosts_at(SIM_EPOCH + 123)
    serials = [d.identity.serial for h in one for d in (h.snapshot.drives if h.snapshot else ())]
    others = [d.identity.serial for h in other for d in (h.snapshot.drives if h.snapshot else ())]
    assert serials != others


def test_the_healthy_scenarios_fleet_is_all_ok() -> None:
    # What `nastui --demo` shows a new user first, and the README's first pictures: no
    # "fleet CRIT" badge beside a healthy box.
    hosts = SimFleet().hosts_at(SIM_EPOCH)
    rows = {r.name: r for r in fleet_rows(hosts, SIM_EPOCH)}
    assert {n: r.health for n, r in rows.items()} == dict.fromkeys(
        ("backup-nas", "archive", "ups-rack", "offsite"), Health.OK
    )
    assert all(h.error is None for h in hosts)
    assert {r.contact for r in rows.values()} == {"<1 min ago"}  # by the minute: fewer redraws
    assert rows["ups-rack"].ups.startswith("online 100%")


@pytest.mark.parametrize("scenario", sorted(set(SCENARIOS) - ALL_ANSWER))
def test_offsite_stopped_answering_where_the_scenario_shows_problems(scenario: str) -> None:
    hosts = SimFleet(scenario).hosts_at(SIM_EPOCH)
    rows = {r.name: r for r in fleet_rows(hosts, SIM_EPOCH)}
    assert rows["offsite"].health is Health.CRITICAL
    offsite = {h.name: h for h in hosts}["offsite"]
    assert offsite.last_contact == SIM_EPOCH - OFFSITE_SILENT_S
    assert offsite.error is not None
    assert "no answer from 192.0.2.40:161 within 2 s" in offsite.error
    assert offsite.snapshot is not None and offsite.snapshot.taken_at == offsite.last_contact
    assert rows["offsite"].contact == "3 h ago"
    assert rows["backup-nas"].contact == "<1 min ago"


def test_backup_nas_is_synology_like_with_eight_drives_and_one_volume() -> None:
    nas = {h.name: h for h in SimFleet().hosts_at(SIM_EPOCH)}["backup-nas"]
    assert nas.profile == "synology"
    assert nas.snapshot is not None
    assert [d.dev for d in nas.snapshot.drives] == [f"disk{i}" for i in range(1, 9)]
    assert [p.name for p in nas.snapshot.pools] == ["volume1"]
    members = set(nas.snapshot.pools[0].member_drives())
    assert members == {d.key for d in nas.snapshot.drives}


def test_failing_drive_degrades_the_archive_cold_pool() -> None:
    archive = {h.name: h for h in SimFleet("failing-drive").hosts_at(SIM_EPOCH)}["archive"]
    assert archive.snapshot is not None
    states = {p.name: p.state for p in archive.snapshot.pools}
    assert states == {"tank": PoolState.ONLINE, "cold": PoolState.DEGRADED}
    messages = [a.message for a in archive.snapshot.alerts]
    assert "pool DEGRADED" in messages
    assert fleet_rows([archive], SIM_EPOCH)[0].health is Health.WARNING


def test_scrubbing_runs_a_scrub_on_tank_that_advances() -> None:
    fleet = SimFleet("scrubbing")

    def done(t: float) -> int:
        archive = {h.name: h for h in fleet.hosts_at(t)}["archive"]
        assert archive.snapshot is not None
        scan = archive.snapshot.pools[0].scan
        assert scan is not None and scan.state is ScanState.RUNNING
        return scan.bytes_done or 0

    assert done(SIM_EPOCH + 600) > done(SIM_EPOCH)


def test_hot_bay_puts_the_ups_on_battery_and_it_drains() -> None:
    fleet = SimFleet("hot-bay")

    def ups_at(t: float) -> tuple[UpsStatus, float]:
        rack = {h.name: h for h in fleet.hosts_at(t)}["ups-rack"]
        assert rack.snapshot is not None
        ups = rack.snapshot.ups[0]
        assert ups.charge_percent is not None
        return ups.status, ups.charge_percent

    status, charge = ups_at(SIM_EPOCH)
    assert status is UpsStatus.ON_BATTERY
    assert 50 < charge < 80
    later_status, later = ups_at(SIM_EPOCH + 1200)
    assert later < charge
    assert later_status is UpsStatus.BATTERY_LOW


def test_temperatures_move_a_little_over_time() -> None:
    fleet = SimFleet()

    def temps(t: float) -> list[float]:
        nas = {h.name: h for h in fleet.hosts_at(t)}["backup-nas"]
        assert nas.snapshot is not None
        return [d.temperature.celsius for d in nas.snapshot.drives if d.temperature]

    now, later = temps(SIM_EPOCH), temps(SIM_EPOCH + 1800)
    assert now != later
    assert all(abs(a - b) <= 5 for a, b in zip(now, later, strict=True))
    assert all(25 <= t <= 45 for t in now)


def test_datacenter_has_a_rack_of_hosts_one_running_hot() -> None:
    hosts = SimFleet("datacenter-102").hosts_at(SIM_EPOCH)
    assert len(hosts) >= 10
    rows = {r.name: r for r in fleet_rows(hosts, SIM_EPOCH)}
    assert rows["store-05"].health is Health.WARNING
    assert "temperature" in rows["store-05"].problem
    assert rows["ups-a"].ups.startswith("online")
