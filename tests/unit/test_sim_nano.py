"""The scenarios on the source NAS (RV-4324, 24 x HGST 4 TB, raidz3 `storage`) over sim time."""

from __future__ import annotations

from nastui.model import (
    Drive,
    HostSnapshot,
    Pool,
    PoolState,
    PowerState,
    ScanKind,
    ScanProgress,
    ScanState,
)
from nastui.sim import SimBackend
from nastui.sim.clock import SIM_EPOCH, FakeClock

LSIDRIVEMAP = (
    "sdr sds sdt sdq",
    "sdu sdv sdx sdw",
    "sdi sdl sdp sdm",
    "sdj sdk sdn sdo",
    "sdb sdc sde sdf",
    "sda sdd sdh sdg",
)
TIB = 2**40
HOUR = 3600.0


def run(name: str, seed: int = 0) -> tuple[SimBackend, FakeClock]:
    clock = FakeClock()
    return SimBackend(name, seed=seed, clock=clock), clock


def in_bay(snap: HostSnapshot, bay: int) -> Drive:
    slot = snap.slot(bay)
    assert slot is not None and slot.drive is not None
    drive = snap.drive(slot.drive)
    assert drive is not None
    return drive


def celsius(drive: Drive) -> float:
    assert drive.temperature is not None
    return drive.temperature.celsius


def raw(drive: Drive, attr_id: int) -> int:
    attr = drive.attribute(attr_id)
    assert attr is not None and attr.raw is not None
    return attr.raw


def scan(pool: Pool) -> ScanProgress:
    assert pool.scan is not None
    return pool.scan


def test_healthy_is_24_hgst_drives_in_one_raidz3() -> None:
    snap = SimBackend("healthy-24-bay").snapshot()
    assert len(snap.drives) == 24
    assert {d.identity.model for d in snap.drives} == {"HGST HUS724040ALA640"}
    assert all(
        d.identity.rpm == 7200 and d.identity.capacity_bytes == 4000787030016 for d in snap.drives
    )
    (pool,) = snap.pools
    assert pool.name == "storage" and pool.state is PoolState.ONLINE
    (vdev,) = pool.root.children
    assert vdev.name == "raidz3-0" and vdev.kind == "raidz3" and len(vdev.children) == 24
    for leaf in vdev.children:
        drive = snap.drive(leaf.drive or "")
        assert (
            drive is not None
            and leaf.name == drive.by_id[0] == f"ata-HGST_HUS724040ALA640_{drive.key}"
        )


def test_healthy_device_names_follow_lsidrivemap() -> None:
    snap = SimBackend("healthy-24-bay").snapshot()
    rows = [" ".join(in_bay(snap, r * 4 + c).dev for c in range(4)) for r in range(6)]
    assert tuple(rows) == LSIDRIVEMAP


def test_healthy_temperatures_power_and_io() -> None:
    snap = SimBackend("healthy-24-bay").snapshot()
    temps = [celsius(d) for d in snap.drives]
    assert all(30 <= t <= 42 for t in temps)
    top = sum(celsius(in_bay(snap, b)) for b in range(8)) / 8
    bottom = sum(celsius(in_bay(snap, b)) for b in range(16, 24)) / 8
    assert top > bottom
    assert all(d.power is PowerState.ACTIVE for d in snap.drives)
    assert len({d.power_on_hours for d in snap.drives}) > 20
    assert all(d.io is not None and d.io.read_bytes_per_s < 5e6 for d in snap.drives)


def test_healthy_pool_space_and_last_scrub() -> None:
    (pool,) = SimBackend("healthy-24-bay").snapshot().pools
    assert pool.size_bytes is not None and 72 * TIB < pool.size_bytes < 76 * TIB
    assert pool.used_percent is not None and 30 < pool.used_percent < 70
    assert pool.fragmentation_percent is not None and 0 < pool.fragmentation_percent < 10
    last = pool.last_scrub
    assert last is not None and last.state is ScanState.FINISHED and last.errors == 0
    assert last.ended_at is not None and round((SIM_EPOCH - last.ended_at) / 86400) == 12
    assert pool.scan == last


def test_healthy_fans_and_cpu() -> None:
    snap = SimBackend("healthy-24-bay").snapshot()
    zones = [f.zone for f in snap.fans]
    assert zones.count("drives") == 3 and zones.count("exhaust") == 2
    for fan in snap.fans:
        assert fan.rpm is not None and fan.duty_percent == 45.0
        assert 1000 < fan.rpm < 1200 if fan.zone == "drives" else 1900 < fan.rpm < 2100
    cpu = [s for s in snap.sensors if s.name == "CPU package"]
    assert cpu and cpu[0].value is not None and 40 <= cpu[0].value <= 50


def test_scrub_advances_and_finishes() -> None:
    backend, clock = run("scrubbing")
    first = scan(backend.snapshot().pools[0])
    assert first.kind is ScanKind.SCRUB and first.state is ScanState.RUNNING
    assert first.percent is not None and 35 < first.percent < 45
    assert first.started_at is not None and 2.5 < (SIM_EPOCH - first.started_at) / HOUR < 4
    assert first.rate_bytes_per_s is not None and 0.8e9 < first.rate_bytes_per_s < 1.5e9
    clock.advance(HOUR)
    later = scan(backend.snapshot().pools[0])
    assert later.percent is not None and later.percent > first.percent
    assert later.eta_seconds is not None and first.eta_seconds is not None
    assert later.eta_seconds < first.eta_seconds
    clock.advance(8 * HOUR)
    pool = backend.snapshot().pools[0]
    done = scan(pool)
    assert done.state is ScanState.FINISHED and done.ended_at is not None
    assert pool.last_scrub == done


def test_scrub_keeps_the_drives_reading() -> None:
    snap = SimBackend("scrubbing").snapshot()
    assert all(d.io is not None and d.io.read_bytes_per_s > 20e6 for d in snap.drives)


def test_resilver_replaces_and_collapses() -> None:
    backend, clock = run("resilvering")
    pool = backend.snapshot().pools[0]
    assert pool.state is PoolState.DEGRADED and pool.status_text
    replacing = pool.root.children[0].children[0]
    assert replacing.name == "replacing-0" and replacing.kind == "replacing"
    old, new = replacing.children
    assert old.state is PoolState.UNAVAIL and old.drive is None
    assert old.note is not None and old.note.startswith(
        "was /dev/disk/by-id/ata-HGST_HUS724040ALA640_"
    )
    assert new.note == "(resilvering)" and new.name.startswith("ata-HGST_HUS726040ALE614_")
    running = scan(pool)
    assert running.kind is ScanKind.RESILVER and running.state is ScanState.RUNNING
    assert running.rate_bytes_per_s and running.eta_seconds
    clock.advance(HOUR / 2)
    assert (scan(backend.snapshot().pools[0]).eta_seconds or 0) < running.eta_seconds
    clock.advance(24 * HOUR)
    pool = backend.snapshot().pools[0]
    assert pool.state is PoolState.ONLINE and pool.status_text is None
    assert scan(pool).state is ScanState.FINISHED
    assert all(v.kind != "replacing" for _, v in pool.root.walk())
    assert pool.root.children[0].children[0].name == new.name


def test_failing_drive_grows_bad_sectors() -> None:
    backend, clock = run("failing-drive")
    snap = backend.snapshot()
    sick = in_bay(snap, 10)
    assert raw(sick, 197) > 0 and raw(sick, 5) > 0
    assert sick.self_tests[0].status == "Completed: read failure"
    assert sick.self_tests[0].first_error_lba is not None and not sick.self_tests[0].passed
    leaf = next(v for _, v in snap.pools[0].root.walk() if v.drive == sick.key)
    assert leaf.read_errors and leaf.read_errors > 0
    assert snap.pools[0].state is PoolState.ONLINE
    healthy = [d for d in snap.drives if d.key != sick.key]
    assert all(raw(d, 197) == 0 and raw(d, 5) == 0 for d in healthy)
    clock.advance(4 * HOUR)
    later = backend.snapshot().drive(sick.key)
    assert later is not None
    assert raw(later, 197) > raw(sick, 197)
    clock.advance(4 * HOUR)
    latest = backend.snapshot().drive(sick.key)
    assert latest is not None and raw(latest, 198) > raw(sick, 198)


def test_hot_bay_has_a_dead_fan_and_hot_bays_that_creep_up() -> None:
    backend, clock = run("hot-bay")
    snap = backend.snapshot()
    dead = [f for f in snap.fans if f.stalled]
    assert [f.name for f in dead] == ["fan-wall-2"]
    hot = [b for b in range(24) if celsius(in_bay(snap, b)) >= 45]
    assert hot and all(b < 8 for b in hot)
    assert all(celsius(in_bay(snap, b)) < 40 for b in range(16, 24))
    clock.advance(2 * HOUR)
    later = backend.snapshot()
    peak = max(celsius(in_bay(later, b)) for b in hot)
    assert max(celsius(in_bay(snap, b)) for b in hot) < peak <= 56


def test_sleeping_drives_keep_stale_readings_until_one_wakes() -> None:
    backend, clock = run("sleeping")
    snap = backend.snapshot()
    asleep = [d for d in snap.drives if d.power is PowerState.STANDBY]
    assert len(asleep) >= 22
    for drive in asleep:
        assert drive.temperature is not None and drive.temperature.age(snap.taken_at) > 30 * 60
        assert drive.smart_read_at is not None and snap.taken_at - drive.smart_read_at > 30 * 60
    clock.advance(HOUR / 2)
    later = backend.snapshot()
    woke = [
        d for d in later.drives if d.power is PowerState.ACTIVE and d.key in {a.key for a in asleep}
    ]
    assert len(woke) == 1
    assert woke[0].temperature is not None and woke[0].temperature.age(later.taken_at) < 30
