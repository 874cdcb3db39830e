"""SNMP profiles against recordings: expected values read off the .snmprec files by hand."""

from __future__ import annotations

import pytest

from nastui.collectors.snmp_profiles import (
    PROFILES,
    apc,
    netsnmp,
    profile_for,
    qnap,
    synology,
    truenas,
    ups,
)
from nastui.config.remote import SnmpProfile
from nastui.model import (
    UNASSESSED,
    Health,
    HostSnapshot,
    PoolKind,
    PoolState,
    ScanKind,
    ScanState,
    TempSource,
    Transport,
    UpsStatus,
)
from tests.snmprec import fixture

NOW = 1_700_000_000.0
Expected = tuple[str | None, float | None, float | None, float | None, float | None, bool]
"""model, charge %, runtime s, load %, input volts, battery replace."""


def temps(snapshot: HostSnapshot) -> list[float | None]:
    return [d.temperature.celsius if d.temperature else None for d in snapshot.drives]


def test_registry_covers_every_profile_but_nastui() -> None:
    for profile in SnmpProfile:
        if profile is SnmpProfile.NASTUI and profile not in PROFILES:
            continue
        assert profile_for(profile).name == profile.value
        assert profile_for(profile).roots


# ---------------------------------------------------------------- net-snmp


def test_netsnmp_lab_recording() -> None:
    snap = netsnmp.parse("lab", fixture("netsnmp-lab.snmprec"), NOW)
    assert snap.source == "snmp:net-snmp"
    assert snap.host == "lab"
    assert snap.taken_at == NOW
    # diskIOTable: loop0..7, vda, zram0 -> only vda is a drive; no hrDisk, no lmSensors.
    assert [d.key for d in snap.drives] == ["vda"]
    assert snap.drives[0].verdict == UNASSESSED
    assert snap.pools == ()
    assert snap.sensors == ()
    assert snap.fans == ()
    assert snap.errors == ()


def test_netsnmp_synthetic_hr_disks_and_lmsensors() -> None:
    snap = netsnmp.parse("h", fixture("netsnmp-synthetic.snmprec"), NOW)
    assert [d.key for d in snap.drives] == ["sda", "sdb", "nvme0n1"]
    sda, sdb, nvme = snap.drives
    assert sda.identity.capacity_bytes == 3907018584 * 1024
    assert sda.verdict == UNASSESSED  # running(2) says nothing about health
    assert sdb.verdict.health is Health.CRITICAL
    assert sdb.verdict.summary == "hrDeviceStatus: down"
    assert nvme.identity.capacity_bytes is None
    assert [(s.name, s.value) for s in snap.sensors] == [("Package id 0", 47.0), ("Core 0", 45.5)]
    assert [(f.name, f.rpm) for f in snap.fans] == [("fan1", 1250), ("fan2", 0)]
    assert len(snap.errors) == 1
    assert snap.errors[0].source == "snmp:net-snmp"
    assert "lmTempSensorsTable row 3" in snap.errors[0].message


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("sda", True),
        ("nvme0n1", True),
        ("vda", True),
        ("mmcblk0", True),
        ("sda1", False),
        ("nvme0n1p2", False),
        ("mmcblk0p1", False),
        ("loop3", False),
        ("dm-0", False),
        ("md127", False),
        ("zram0", False),
        ("sr0", False),
    ],
)
def test_netsnmp_whole_disk(name: str, expected: bool) -> None:
    assert netsnmp.whole_disk(name) is expected


# ---------------------------------------------------------------- Synology


def test_synology_rs2212rp_recording() -> None:
    snap = synology.parse("rs", fixture("dsm-rs2212rp.snmprec"), NOW)
    assert snap.source == "snmp:synology"
    assert len(snap.drives) == 22  # 10 in the RS2212RP+, 12 in the RX1214rp expansion
    assert temps(snap) == [
        37.0, 37.0, 35.0, 37.0, 36.0, 34.0, 36.0, 35.0, 33.0, 31.0,
        35.0, 37.0, 36.0, 35.0, 36.0, 37.0, 35.0, 35.0, 36.0, 36.0, 35.0, 34.0,
    ]  # fmt: skip
    first, last = snap.drives[0], snap.drives[-1]
    assert first.key == "Disk 1"
    assert first.identity.model == "HDS724040ALE640"  # trailing spaces stripped
    assert first.identity.transport is Transport.SATA
    assert first.temperature is not None
    assert first.temperature.source is TempSource.SNMP
    assert first.temperature.measured_at == NOW
    assert all(d.verdict.health is Health.OK for d in snap.drives)  # diskStatus Normal(1)
    assert last.key == "Disk 12 (RX1214rp-1)"
    assert last.slot is not None
    assert (last.slot.enclosure, last.slot.slot) == ("RX1214rp-1", 12)
    assert [(s.bay, s.drive) for s in snap.slots][:2] == [(1, "Disk 1"), (2, "Disk 2")]
    assert len(snap.slots) == 10  # bays of the main unit only
    assert [(p.name, p.state) for p in snap.pools] == [
        ("Volume 1", PoolState.ONLINE),
        ("Disk Group 1", PoolState.ONLINE),
        ("LUN-1", PoolState.ONLINE),
    ]
    assert all(p.kind is PoolKind.MDRAID and p.scan is None for p in snap.pools)
    assert snap.sensors[0].name == "system temperature"
    assert snap.sensors[0].value == 53.0
    assert {s.name: s.status for s in snap.sensors[1:]} == {
        "system status": "normal",
        "power supply": "normal",
        "system fan": "normal",
        "CPU fan": "normal",
    }
    assert snap.errors == ()


def test_synology_ds214_recording() -> None:
    snap = synology.parse("ds", fixture("synologyds214.snmprec"), NOW)
    assert [d.key for d in snap.drives] == ["Disk 1", "Disk 2"]
    assert temps(snap) == [29.0, 31.0]
    assert snap.drives[0].identity.model == "WD10EZEX-08M2NA0"
    assert [(p.name, p.state) for p in snap.pools] == [("Volume 1", PoolState.ONLINE)]
    assert snap.sensors[0].value == 50.0


def test_synology_degraded_synthetic() -> None:
    snap = synology.parse("syn", fixture("synology-synthetic-degraded.snmprec"), NOW)
    disk1, disk2, disk3 = snap.drives
    assert disk1.identity.model == "ST4000NM0006-2DR107"  # hex with trailing NULs
    assert disk1.verdict.health is Health.WARNING
    assert [(r.text, r.key, r.value) for r in disk1.verdict.reasons] == [
        ("diskHealthStatus: Warning", "snmp:diskHealthStatus", None),
        ("diskBadSector 12", "snmp:diskBadSector", 12),
    ]
    assert disk2.identity.model == "ST4000NM0006-2DR107"  # trailing spaces
    assert disk2.verdict.health is Health.CRITICAL
    assert disk2.verdict.summary == "diskStatus: Crashed; diskHealthStatus: Failing"
    assert disk2.temperature is None  # 0 means no reading
    assert disk3.temperature is not None
    assert disk3.temperature.celsius == 38.0  # "38 C"
    assert disk3.identity.rotational is False
    assert disk3.verdict.health is Health.OK
    volume1, volume2 = snap.pools
    assert volume1.state is PoolState.DEGRADED
    assert volume1.status_text == "raidStatus: Degrade"
    assert volume1.size_bytes == 3_000_000_000_000
    assert volume1.allocated_bytes == 2_000_000_000_000
    assert volume2.state is PoolState.ONLINE
    assert volume2.scan is not None
    assert (volume2.scan.kind, volume2.scan.state) == (ScanKind.CHECK, ScanState.RUNNING)
    assert volume2.scan.percent is None  # the MIB gives no percentage
    assert volume2.allocated_bytes is None  # free 500 > total 100: nonsense
    status = {s.name: s.status for s in snap.sensors}
    assert status["system status"] == "failed"
    assert status["system fan"] == "failed"
    assert [e.message.split(":")[0] for e in snap.errors] == ["synology diskTable row 9"]
    assert snap.errors[0].source == "snmp:synology"


# ---------------------------------------------------------------- QNAP


def test_qnap_tvs871u_recording() -> None:
    snap = qnap.parse("q", fixture("qnap_TVS-871U-RP_excerpt.snmprec"), NOW)
    assert snap.source == "snmp:qnap"
    assert len(snap.drives) == 20  # 8 in the TVS-871U-RP, 12 in the UX-1200U
    assert temps(snap) == [
        28.0, 30.0, 30.0, 30.0, 27.0, 28.0, 28.0, 28.0,
        27.0, 30.0, 31.0, 32.0, 30.0, 50.0, 46.0, 45.0, 39.0, 41.0, 45.0, 42.0,
    ]  # fmt: skip
    hdd1 = snap.drives[0]
    assert hdd1.key == "HDD1"
    assert hdd1.identity.model == "WDC WD6003FFBX-68MU3N0"
    assert hdd1.identity.transport is Transport.SATA
    assert hdd1.identity.capacity_bytes == 6001175126016
    assert all(d.verdict.health is Health.OK for d in snap.drives)  # "Good", smart 0
    assert snap.drives[14].key == "HDD7 (UX-1200U #1)"
    assert snap.drives[14].identity.capacity_bytes == 8001563222016
    assert len(snap.slots) == 8
    assert [(f.name, f.rpm) for f in snap.fans] == [
        ("TVS-871U-RP #0 fan 1", 4504),
        ("TVS-871U-RP #0 fan 2", 4451),
        ("TVS-871U-RP #0 fan 3", 4373),
        ("UX-1200U #1 fan 1", 6480),
        ("UX-1200U #1 fan 2", 6480),
    ]
    assert [(s.name, s.value) for s in snap.sensors[:2]] == [
        ("TVS-871U-RP #0 system", 33.0),
        ("UX-1200U #1 system", 32.0),
    ]
    assert [s.status for s in snap.sensors[2:]] == ["ok"] * 4  # power supplies
    assert snap.pools == ()
    assert snap.errors == ()


def test_qnap_legacy_hd_table() -> None:
    walk = dict(fixture("qnap_TVS-871U-RP_excerpt.snmprec"))
    for key in [k for k in walk if k[: len(qnap.DISK_ENTRY)] == qnap.DISK_ENTRY]:
        del walk[key]
    snap = qnap.parse("q", walk, NOW)
    assert [d.key for d in snap.drives] == [f"HDD{n}" for n in range(1, 9)]
    assert temps(snap) == [28.0, 30.0, 30.0, 30.0, 27.0, 28.0, 28.0, 28.0]  # "28 C/82 F"
    assert snap.drives[0].identity.capacity_bytes == int(5.46 * 1024**4)  # "5.46 TB"
    assert snap.drives[0].verdict.health is Health.OK  # HdSmartInfo GOOD


def test_qnap_raid_synthetic() -> None:
    snap = qnap.parse("q", fixture("qnap-synthetic-raid.snmprec"), NOW)
    raid1, raid2 = snap.pools
    assert (raid1.name, raid1.state, raid1.scan) == ("RAID 1", PoolState.ONLINE, None)
    assert raid1.root.kind == "raid6"
    assert raid1.size_bytes == 23957685370880
    assert raid1.allocated_bytes == 23957685370880 - 5989421342720
    assert raid2.state is PoolState.DEGRADED
    assert raid2.scan is not None
    assert raid2.scan.kind is ScanKind.RECOVERY
    assert raid2.status_text == "raid: Rebuilding"
    disk1, disk2 = snap.drives
    assert disk1.identity.transport is Transport.SAS  # "(NL-SAS)"
    assert disk1.temperature is None  # -1
    assert disk1.verdict.summary == "diskSummary: Warning; diskSmartInfo: warning"
    assert disk2.verdict.health is Health.CRITICAL


# ---------------------------------------------------------------- TrueNAS


def test_freenas_recording() -> None:
    snap = truenas.parse("fn", fixture("freenas-11.2_FREENAS-MIB_excerpt.snmprec"), NOW)
    assert snap.source == "snmp:truenas"
    boot, tank = snap.pools
    assert (boot.name, boot.kind, boot.state) == ("freenas-boot", PoolKind.ZFS, PoolState.ONLINE)
    assert boot.size_bytes == 3604480 * 4096
    assert boot.allocated_bytes == 2257804 * 4096
    assert tank.name == "tank"
    assert tank.size_bytes == 1459617792 * 131072
    assert tank.allocated_bytes == 331145071 * 131072
    assert snap.drives == ()  # FREENAS-MIB has no disk temperature table
    assert snap.errors == ()


def test_truenas_synthetic() -> None:
    snap = truenas.parse("tn", fixture("truenas-synthetic.snmprec"), NOW)
    assert [(p.name, p.state) for p in snap.pools] == [
        ("boot-pool", PoolState.ONLINE),
        ("tank", PoolState.DEGRADED),
    ]
    assert snap.pools[1].status_text == "zpoolHealth: DEGRADED"
    assert snap.pools[1].size_bytes is None
    assert [d.key for d in snap.drives] == ["sda", "sdb", "nvme0n1"]
    assert temps(snap) == [36.0, 41.0, None]
    assert all(d.verdict == UNASSESSED for d in snap.drives)


# ---------------------------------------------------------------- UPS


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("eastpower-istars-swv053.snmprec", ("EAST EA9080", 100.0, None, 30.0, 236.0, False)),
        ("eaton-93e-80.snmprec", ("EATON 93E 80", 100.0, 1092 * 60.0, 21.0, 227.0, False)),
        (
            "eaton-powerxpert.snmprec",
            ("Eaton Corporation PXGX 2000 + EATON 9390", 99.0, 7 * 60.0, 69.0, 269.0, False),
        ),
        ("huawei-gse200m.snmprec", ("HUAWEI UPS5000", None, None, 8.0, 236.9, False)),
        ("phoenixtec-power.snmprec", (None, 100.0, None, 0.0, 238.0, False)),
        ("tripplite.snmprec", ("TRIPPLITE SU2200RTXLCD2U", 100.0, 1200.0, 31.0, 115.0, True)),
        ("sinetica.snmprec", (None, 100.0, None, 39.0, 206.0, False)),
    ],
)
def test_rfc1628_recordings(name: str, expected: Expected) -> None:
    model, charge, runtime, load, volts, replace = expected
    snap = ups.parse("ups1", fixture(name), NOW)
    assert snap.source == "snmp:ups"
    assert snap.errors == ()
    (unit,) = snap.ups
    assert unit.name == "ups1"
    assert unit.status is UpsStatus.ONLINE  # upsOutputSource normal(3) in every recording
    assert unit.model == model
    assert unit.charge_percent == charge
    assert unit.runtime_s == runtime
    assert unit.on_battery_s is None  # upsSecondsOnBattery 0: on mains
    assert unit.load_percent == load
    assert unit.input_voltage == volts
    assert unit.battery_replace is replace


def test_rfc1628_on_battery_low() -> None:
    walk = dict(fixture("eaton-93e-80.snmprec"))
    base = ups.UPS_MIB
    walk[(*base, 4, 1, 0)] = 5  # battery
    walk[(*base, 2, 1, 0)] = 3  # batteryLow
    walk[(*base, 2, 2, 0)] = 300
    walk[(*base, 2, 3, 0)] = 0
    (unit,) = ups.parse("u", walk, NOW).ups
    assert unit.status is UpsStatus.BATTERY_LOW
    assert unit.on_battery_s == 300.0
    assert unit.runtime_s == 0.0  # a real zero when the battery is low
    walk[(*base, 2, 1, 0)] = 2
    assert ups.parse("u", walk, NOW).ups[0].status is UpsStatus.ON_BATTERY
    walk[(*base, 4, 1, 0)] = 4
    assert ups.parse("u", walk, NOW).ups[0].status is UpsStatus.BYPASS


def test_ups_without_ups_mib_reports_an_error() -> None:
    snap = ups.parse("u", fixture("netsnmp-lab.snmprec"), NOW)
    assert snap.ups == ()
    assert len(snap.errors) == 1
    assert snap.errors[0].source == "snmp:ups"


def test_apc_online_synthetic() -> None:
    snap = apc.parse("apc1", fixture("apc-synthetic.snmprec"), NOW)
    assert snap.source == "snmp:apc"
    (unit,) = snap.ups
    assert unit.status is UpsStatus.ONLINE
    assert unit.model == "Smart-UPS 1500 RM"
    assert unit.charge_percent == 100.0
    assert unit.runtime_s == 2520.0  # 252000 ticks
    assert unit.on_battery_s is None
    assert unit.load_percent == 34.0
    assert unit.input_voltage == 231.0
    assert unit.battery_replace is False
    assert [(s.name, s.value) for s in snap.sensors] == [("UPS battery", 27.0)]


def test_apc_on_battery_low_synthetic() -> None:
    snap = apc.parse("apc1", fixture("apc-synthetic-onbattery.snmprec"), NOW)
    (unit,) = snap.ups
    assert unit.status is UpsStatus.BATTERY_LOW
    assert unit.charge_percent == 8.0
    assert unit.runtime_s == 90.0
    assert unit.on_battery_s == 540.0
    assert unit.input_voltage == 0.0
    assert unit.battery_replace is True
    assert snap.sensors == ()  # 255: no sensor
