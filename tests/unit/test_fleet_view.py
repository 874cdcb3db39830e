"""The fleet roll-up: one row per host with health, hottest drive, pools, UPS and last contact."""

from __future__ import annotations

import pytest

from nastui.core.assess import ups_health
from nastui.core.fleetview import (
    NOT_POLLED,
    UNREACHABLE,
    contact_age,
    fleet_row,
    fleet_rows,
    fleet_summary,
    host_health,
    pick_form,
    pool_variants,
    pools_text,
    ups_text,
)
from nastui.model import (
    Alert,
    Drive,
    DriveIdentity,
    FleetHost,
    Health,
    HostSnapshot,
    Pool,
    PoolKind,
    PoolState,
    ScanKind,
    ScanProgress,
    ScanState,
    Subject,
    Temperature,
    TempSource,
    Ups,
    UpsStatus,
    Vdev,
)

NOW = 1_773_453_600.0


def pool(name: str, state: PoolState = PoolState.ONLINE, scan: ScanProgress | None = None) -> Pool:
    return Pool(name, PoolKind.ZFS, state, Vdev(name, "root", state), scan=scan)


def drive(dev: str, celsius: float | None) -> Drive:
    temp = Temperature(celsius, NOW, TempSource.SNMP) if celsius is not None else None
    return Drive(
        dev, DriveIdentity(model="WDC WD40EFRX-68WT0N0", serial=f"WD-{dev}"), temperature=temp
    )


def alert(health: Health, name: str = "cold", message: str = "pool DEGRADED") -> Alert:
    return Alert(f"pool:{name}:state", health, Subject.POOL, name, message, NOW)


def host(
    snapshot: HostSnapshot | None = None,
    *,
    error: str | None = None,
    last_contact: float | None = NOW - 12,
) -> FleetHost:
    return FleetHost(
        "archive",
        "192.0.2.30:161",
        "truenas",
        snapshot=snapshot,
        polled_at=NOW - 12,
        last_contact=last_contact,
        error=error,
    )


@pytest.mark.parametrize(
    ("last", "expected"),
    [
        (None, "never"),
        (NOW, "0 s ago"),
        (NOW - 12, "12 s ago"),
        (NOW - 59.4, "59 s ago"),
        (NOW - 300, "5 min ago"),
        (NOW - 3 * 3600 - 420, "3 h ago"),
        (NOW - 5 * 86400, "5 days ago"),
        (NOW + 5, "0 s ago"),  # a host clock ahead of ours never gives a negative age
    ],
)
def test_contact_age(last: float | None, expected: str) -> None:
    assert contact_age(last, NOW) == expected


def test_coarse_contact_age_changes_by_the_minute() -> None:
    assert {contact_age(NOW - s, NOW, coarse=True) for s in (0, 12, 59.4)} == {"<1 min ago"}
    assert contact_age(NOW - 300, NOW, coarse=True) == "5 min ago"
    assert contact_age(None, NOW, coarse=True) == "never"


def test_ups_texts_full_and_compact() -> None:
    online = Ups("ups", UpsStatus.ONLINE, charge_percent=100.0, runtime_s=42 * 60)
    battery = Ups("ups", UpsStatus.ON_BATTERY, charge_percent=63.4, runtime_s=12 * 60)
    assert ups_text(online) == "online 100% 42 min"
    assert ups_text(battery) == "ON BATTERY 63% 12 min"
    assert ups_text(battery, compact=True) == "ON BATT 63% 12m"
    assert ups_text(Ups("ups")) == "unknown"  # nothing reported: no made-up figures
    worn = Ups("ups", UpsStatus.ONLINE, charge_percent=100.0, battery_replace=True)
    assert ups_text(worn) == "online 100% replace battery"


@pytest.mark.parametrize(
    ("ups", "expected"),
    [
        (Ups("u", UpsStatus.ONLINE), Health.OK),
        (Ups("u", UpsStatus.ON_BATTERY), Health.WARNING),
        (Ups("u", UpsStatus.BYPASS), Health.WARNING),
        (Ups("u", UpsStatus.BATTERY_LOW), Health.CRITICAL),
        (Ups("u", UpsStatus.OFF), Health.CRITICAL),
        (Ups("u", UpsStatus.UNKNOWN), Health.UNKNOWN),
        (Ups("u", UpsStatus.ONLINE, battery_replace=True), Health.WARNING),
        (Ups("u", UpsStatus.BATTERY_LOW, battery_replace=True), Health.CRITICAL),
    ],
)
def test_ups_health(ups: Ups, expected: Health) -> None:
    assert ups_health(ups) is expected


def test_pool_forms_go_from_detail_to_counts() -> None:
    scrub = ScanProgress(ScanKind.SCRUB, ScanState.RUNNING, bytes_done=40, bytes_total=100)
    pools = [pool("tank", scan=scrub), pool("cold", PoolState.DEGRADED)]
    assert pool_variants(pools) == (
        "tank ONLINE scrub 40%, cold DEGRADED",
        "tank ONLINE, cold DEGRADED",
        "cold DEGRADED, tank ONLINE",
        "cold DEGRADED, 1 ONLINE",
        "cold DEGRADED +1",
        "1 DEGRADED, 1 ONLINE",
    )
    assert pools_text(pools) == "tank ONLINE scrub 40%, cold DEGRADED"
    assert pools_text(pools, 26) == "tank ONLINE, cold DEGRADED"
    assert pools_text(pools, 22) == "cold DEGRADED +1"  # the pool in trouble keeps its name
    assert pools_text(pools, 10) == "cold DE..."


def test_pool_forms_of_healthy_and_no_pools() -> None:
    assert pool_variants([pool("tank"), pool("cold")]) == (
        "tank ONLINE, cold ONLINE",
        "tank, cold ONLINE",
        "2 ONLINE",
    )
    assert pool_variants([]) == ("",)
    assert pools_text([], 20) == ""


def test_pick_form_cuts_the_shortest_as_a_last_resort() -> None:
    assert pick_form(("long form", "short"), 6) == "short"
    assert pick_form(("long form", "short"), 4, ellipsis="…") == "sho…"
    assert pick_form(("long form", "short"), 2) == "sh"
    assert pick_form(("long form", "short"), None) == "long form"


def test_reachable_host_rolls_up_its_alerts_hottest_drive_and_pools() -> None:
    snapshot = HostSnapshot(
        "archive",
        NOW - 12,
        drives=(drive("sda", 36.0), drive("sdb", 41.4), drive("sdc", None)),
        pools=(pool("tank"), pool("cold", PoolState.DEGRADED)),
        alerts=(alert(Health.WARNING),),
    )
    row = fleet_row(host(snapshot), NOW)
    assert row.health is Health.WARNING
    assert row.status == "WARNING"
    assert row.hottest == "41°C sdb"
    assert row.hottest_c == 41.4
    assert row.pools == "tank ONLINE, cold DEGRADED"
    assert row.pool_forms[0] == row.pools
    assert row.ups == ""
    assert row.contact == "<1 min ago"  # by the minute: a row does not change every tick
    assert fleet_row(host(snapshot), NOW + 40) == row
    assert row.problem == "cold: pool DEGRADED"
    assert row.drives == 3
    assert not row.stale
    assert fleet_row(host(snapshot), NOW, degree="").hottest == "41C sdb"


def test_acknowledged_alerts_do_not_count() -> None:
    acked = Alert("k", Health.CRITICAL, Subject.POOL, "tank", "x", NOW, acknowledged=True)
    row = fleet_row(host(HostSnapshot("archive", NOW, alerts=(acked,))), NOW)
    assert row.health is Health.OK
    assert row.problem == ""


def test_ups_state_joins_the_roll_up() -> None:
    ups = Ups("ups-rack", UpsStatus.ON_BATTERY, charge_percent=63.0, runtime_s=720.0)
    row = fleet_row(host(HostSnapshot("ups-rack", NOW, ups=(ups,))), NOW)
    assert row.health is Health.WARNING
    assert row.ups == "ON BATTERY 63% 12 min"
    assert row.ups_short == "ON BATT 63% 12m"
    assert row.problem == "UPS ups-rack: ON BATTERY 63% 12 min"
    assert row.hottest == "" and row.hottest_c is None and row.drives == 0


def test_a_worse_alert_beats_the_ups_as_the_problem() -> None:
    ups = Ups("ups-rack", UpsStatus.ON_BATTERY)
    snapshot = HostSnapshot("nas", NOW, ups=(ups,), alerts=(alert(Health.CRITICAL),))
    row = fleet_row(host(snapshot), NOW)
    assert row.health is Health.CRITICAL
    assert row.problem == "cold: pool DEGRADED"


def test_unreachable_host_is_critical_and_keeps_its_last_state_marked_stale() -> None:
    error = "no answer from 192.0.2.40:161 within 2 s (1 retry): host down, wrong port or ..."
    old = HostSnapshot(
        "offsite", NOW - 3 * 3600, drives=(drive("disk1", 35.0),), pools=(pool("v"),)
    )
    row = fleet_row(host(old, error=error, last_contact=NOW - 3 * 3600), NOW)
    assert row.health is Health.CRITICAL
    assert row.status == UNREACHABLE
    assert row.contact == "3 h ago"
    assert row.problem == error
    assert row.stale
    assert row.hottest == "~35°C disk1"
    assert row.pools == "v ONLINE"


def test_host_that_never_answered() -> None:
    row = fleet_row(host(error="dead: no answer", last_contact=None), NOW)
    assert (row.health, row.status, row.contact, row.stale) == (
        Health.CRITICAL,
        UNREACHABLE,
        "never",
        False,
    )


def test_host_not_polled_yet_is_unknown() -> None:
    fresh = FleetHost("archive", "192.0.2.30:161", "truenas")
    assert host_health(fresh, NOW) is Health.UNKNOWN
    row = fleet_row(fresh, NOW)
    assert row.status == NOT_POLLED
    assert row.contact == "never"
    assert row.pool_forms == ("",)


def test_rows_keep_the_configured_order_and_summary_counts_them() -> None:
    hosts = [
        FleetHost("b", "b:161", "ups"),
        host(HostSnapshot("archive", NOW)),
        host(error="x: no answer"),
    ]
    rows = fleet_rows(hosts, NOW)
    assert [r.name for r in rows] == ["b", "archive", "archive"]
    assert fleet_summary(rows) == "3 hosts: 1 OK, 1 unreachable, 1 not polled"
    assert fleet_summary(rows[1:2]) == "1 host: 1 OK"
    assert fleet_summary(()) == "no hosts configured"


def test_polled_without_an_answer_or_error_is_unreachable() -> None:
    silent = FleetHost("vault", "192.0.2.9:161", "synology", polled_at=NOW)
    row = fleet_row(silent, NOW)
    assert (row.health, row.status) == (Health.CRITICAL, UNREACHABLE)
    assert row.problem == "vault: no answer from 192.0.2.9:161"
