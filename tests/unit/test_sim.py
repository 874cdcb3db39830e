"""The simulator's public API and what every scenario must show."""

from __future__ import annotations

import pytest

from nastui.config.presets import PRESETS
from nastui.model import (
    UNASSESSED,
    Drive,
    HostSnapshot,
    LedState,
    MappedBy,
    PowerState,
    Transport,
)
from nastui.sim import DEFAULT_SCENARIO, SCENARIOS, SimBackend, UnknownScenario
from nastui.sim.clock import SIM_EPOCH, FakeClock

ALL = sorted(SCENARIOS)


def test_default_scenario_is_the_source_nas() -> None:
    backend = SimBackend()
    assert DEFAULT_SCENARIO == "healthy-24-bay"
    assert backend.host == "nano"
    assert backend.chassis.preset == "rv-4324"
    assert backend.snapshot().taken_at == SIM_EPOCH


def test_host_can_be_overridden() -> None:
    assert SimBackend("mixed", host="lab").snapshot().host == "lab"


def test_unknown_scenario_names_the_choices() -> None:
    with pytest.raises(UnknownScenario) as caught:
        SimBackend("x")
    assert isinstance(caught.value, ValueError)
    assert str(caught.value) == 'unknown scenario "x"; choose one of: ' + ", ".join(SCENARIOS)
    assert str(caught.value).startswith(
        'unknown scenario "x"; choose one of: healthy-24-bay, scrubbing, '
    )


@pytest.mark.parametrize("name", ALL)
def test_scenario_has_name_description_and_preset(name: str) -> None:
    scenario = SCENARIOS[name]
    assert scenario.name == name
    assert scenario.description and "\n" not in scenario.description
    assert len(scenario.description) <= 100
    assert scenario.preset in PRESETS
    assert SimBackend(name).chassis.preset == scenario.preset


@pytest.mark.parametrize("name", ALL)
def test_scenario_snapshots_raw_collector_output(name: str) -> None:
    snap = SimBackend(name).snapshot()
    assert snap.source == f"sim:{name}"
    assert snap.chassis is not None
    assert len(snap.slots) == len(snap.chassis.bays)
    assert snap.drives and snap.pools and snap.fans and snap.sensors
    assert snap.alerts == () and snap.errors == ()
    assert all(d.verdict == UNASSESSED for d in snap.drives)
    assert all(f.driver == "sim" and f.controllable for f in snap.fans)
    assert len({d.key for d in snap.drives}) == len(snap.drives)


@pytest.mark.parametrize("name", ALL)
def test_every_drive_sits_in_the_bay_its_binding_names(name: str) -> None:
    backend = SimBackend(name)
    snap = backend.snapshot()
    present = {d.key for d in snap.drives}
    bound = [b for b in backend.bindings if b.serial in present]
    assert bound
    for binding in bound:
        assert binding.serial is not None
        assert snap.bay_of(binding.serial) == binding.bay
        slot = snap.slot(binding.bay)
        assert slot is not None and slot.mapped_by is MappedBy.SERIAL and slot.expected


@pytest.mark.parametrize("name", ALL)
def test_active_drives_report_fresh_whole_degree_temperatures(name: str) -> None:
    snap = SimBackend(name).snapshot()
    for drive in snap.drives:
        assert drive.temperature is not None
        assert drive.temperature.celsius == int(drive.temperature.celsius)
        if drive.power is PowerState.ACTIVE:
            assert 0 <= drive.temperature.age(snap.taken_at) < 30
            assert drive.smart_read_at is not None
            assert 0 <= snap.taken_at - drive.smart_read_at < 300


async def test_collect_is_the_snapshot() -> None:
    backend = SimBackend("scrubbing")
    assert await backend.collect() == backend.snapshot()


def test_locate_led_is_off_until_set() -> None:
    backend = SimBackend()
    slot = backend.snapshot().slot(5)
    assert slot is not None and slot.led is LedState.OFF
    assert backend.set_locate(5, True) is LedState.LOCATE
    slot = backend.snapshot().slot(5)
    assert slot is not None and slot.led is LedState.LOCATE
    assert backend.set_locate(5, False) is LedState.OFF
    slot = backend.snapshot().slot(5)
    assert slot is not None and slot.led is LedState.OFF


def test_locate_rejects_a_bay_that_does_not_exist() -> None:
    with pytest.raises(ValueError, match="no bay 24"):
        SimBackend().set_locate(24, True)


def test_mixed_has_three_pool_kinds_nvme_off_the_bays_and_a_missing_drive() -> None:
    backend = SimBackend("mixed")
    snap = backend.snapshot()
    assert {p.kind.value for p in snap.pools} == {"zfs", "mdraid", "btrfs"}
    unplaced = snap.unplaced_drives
    assert [d.identity.transport for d in unplaced] == [Transport.NVME, Transport.NVME]
    assert all(d.nvme is not None and d.nvme.power_on_hours for d in unplaced)
    missing = [s for s in snap.slots if s.expected and s.drive is None]
    assert [s.bay for s in missing] == [11]
    assert backend.empty_bays == frozenset({10})
    empty = snap.slot(10)
    assert empty is not None and empty.drive is None and not empty.expected
    ssds = [d for d in snap.drives if d.identity.rotational is False and d.nvme is None]
    assert len(ssds) == 2


def test_mixed_pools_name_their_members_as_their_tools_do() -> None:
    snap = SimBackend("mixed").snapshot()
    pools = {p.name: p for p in snap.pools}
    assert [v.name for v in pools["md0"].root.leaves] == ["sdi1", "sdj1"]
    md_check = pools["md0"].last_scrub
    assert md_check is not None and md_check.kind.value == "check"
    assert md_check.ended_at is not None and md_check.ended_at < SIM_EPOCH
    assert [v.name for v in pools["fast"].root.leaves] == ["nvme0n1", "nvme1n1"]
    tank = pools["tank"].root.children[0]
    assert tank.kind == "raidz2" and len(tank.children) == 8


def test_datacenter_has_ten_raidz2_vdevs_a_spare_and_an_empty_bay() -> None:
    backend = SimBackend("datacenter-102")
    snap = backend.snapshot()
    assert len(snap.drives) == 101
    (pool,) = snap.pools
    groups = [v for v in pool.root.children if v.kind == "raidz2"]
    assert len(groups) == 10 and all(len(g.children) == 10 for g in groups)
    (spares,) = [v for v in pool.root.children if v.kind == "spares"]
    assert [v.state.value for v in spares.children] == ["AVAIL"]
    assert len(backend.empty_bays) == 1
    assert all(s.drive is not None for s in snap.slots if s.bay not in backend.empty_bays)


def test_datacenter_runs_warmer_towards_the_rear() -> None:
    backend = SimBackend("datacenter-102")
    snap = backend.snapshot()
    rows: dict[int, list[float]] = {}
    for bay in backend.chassis.bays:
        drive = _drive_in(snap, bay.number)
        if drive is not None and drive.temperature is not None:
            rows.setdefault(bay.row, []).append(drive.temperature.celsius)
    means = [sum(v) / len(v) for _, v in sorted(rows.items())]
    assert means == sorted(means)
    assert means[-1] - means[0] > 8


def _drive_in(snap: HostSnapshot, bay: int) -> Drive | None:
    slot = snap.slot(bay)
    return snap.drive(slot.drive) if slot is not None and slot.drive else None


def test_fake_clock_is_the_default() -> None:
    backend = SimBackend()
    assert isinstance(backend.clock, FakeClock)
