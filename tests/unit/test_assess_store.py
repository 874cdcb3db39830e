"""Snapshot assessment (alerts) and the snapshot store."""

from __future__ import annotations

import dataclasses

from nastui.config.presets import PRESETS
from nastui.core.assess import assess, overall
from nastui.core.layout import assign_bays, build_chassis
from nastui.core.store import SnapshotStore
from nastui.model import (
    BayBinding,
    CollectorError,
    Drive,
    DriveIdentity,
    Fan,
    Health,
    HostSnapshot,
    Pool,
    PoolKind,
    PoolState,
    ScanKind,
    ScanProgress,
    ScanState,
    SmartAttribute,
    Subject,
    Temperature,
    TempSource,
    Thresholds,
    Vdev,
)

NOW = 2_000_000_000.0
DAY = 86400.0
LIMITS = Thresholds()
CHASSIS = build_chassis(PRESETS["desktop-4"])


def drive(serial: str, dev: str, pending: int = 0, temp: float = 35) -> Drive:
    return Drive(
        dev,
        DriveIdentity(model="WDC WD40EFRX-68WT0N0", serial=serial, rotational=True),
        smart_passed=True,
        attributes=(SmartAttribute(197, "Current_Pending_Sector", 200, 200, 0, pending),),
        temperature=Temperature(temp, NOW, TempSource.SIMULATED),
    )


def pool(state: PoolState = PoolState.ONLINE, **kw: object) -> Pool:
    leaf = Vdev("sda", "disk", PoolState.ONLINE, 0, 0, 0, drive="A")
    root = Vdev(
        "tank", "root", state, children=(Vdev("mirror-0", "mirror", state, children=(leaf,)),)
    )
    scrub = ScanProgress(
        ScanKind.SCRUB, ScanState.FINISHED, NOW - 3 * DAY - 3600, NOW - 3 * DAY, errors=0
    )
    base = Pool("tank", PoolKind.ZFS, state, root, scan=scrub, last_scrub=scrub)
    return dataclasses.replace(base, **kw)  # type: ignore[arg-type]


def snapshot(*drives: Drive, pools: tuple[Pool, ...] = (), **kw: object) -> HostSnapshot:
    bindings = [BayBinding(i, serial=d.identity.serial) for i, d in enumerate(drives)]
    slots = assign_bays(CHASSIS, drives, bindings)
    base = HostSnapshot("nas", NOW, CHASSIS, slots, drives, pools)
    return dataclasses.replace(base, **kw)  # type: ignore[arg-type]


def test_all_well_is_ok() -> None:
    result = assess(snapshot(drive("A", "sda"), drive("B", "sdb"), pools=(pool(),)), LIMITS, NOW)
    assert result.alerts == ()
    assert overall(result) is Health.OK
    assert all(d.verdict.health is Health.OK for d in result.drives)


def test_drive_alert_names_bay_device_model_serial_and_reason() -> None:
    result = assess(snapshot(drive("A", "sda"), drive("B", "sdb", pending=8)), LIMITS, NOW)
    (alert,) = result.alerts
    assert alert.health is Health.WARNING
    assert alert.subject is Subject.DRIVE
    assert alert.name == "bay 1 sdb"
    assert alert.message == "WDC WD40EFRX-68WT0N0 B: Current_Pending_Sector 8"
    assert overall(result) is Health.WARNING


def test_missing_drive_in_a_bound_bay_is_critical() -> None:
    snap = snapshot(drive("A", "sda"))
    slots = assign_bays(
        CHASSIS, snap.drives, [BayBinding(0, serial="A"), BayBinding(2, serial="GONE")]
    )
    result = assess(dataclasses.replace(snap, slots=slots), LIMITS, NOW)
    (alert,) = result.alerts
    assert (alert.name, alert.health) == ("bay 2", Health.CRITICAL)
    assert alert.message.startswith("configured drive (serial GONE) not found")


def test_pool_states_and_errors() -> None:
    degraded = assess(snapshot(pools=(pool(PoolState.DEGRADED),)), LIMITS, NOW)
    assert [a.health for a in degraded.alerts] == [Health.WARNING]
    faulted = assess(
        snapshot(pools=(pool(PoolState.FAULTED, error_files=("/tank/a",)),)), LIMITS, NOW
    )
    assert [a.message for a in faulted.alerts] == ["pool FAULTED", "permanent errors in 1 file(s)"]
    assert overall(faulted) is Health.CRITICAL


def test_data_error_count_without_a_file_list_is_critical() -> None:
    result = assess(snapshot(pools=(pool(error_count=3),)), LIMITS, NOW)
    assert [(a.health, a.message) for a in result.alerts] == [
        (Health.CRITICAL, "3 data errors (zpool status -v lists them)")
    ]


def test_vdev_error_counters_warn() -> None:
    leaf = Vdev("sda", "disk", PoolState.ONLINE, 3, 0, 1, drive="A")
    root = Vdev("tank", "root", PoolState.ONLINE, children=(leaf,))
    result = assess(snapshot(pools=(pool(root=root),)), LIMITS, NOW)
    assert [a.message for a in result.alerts] == ["sda: READ 3 WRITE 0 CKSUM 1"]


def test_scrub_overdue_and_never_scrubbed() -> None:
    old = ScanProgress(
        ScanKind.SCRUB, ScanState.FINISHED, NOW - 41 * DAY - 60, NOW - 41 * DAY, errors=0
    )
    overdue = assess(snapshot(pools=(pool(scan=old, last_scrub=old),)), LIMITS, NOW)
    assert [a.message for a in overdue.alerts] == [
        "last scrub finished 41 days ago (limit 35 days)"
    ]
    never = assess(snapshot(pools=(pool(scan=None, last_scrub=None),)), LIMITS, NOW)
    assert [a.message for a in never.alerts] == ["no completed scrub on record"]
    md = pool(scan=None, last_scrub=None, kind=PoolKind.MDRAID)
    assert assess(snapshot(pools=(md,)), LIMITS, NOW).alerts == ()


def test_running_scrub_is_not_overdue_but_its_errors_show() -> None:
    running = ScanProgress(ScanKind.SCRUB, ScanState.RUNNING, NOW - 60, errors=2)
    result = assess(snapshot(pools=(pool(scan=running, last_scrub=None),)), LIMITS, NOW)
    assert [a.message for a in result.alerts] == ["scrub found 2 error(s)"]


def test_stalled_fan_and_collector_errors() -> None:
    fans = (Fan("wall-2", rpm=0, duty_percent=45), Fan("wall-1", rpm=1100, duty_percent=45))
    errors = (CollectorError("zfs", "zpool not found: install zfsutils-linux"),)
    result = assess(snapshot(fans=fans, errors=errors), LIMITS, NOW)
    assert [(a.health, a.name) for a in result.alerts] == [
        (Health.CRITICAL, "wall-2"),
        (Health.UNKNOWN, "zfs"),
    ]


def test_store_keeps_latest_history_and_notifies_on_change() -> None:
    store = SnapshotStore(history_len=3)
    seen: list[float] = []
    unsubscribe = store.subscribe(lambda s: seen.append(s.taken_at))
    first = snapshot(drive("A", "sda"))
    assert store.publish(first)
    assert not store.publish(dataclasses.replace(first, taken_at=NOW + 1))  # only time moved
    for i in range(5):
        hotter = dataclasses.replace(
            drive("A", "sda"), temperature=Temperature(36 + i, NOW + 10 * (i + 1), TempSource.SMART)
        )
        assert store.publish(snapshot(hotter))
    assert seen == [NOW] + [NOW] * 5
    assert store.latest("nas") is not None
    history = store.history("nas", "temp:A")
    assert [v for _, v in history] == [38, 39, 40]  # bounded to the last 3
    unsubscribe()
    store.publish(snapshot(drive("A", "sda", temp=20)))
    assert len(seen) == 6
    assert store.hosts() == ("nas",)
    assert store.history("nas", "nope") == ()
    assert store.latest("other") is None


def test_ingest_reports_growth_since_first_seen() -> None:
    store = SnapshotStore()
    store.ingest(snapshot(drive("A", "sda", pending=2)), LIMITS, NOW)
    later = store.ingest(snapshot(drive("A", "sda", pending=6)), LIMITS, NOW + 60)
    (alert,) = later.alerts
    assert alert.message.endswith("Current_Pending_Sector 6 (+4 since first seen)")
    assert store.baseline("nas", "A") == {197: 2}


def test_ingest_keeps_an_alert_first_seen_and_an_unchanged_host_unchanged() -> None:
    store = SnapshotStore()
    seen: list[float] = []
    store.subscribe(lambda s: seen.append(s.taken_at))
    raw = snapshot(drive("A", "sda", pending=2))
    first = store.ingest(raw, LIMITS, NOW)
    again = store.ingest(dataclasses.replace(raw, taken_at=NOW + 60), LIMITS, NOW + 60)
    assert [a.since for a in again.alerts] == [a.since for a in first.alerts] == [NOW]
    assert seen == [NOW]  # nothing changed but the time: no subscriber call
    hot = snapshot(drive("A", "sda", pending=2, temp=70))
    worse = store.ingest(dataclasses.replace(hot, taken_at=NOW + 120), LIMITS, NOW + 120)
    since = {a.key.rsplit(":", 1)[-1]: a.since for a in worse.alerts}
    assert since == {"197": NOW, "temp": NOW + 120}
    assert seen == [NOW, NOW + 120]
