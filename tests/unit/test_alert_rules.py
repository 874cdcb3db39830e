"""The alert rules (`nastui.core.assess`): one alert per drive finding, pools, fans, UPSes,
fleet hosts; and alert acknowledgements (`nastui.core.ack`): keys, coverage, expiry, file."""

from __future__ import annotations

import dataclasses
import json

import pytest

from nastui.core.ack import (
    ack_alert,
    ack_key,
    apply_alert_acks,
    covers,
    decode,
    encode,
)
from nastui.core.assess import assess, fleet_alerts, overall
from nastui.model import (
    Acknowledgement,
    Alert,
    CollectorError,
    Drive,
    DriveClass,
    DriveIdentity,
    Fan,
    FleetHost,
    Health,
    HostSnapshot,
    NvmeHealth,
    Pool,
    PoolKind,
    PoolState,
    Reason,
    ScanKind,
    ScanProgress,
    ScanState,
    SmartAttribute,
    Subject,
    Temperature,
    TempLimits,
    TempSource,
    Thresholds,
    Ups,
    UpsStatus,
    Vdev,
    Verdict,
)
from nastui.model.limits import DEFAULT_TEMPS

NOW = 2_000_000_000.0
DAY = 86400.0
# The HDD limits these tests were written against (45/50 °C; the default is now 50/55 °C).
LIMITS = Thresholds(temps={**DEFAULT_TEMPS, DriveClass.HDD: TempLimits(45.0, 50.0)})
WD = DriveIdentity(model="WDC WD40EFRX", serial="A", rotational=True)


def attr(attr_id: int, name: str, raw: int) -> SmartAttribute:
    return SmartAttribute(attr_id, name, 200, 200, 0, raw)


def drive(*attrs: SmartAttribute, temp: float = 35, **kw: object) -> Drive:
    base = Drive(
        "sda",
        WD,
        smart_passed=True,
        attributes=attrs,
        temperature=Temperature(temp, NOW, TempSource.SMART),
    )
    return dataclasses.replace(base, **kw)  # type: ignore[arg-type]


def snap(**kw: object) -> HostSnapshot:
    return dataclasses.replace(HostSnapshot("nas", NOW), **kw)  # type: ignore[arg-type]


def alerts_of(
    s: HostSnapshot, baselines: dict[str, dict[int, int]] | None = None
) -> dict[str, tuple[Health, str, int | None]]:
    result = assess(s, LIMITS, NOW, baselines)
    assert all(a.host == "nas" for a in result.alerts)
    return {a.key: (a.health, a.message, a.value) for a in result.alerts}


def scrub(state: ScanState = ScanState.FINISHED, **kw: object) -> ScanProgress:
    base = ScanProgress(ScanKind.SCRUB, state, NOW - DAY - 60, NOW - DAY, errors=0)
    return dataclasses.replace(base, **kw)  # type: ignore[arg-type]


def pool(state: PoolState = PoolState.ONLINE, **kw: object) -> Pool:
    root = Vdev("tank", "root", state, children=(Vdev("sda", "disk", state, 0, 0, 0),))
    base = Pool("tank", PoolKind.ZFS, state, root, scan=scrub(), last_scrub=scrub())
    return dataclasses.replace(base, **kw)  # type: ignore[arg-type]


# ------------------------------------------------------------------ drives


def test_failed_assessment_is_critical() -> None:
    assert alerts_of(snap(drives=(drive(smart_passed=False),))) == {
        "drive:A:smart": (
            Health.CRITICAL,
            "WDC WD40EFRX A: SMART overall-health self-assessment: FAILED",
            None,
        )
    }


@pytest.mark.parametrize(
    ("attr_id", "name"),
    [
        (5, "Reallocated_Sector_Ct"),
        (187, "Reported_Uncorrect"),
        (197, "Current_Pending_Sector"),
        (198, "Offline_Uncorrectable"),
    ],
)
def test_counted_attributes_warn_with_their_value(attr_id: int, name: str) -> None:
    found = alerts_of(snap(drives=(drive(attr(attr_id, name, 3)),)))
    assert found == {f"drive:A:attr:{attr_id}": (Health.WARNING, f"WDC WD40EFRX A: {name} 3", 3)}
    critical = alerts_of(snap(drives=(drive(attr(attr_id, name, 500)),)))
    assert critical[f"drive:A:attr:{attr_id}"][0] is Health.CRITICAL


def test_crc_errors_warn_when_they_grow() -> None:
    crc = attr(199, "UDMA_CRC_Error_Count", 12)
    assert alerts_of(snap(drives=(drive(crc),)), {"A": {199: 12}}) == {}
    grown = alerts_of(snap(drives=(drive(crc),)), {"A": {199: 10}})
    health, message, value = grown["drive:A:attr:199"]
    assert (health, value) == (Health.WARNING, 12)
    assert "(+2 since first seen)" in message


def test_nvme_media_errors_warn() -> None:
    nvme = drive(nvme=NvmeHealth(media_errors=4))
    assert alerts_of(snap(drives=(nvme,)))["drive:A:nvme:media"] == (
        Health.WARNING,
        "WDC WD40EFRX A: 4 media and data integrity errors",
        4,
    )


def test_temperature_over_warning_and_critical() -> None:
    warm = alerts_of(snap(drives=(drive(temp=46),)))
    assert warm == {
        "drive:A:temp": (Health.WARNING, "WDC WD40EFRX A: temperature 46 °C (warning 45 °C)", None)
    }
    hot = alerts_of(snap(drives=(drive(temp=51),)))
    assert hot["drive:A:temp"][0] is Health.CRITICAL


def test_each_finding_is_its_own_alert() -> None:
    d = drive(attr(197, "Current_Pending_Sector", 8), temp=47)
    result = assess(snap(drives=(d,)), LIMITS, NOW)
    assert [(a.key, a.health, a.value) for a in result.alerts] == [
        ("drive:A:attr:197", Health.WARNING, 8),
        ("drive:A:temp", Health.WARNING, None),
    ]
    assert all(a.name == "sda" and a.subject is Subject.DRIVE for a in result.alerts)


def test_acknowledged_findings_stay_alerts_marked_acknowledged() -> None:
    acked = (Acknowledgement("attr:197", 8, NOW - 10),)
    d = drive(attr(197, "Current_Pending_Sector", 8), acks=acked)
    result = assess(snap(drives=(d,)), LIMITS, NOW, {"A": {197: 2}})
    (alert,) = result.alerts
    assert (alert.key, alert.health, alert.value, alert.acknowledged) == (
        "drive:A:attr:197",
        Health.WARNING,
        8,
        True,
    )
    assert alert.message == "WDC WD40EFRX A: Current_Pending_Sector 8 (+6 since first seen)"
    assert result.drives[0].verdict.health is Health.OK
    assert overall(result) is Health.OK
    grown = drive(attr(197, "Current_Pending_Sector", 9), acks=acked)
    (alert,) = assess(snap(drives=(grown,)), LIMITS, NOW).alerts
    assert not alert.acknowledged


def test_a_verdict_the_collector_gave_is_kept() -> None:
    vendor = Verdict(Health.CRITICAL, (Reason(Health.CRITICAL, "vendor status: Crashed"),))
    given = drive(attr(197, "Current_Pending_Sector", 8), verdict=vendor)
    result = assess(snap(drives=(given,)), LIMITS, NOW)
    assert result.drives[0].verdict == vendor
    assert alerts_of(snap(drives=(given,))) == {
        "drive:A": (Health.CRITICAL, "WDC WD40EFRX A: vendor status: Crashed", None)
    }
    bare = drive(verdict=Verdict(Health.WARNING))
    assert alerts_of(snap(drives=(bare,))) == {
        "drive:A": (Health.WARNING, "WDC WD40EFRX A: WARNING", None)
    }


def test_a_drive_without_smart_is_unknown() -> None:
    blank = Drive("sdz", DriveIdentity(serial="Z"))
    found = alerts_of(snap(drives=(blank,)))
    assert found == {"drive:Z:no-smart": (Health.UNKNOWN, "Z: no SMART data", None)}


# ------------------------------------------------------------------ pools, fans, errors


@pytest.mark.parametrize(
    ("state", "health"),
    [
        (PoolState.DEGRADED, Health.WARNING),
        (PoolState.FAULTED, Health.CRITICAL),
        (PoolState.SUSPENDED, Health.CRITICAL),
    ],
)
def test_pool_states(state: PoolState, health: Health) -> None:
    found = alerts_of(snap(pools=(pool(state),)))
    assert found["pool:tank:state"] == (health, f"pool {state.value}", None)


@pytest.mark.parametrize("kind", [ScanKind.SCRUB, ScanKind.RESILVER])
def test_scan_errors_carry_their_count(kind: ScanKind) -> None:
    scan = scrub(ScanState.RUNNING, kind=kind, ended_at=None, errors=3)
    found = alerts_of(snap(pools=(pool(scan=scan),)))
    assert found == {"pool:tank:scan": (Health.WARNING, f"{kind.value} found 3 error(s)", 3)}


def test_error_counts_carry_values() -> None:
    leaf = Vdev("sda", "disk", PoolState.ONLINE, 1, 0, 2)
    root = Vdev("tank", "root", PoolState.ONLINE, children=(leaf,))
    found = alerts_of(snap(pools=(pool(root=root, error_count=5),)))
    assert found["pool:tank:vdev:sda"][2] == 3
    assert found["pool:tank:files"][2] == 5


def test_scrub_overdue() -> None:
    old = scrub(started_at=NOW - 40 * DAY - 60, ended_at=NOW - 40 * DAY)
    found = alerts_of(snap(pools=(pool(scan=old, last_scrub=old),)))
    assert found["pool:tank:scrub-age"][0] is Health.WARNING


def test_stalled_fan() -> None:
    fans = (Fan("fan1", rpm=0, duty_percent=40), Fan("fan2", rpm=0, duty_percent=0))
    assert alerts_of(snap(fans=fans)) == {
        "fan:fan1:stalled": (
            Health.CRITICAL,
            "0 RPM at 40% duty: fan dead or unplugged",
            None,
        )
    }


def test_collector_errors_are_unknown() -> None:
    errors = (CollectorError("smart", "smartctl not found: install smartmontools"),)
    found = alerts_of(snap(errors=errors))
    assert found["collect:smart"][0] is Health.UNKNOWN


# ------------------------------------------------------------------ UPS


def test_ups_alerts() -> None:
    ups = (
        Ups("ups1", UpsStatus.ON_BATTERY, charge_percent=80, runtime_s=1500, on_battery_s=200),
        Ups("ups2", UpsStatus.BATTERY_LOW, charge_percent=9),
        Ups("ups3", UpsStatus.OFF),
        Ups("ups4", UpsStatus.ONLINE, battery_replace=True),
        Ups("ups5", UpsStatus.ONLINE),
        Ups("ups6", UpsStatus.UNKNOWN),
    )
    result = assess(snap(ups=ups), LIMITS, NOW)
    assert all(a.subject is Subject.UPS for a in result.alerts)
    assert {a.key: (a.health, a.message) for a in result.alerts} == {
        "ups:ups1:power": (
            Health.WARNING,
            "on battery: mains power lost (for 3m20s, charge 80%, 25m00s runtime left)",
        ),
        "ups:ups2:power": (Health.CRITICAL, "battery low: shutdown imminent (charge 9%)"),
        "ups:ups3:power": (Health.CRITICAL, "output off: the load has no power"),
        "ups:ups4:battery": (Health.WARNING, "battery needs replacing"),
    }
    assert overall(result) is Health.CRITICAL


# ------------------------------------------------------------------ fleet


def test_unreachable_host_names_address_time_and_error() -> None:
    last = snap(drives=(drive(temp=47),))
    host = FleetHost(
        "nas2",
        "10.0.0.2:161",
        "synology",
        snapshot=assess(last, LIMITS, NOW - 600),
        polled_at=NOW,
        last_contact=NOW - 600,
        error="nas2: SNMP timeout: check the address and community",
    )
    alerts = fleet_alerts(host, NOW)
    assert [(a.key, a.health, a.host) for a in alerts] == [
        ("host:unreachable", Health.CRITICAL, "nas2"),
        ("drive:A:temp", Health.WARNING, "nas2"),
    ]
    assert alerts[0].message == (
        "10.0.0.2:161 not answering (last answered 10 min ago): "
        "nas2: SNMP timeout: check the address and community"
    )
    assert alerts[0].subject is Subject.HOST


def test_fleet_host_states() -> None:
    never = FleetHost("ups", "10.0.0.9:161", "ups", polled_at=NOW, error="ups: no answer")
    assert fleet_alerts(never, NOW)[0].message == (
        "10.0.0.9:161 not answering (has never answered): ups: no answer"
    )
    assert fleet_alerts(FleetHost("ups", "10.0.0.9:161", "ups"), NOW) == ()
    ups = snap(ups=(Ups("ups", UpsStatus.ON_BATTERY),))
    fine = FleetHost("ups", "10.0.0.9:161", "ups", assess(ups, LIMITS, NOW), NOW, last_contact=NOW)
    assert [(a.key, a.host) for a in fleet_alerts(fine, NOW)] == [("ups:ups:power", "ups")]


# ------------------------------------------------------------------ alert acknowledgements


def alert(value: int | None = 8, host: str = "nas", key: str = "drive:A:attr:197") -> Alert:
    return Alert(key, Health.WARNING, Subject.DRIVE, "sda", "pending", NOW, value=value, host=host)


def test_ack_key_names_the_host() -> None:
    assert ack_key(alert()) == "nas/drive:A:attr:197"
    assert ack_key(alert(host="")) == "drive:A:attr:197"


def test_alert_ack_covers_up_to_its_value_until_it_expires() -> None:
    ack = ack_alert(alert(8), NOW, "ordered", expires_at=NOW + DAY)
    assert ack == Acknowledgement("nas/drive:A:attr:197", 8, NOW, "ordered", NOW + DAY)
    assert covers(ack, alert(8), NOW) and covers(ack, alert(3), NOW)
    assert not covers(ack, alert(9), NOW)
    assert not covers(ack, alert(8), NOW + DAY)
    assert covers(ack, alert(8))  # expiry not checked without a time
    assert not covers(ack, alert(8, host="nas2"), NOW)
    assert not covers(ack, alert(None), NOW)


def test_value_less_and_bitmask_alert_acks() -> None:
    hot = alert(None, key="drive:A:temp")
    assert covers(ack_alert(hot, NOW), hot, NOW + 10 * DAY)
    nvme = alert(4, key="drive:A:nvme:critical_warning")
    ack = ack_alert(nvme, NOW)
    assert covers(ack, nvme, NOW)
    assert not covers(ack, dataclasses.replace(nvme, value=1), NOW)


def test_an_ok_alert_or_a_past_expiry_cannot_be_acknowledged() -> None:
    with pytest.raises(ValueError, match="OK alert"):
        ack_alert(dataclasses.replace(alert(), health=Health.OK), NOW)
    with pytest.raises(ValueError, match="expire"):
        ack_alert(alert(), NOW, expires_at=NOW)


def test_apply_alert_acks_marks_covered_alerts() -> None:
    acks = (ack_alert(alert(8), NOW - 10, expires_at=NOW + 10),)
    marked = apply_alert_acks((alert(8), alert(9), alert(8, host="b")), acks, NOW)
    assert [a.acknowledged for a in marked] == [True, False, False]
    assert [a.acknowledged for a in apply_alert_acks((alert(8),), acks, NOW + 10)] == [False]
    marked_alerts = assess(snap(drives=(drive(temp=47),)), LIMITS, NOW).alerts
    acked = apply_alert_acks(marked_alerts, [ack_alert(marked_alerts[0], NOW)], NOW)
    assert overall(dataclasses.replace(snap(), alerts=acked)) is Health.OK


def test_drive_ack_rules_ignore_expiry_only_without_a_time() -> None:
    reason = Reason(Health.WARNING, "Current_Pending_Sector 8", "attr:197", 8)
    lapsed = Acknowledgement("attr:197", 8, NOW - DAY, expires_at=NOW - 1)
    assert covers(lapsed, reason) and not covers(lapsed, reason, NOW)


def test_drive_ack_file_keeps_its_format_and_carries_expiry() -> None:
    text = encode({"PK1": [Acknowledgement("attr:5", 3, NOW)]})
    assert json.loads(text)["drives"]["PK1"] == [
        {"key": "attr:5", "value": 3, "at": NOW, "note": ""}
    ]
    timed = {"PK1": (Acknowledgement("attr:5", 3, NOW, expires_at=NOW + 5),)}
    assert decode(encode(timed), "acks.json") == timed
    bad = '{"drives": {"A": [{"key": "k", "value": 1, "at": 1, "expires_at": "soon"}]}}'
    assert decode(bad, "acks.json") == {}
