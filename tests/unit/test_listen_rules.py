"""Alerts that listen (pure parts): capacity alerts and time to full, virtual disks and ignore
rules, acknowledgements applied in assessment, performance data, the acks file, the demo's
state directory, and the `[collectors]`/`[pools]` configuration."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from nastui.cli.configcheck import describe
from nastui.cli.statusview import render_status
from nastui.config import ConfigError, parse_config
from nastui.control import acks as ack_file
from nastui.core import perfdata
from nastui.core.ack import ack_alert, decode, decode_alerts, encode
from nastui.core.assess import assess, overall
from nastui.core.capacity import capacity, metric, time_to_full
from nastui.core.drivepolicy import VIRTUAL_NOTE, apply_policy, is_virtual
from nastui.core.glyphs import ASCII
from nastui.core.health import drive_verdict
from nastui.core.statefiles import demo_state_dir
from nastui.history.db import History
from nastui.model import (
    UNASSESSED,
    Acknowledgement,
    CapacityLimits,
    CollectorMode,
    Drive,
    DriveIdentity,
    Health,
    HostSnapshot,
    IgnoreRule,
    Pool,
    PoolKind,
    PoolPolicy,
    PoolState,
    Reason,
    Thresholds,
    Transport,
    Vdev,
    Verdict,
)

NOW = 1_800_000_000.0
DAY = 86400.0
ROOT = Vdev("tank", "root", PoolState.ONLINE)


def pool(used: int, size: int = 100, name: str = "tank") -> Pool:
    return Pool(name, PoolKind.ZFS, PoolState.ONLINE, ROOT, size_bytes=size, allocated_bytes=used)


DEFAULTS = Thresholds()


def alerts_of(
    snapshot: HostSnapshot, limits: Thresholds = DEFAULTS, suffix: str = ""
) -> dict[str, str]:
    return {
        a.key: f"{a.health.name} {a.message}"
        for a in assess(snapshot, limits, NOW).alerts
        if a.key.endswith(suffix)
    }


# ------------------------------------------------------------------ capacity


@pytest.mark.parametrize(
    ("used", "expected"),
    [
        (79, None),
        (80, (Health.WARNING, "80% full (warning 80%)", 80)),
        (89, (Health.WARNING, "89% full (warning 80%)", 89)),
        (90, (Health.CRITICAL, "90% full (critical 90%)", 90)),
    ],
)
def test_capacity_thresholds(used: int, expected: tuple[Health, str, int] | None) -> None:
    assert capacity(pool(used), PoolPolicy()) == expected


def test_capacity_per_pool_override_and_unknown_usage() -> None:
    policy = PoolPolicy(per_pool=(("backup", CapacityLimits(95, 98)),))
    assert capacity(pool(90, name="backup"), policy) is None
    assert capacity(pool(90), policy) is not None
    unknown = Pool("md0", PoolKind.MDRAID, PoolState.ONLINE, ROOT, size_bytes=100)
    assert capacity(unknown, policy) is None


def test_capacity_alerts_for_every_kind() -> None:
    pools = (
        pool(85),
        dataclasses.replace(pool(95, name="md0"), kind=PoolKind.MDRAID),
        dataclasses.replace(pool(50, name="fast"), kind=PoolKind.BTRFS),
    )
    found = alerts_of(HostSnapshot("nas", NOW, pools=pools), suffix=":capacity")
    assert found == {
        "pool:tank:capacity": "WARNING 85% full (warning 80%)",
        "pool:md0:capacity": "CRITICAL 95% full (critical 90%)",
    }


def test_time_to_full_from_usage_samples() -> None:
    steady = [(NOW - DAY * (6 - d), 40.0 + 5 * d) for d in range(7)]  # 5 points a day
    left = time_to_full(steady, NOW)
    assert left is not None and round(left / DAY) == 6  # 70 % now, 30 to go
    assert time_to_full([(NOW - 60, 50.0), (NOW, 51.0)], NOW) is None  # a minute says nothing
    assert time_to_full([(NOW - DAY, 60.0), (NOW, 50.0)], NOW) is None  # emptying
    assert time_to_full([(NOW - 30 * DAY, 10.0), (NOW - 20 * DAY, 90.0)], NOW) is None  # old


def test_usage_history_gives_a_time_to_full_in_status(tmp_path: Path) -> None:
    """The daemon's history keeps "used:POOL"; status turns it into "full in ~"."""
    history = History.open(tmp_path / "history.sqlite")
    for day in range(7):
        at = NOW - DAY * (6 - day)
        history.record(HostSnapshot("nas", at, pools=(pool(40 + 5 * day),)))
    samples = history.samples("nas", metric("tank"), NOW - 7 * DAY)
    history.close()
    assert [v for _, v in samples] == [40.0, 45.0, 50.0, 55.0, 60.0, 65.0, 70.0]
    left = time_to_full(samples, NOW)
    snapshot = assess(HostSnapshot("nas", NOW, pools=(pool(70),)), Thresholds(), NOW)
    text = render_status(snapshot, ASCII, full_in={"tank": left})
    assert "tank zfs ONLINE, 70% of 100 B, no scrub on record, full in ~6d00h" in text


# ------------------------------------------------------------------ virtual disks, ignore rules


@pytest.mark.parametrize(
    "identity",
    [
        DriveIdentity(transport=Transport.VIRTUAL),
        DriveIdentity(model="QEMU HARDDISK"),
        DriveIdentity(model="Virtual disk", vendor="VMware"),
        DriveIdentity(model="VMware Virtual S", vendor="VMware,"),
        DriveIdentity(model="Virtual Disk", vendor="Msft"),
        DriveIdentity(model="VBOX HARDDISK"),
    ],
)
def test_virtual_disks_are_recognised(identity: DriveIdentity) -> None:
    assert is_virtual(identity)


def test_real_drives_are_not_virtual() -> None:
    for model in ("HGST HUS724040ALA640", "Samsung SSD 970 EVO", "WDC WD40EFRX-68", None):
        assert not is_virtual(DriveIdentity(model=model, transport=Transport.SATA))


def test_a_virtual_disk_without_smart_is_ok_not_unknown() -> None:
    vda = Drive("vda", DriveIdentity(transport=Transport.VIRTUAL), smart_problem="no SMART")
    snapshot = assess(HostSnapshot("vm", NOW, drives=(vda,)), Thresholds(), NOW)
    assert snapshot.alerts == ()
    assert overall(snapshot) is Health.OK
    (reason,) = snapshot.drives[0].verdict.reasons
    assert (reason.health, reason.text) == (Health.OK, VIRTUAL_NOTE)


def test_ignore_rules_by_serial_model_and_bay() -> None:
    drive = Drive("sdc", DriveIdentity(model="ST8000DM004-2CX1", serial="ZA1"))
    verdict = drive_verdict(drive, Thresholds(), NOW)
    crc = Reason(Health.WARNING, "UDMA_CRC_Error_Count 12", "attr:199", 12)
    bad = Verdict.of((crc, *verdict.reasons))
    keys = {r.key for r in bad.reasons if r.health is not Health.OK}
    assert keys == {"attr:199", "no-smart"}
    by_model = IgnoreRule(model="ST8000DM004*", findings=frozenset({"attr:199"}))
    kept = apply_policy(drive, bad, [by_model], None)
    assert {r.key for r in kept.reasons if r.health is not Health.OK} == {"no-smart"}
    assert any(r.text.endswith("(ignored)") for r in kept.reasons)
    whole_bay = IgnoreRule(bay=3)
    assert apply_policy(drive, bad, [whole_bay], 3).health is Health.OK
    assert apply_policy(drive, bad, [whole_bay], 4) == bad
    other_serial = IgnoreRule(serial="ZA2", model="ST8000DM004*")
    assert apply_policy(drive, bad, [other_serial], None) == bad


def test_ignored_findings_make_no_alerts() -> None:
    drive = Drive("sdc", DriveIdentity(model="WDC WD40EFRX-68", serial="W1"))
    limits = Thresholds(ignore=(IgnoreRule(serial="W1", findings=frozenset({"no-smart"})),))
    snapshot = HostSnapshot("nas", NOW, drives=(drive,))
    assert alerts_of(snapshot) == {"drive:W1:no-smart": "UNKNOWN WDC WD40EFRX-68 W1: no SMART data"}
    assert alerts_of(snapshot, limits) == {}


# ------------------------------------------------------------------ acknowledgements


def test_alert_acks_are_applied_in_assessment() -> None:
    snapshot = HostSnapshot("nas", NOW, pools=(pool(85),))
    alert = assess(snapshot, Thresholds(), NOW).alerts[0]  # then "no scrub on record"
    ack = ack_alert(alert, NOW, "ordering disks")
    assert ack.key == "nas/pool:tank:capacity" and ack.value == 85
    age = ack_alert(assess(snapshot, Thresholds(), NOW).alerts[1], NOW)
    assert age.key == "nas/pool:tank:scrub-age" and age.value is None
    acked = assess(snapshot, Thresholds(), NOW, acks=[ack, age])
    assert all(a.acknowledged for a in acked.alerts) and overall(acked) is Health.OK
    fuller = HostSnapshot("nas", NOW, pools=(pool(86),))
    grown = assess(fuller, Thresholds(), NOW, acks=[ack, age])
    assert not grown.alerts[0].acknowledged and overall(grown) is Health.WARNING
    lapsed = dataclasses.replace(ack, expires_at=NOW - 1)
    assert overall(assess(snapshot, Thresholds(), NOW, acks=[lapsed, age])) is Health.WARNING


def test_acks_file_keeps_both_kinds(tmp_path: Path) -> None:
    reason = Reason(Health.WARNING, "Current_Pending_Sector 8", "attr:197", 8)
    ack_file.acknowledge(tmp_path, "PK1", [reason], NOW)
    alert_ack = Acknowledgement("nas/pool:tank:capacity", 85, NOW, "", NOW + DAY)
    ack_file.add_alert_ack(tmp_path, alert_ack)
    ack_file.acknowledge(tmp_path, "PK2", [reason], NOW)  # a drive ack keeps the alert acks
    drives, alerts = ack_file.load_all(tmp_path)
    assert sorted(drives) == ["PK1", "PK2"] and alerts == (alert_ack,)
    text = (tmp_path / "acks.json").read_text()
    assert json.loads(text)["alerts"][0]["expires_at"] == NOW + DAY
    assert decode(text, "x") == drives and decode_alerts(text, "x") == alerts
    assert ack_file.remove_alert_ack(tmp_path, alert_ack.key)
    assert not ack_file.remove_alert_ack(tmp_path, alert_ack.key)
    assert ack_file.load_all(tmp_path) == (drives, ())
    assert "alerts" not in json.loads(encode(drives))  # an older reader's file is unchanged


def test_demo_state_dir_is_never_the_machines() -> None:
    home = {"HOME": "/home/op"}
    assert demo_state_dir(home, "hot-bay") == Path("/home/op/.local/state/nastui/demo/hot-bay")
    xdg = {**home, "XDG_STATE_HOME": "/x"}
    assert demo_state_dir(xdg, "mixed") == Path("/x/nastui/demo/mixed")
    assert demo_state_dir({"NASTUI_STATE_DIR": "/t"}, "mixed") == Path("/t")
    assert demo_state_dir({}, "mixed") is None  # keeps no state, never /var/lib/nastui


def test_unassessed_sentinel_is_what_session_acks_target() -> None:
    assert Drive("sda", DriveIdentity()).verdict == UNASSESSED


# ------------------------------------------------------------------ performance data


def test_perfdata_items_and_labels() -> None:
    assert perfdata.item("drives", 24, low=0) == "'drives'=24;;;0"
    assert perfdata.item("temp bay 13", 41.0, "C", warn=45, crit=50) == "'temp_bay_13'=41C;45;50"
    assert perfdata.item("pool_x", 83.25, "%", warn=80, crit=90, low=0, high=100) == (
        "'pool_x'=83.25%;80;90;0;100"
    )
    assert perfdata.label("it's=bad|pool") == "'it_s_bad_pool'"
    assert perfdata.text("a | b\nc") == "a / b c"


# ------------------------------------------------------------------ configuration


def test_collectors_and_pools_sections() -> None:
    config = parse_config(
        "[collectors]\nzfs = false\nbtrfs = true\n[[collectors.ignore]]\nbay = 3\n"
        'findings = [199, "temp"]\n[pools]\ncapacity_warning = 85\n'
        '[[pools.pool]]\nname = "backup"\ncapacity_critical = 99\n',
        Path("config.toml"),
    )
    switches = config.collectors
    assert (switches.zfs, switches.md, switches.btrfs) == (
        CollectorMode.OFF,
        CollectorMode.AUTO,
        CollectorMode.ON,
    )
    assert config.thresholds.ignore == (
        IgnoreRule(bay=3, findings=frozenset({"attr:199", "temp"})),
    )
    pools = config.thresholds.pools
    assert pools.capacity_for("tank") == CapacityLimits(85, 90)
    assert pools.capacity_for("backup") == CapacityLimits(85, 99)
    said = describe(config)
    assert "collect   zfs off, md auto, btrfs on; 1 ignore rule(s)" in said
    assert "capacity  warn at 85%, critical at 90%, 1 pool(s) with their own" in said


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '[collectors]\nzfs = "yes"\n',
            'config.toml:2: collectors.zfs must be "auto", true or false',
        ),
        ("[[collectors.ignore]]\nfindings = [199]\n", "needs serial, model or bay"),
        ('[[collectors.ignore]]\nbay = 1\nfindings = ["Bad Key"]\n', "finding keys"),
        ("[pools]\ncapacity_warning = 95\n", "must be below"),
        ("[pools]\ncapacity_critical = 101\n", "pools.capacity_critical must be"),
    ],
)
def test_collectors_and_pools_errors_name_the_key(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config(text, Path("config.toml"))
    assert message in str(caught.value)


def test_no_text_line_of_status_carries_a_pipe() -> None:
    """A btrfs label, a fan or a message with "|" never starts performance data early."""
    tank = dataclasses.replace(pool(85), name="a|b")
    snapshot = assess(HostSnapshot("n|s", NOW, pools=(tank,)), Thresholds(), NOW)
    lines = render_status(snapshot, ASCII, verbose=True).splitlines()
    assert lines[0].count(" | ") == 1 and lines[0].startswith("NASTUI WARNING - n/s: ")
    assert "'pool_a_b'=85%;80;90;0;100" in lines[0]
    assert all("|" not in line for line in lines[1:])
