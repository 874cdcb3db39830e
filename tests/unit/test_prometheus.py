"""The Prometheus text exposition: checked by a strict parser of the format and by
prometheus_client's own parser on every scenario; the naming conventions (base units, state
sets, one label set per entity) and the fleet. `promtool check metrics` (the real peer) runs
in tests/integration/test_prometheus_tools.py."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace

import pytest
from prometheus_client.parser import text_string_to_metric_families

from nastui.core.assess import assess
from nastui.core.metrics import render as prometheus
from nastui.core.metrics.families import NAMES
from nastui.model import (
    Alert,
    CollectorError,
    Fan,
    FleetHost,
    Health,
    HostSnapshot,
    PoolState,
    ScanKind,
    ScanState,
    Subject,
    Thresholds,
    Ups,
    UpsStatus,
)
from nastui.sim import SCENARIOS, SimBackend

# Sample: nastui_fan_rpm{host="h",fan="a"} 1200
_SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$")
# Sample: drive="PK1334",dev="sdc"
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\\\|\\"|\\n)*)"(,|$)')
# Sample: # HELP nastui_fan_rpm Fan speed
_HELP = re.compile(r"^# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$")
# Sample: # TYPE nastui_fan_rpm gauge
_TYPE = re.compile(r"^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (gauge|counter|untyped)$")


@dataclass
class Parsed:
    help: dict[str, str]
    samples: dict[tuple[str, tuple[tuple[str, str], ...]], float]


def unescape(text: str) -> str:
    return re.sub(r"\\(.)", lambda m: {"n": "\n"}.get(m[1], m[1]), text)


def labels_of(text: str) -> tuple[tuple[str, str], ...]:
    found: list[tuple[str, str]] = []
    pos = 0
    while pos < len(text):
        match = _LABEL.match(text, pos)
        assert match is not None, f"bad labels at {text[pos:]!r}"
        found.append((match[1], unescape(match[2])))
        pos = match.end()
    names = [n for n, _ in found]
    assert len(names) == len(set(names)), f"repeated label in {text!r}"
    return tuple(found)


def parse(text: str) -> Parsed:
    """A strict reader: HELP then TYPE before each family's samples, families contiguous, no
    timestamps, no duplicate series, every line ends in a newline."""
    assert text.endswith("\n")
    result = Parsed({}, {})
    current: str | None = None
    typed: set[str] = set()
    for line in text.splitlines():
        if line.startswith("# HELP"):
            match = _HELP.match(line)
            assert match, line
            assert match[1] not in result.help, f"family {match[1]} twice"
            result.help[match[1]] = match[2]
            current = match[1]
        elif line.startswith("# TYPE"):
            match = _TYPE.match(line)
            assert match and match[1] == current, line
            typed.add(match[1])
        else:
            match = _SAMPLE.match(line)
            assert match, f"not a sample: {line!r}"
            assert match[1] == current and current in typed, f"sample outside its family: {line}"
            key = (match[1], labels_of(match[2] or ""))
            assert key not in result.samples, f"duplicate series {line}"
            result.samples[key] = float(match[3])
    return result


def assessed(name: str) -> HostSnapshot:
    raw = SimBackend(name).snapshot()
    return assess(raw, Thresholds(), raw.taken_at)


def series(parsed: Parsed, metric: str) -> dict[tuple[tuple[str, str], ...], float]:
    return {labels: v for (m, labels), v in parsed.samples.items() if m == metric}


def one(parsed: Parsed, metric: str, **labels: str) -> float:
    return parsed.samples[(metric, tuple(labels.items()))]


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_every_scenario_is_valid_exposition(name: str) -> None:
    snap = assessed(name)
    text = prometheus.render(snap, Thresholds())
    parsed = parse(text)
    assert set(parsed.help) <= set(NAMES)
    assert one(parsed, "nastui_snapshot_timestamp_seconds", host=snap.host) == snap.taken_at
    temps = {
        dict(labels)["drive"]: value
        for labels, value in series(parsed, "nastui_drive_temperature_celsius").items()
    }
    assert temps == {d.key: d.temperature.celsius for d in snap.drives if d.temperature}
    for pool in snap.pools:
        states = series(parsed, "nastui_pool_state")
        mine = {dict(lb)["state"]: v for lb, v in states.items() if dict(lb)["pool"] == pool.name}
        assert mine == {s.value: (1 if s is pool.state else 0) for s in PoolState}
    # prometheus_client's own parser reads the same families and samples
    theirs = {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }
    ours = {(m, tuple(sorted(lb))): v for (m, lb), v in parsed.samples.items()}
    assert theirs == ours


def test_conventions_base_units_and_one_label_set_per_entity() -> None:
    parsed = parse(prometheus.render(assessed("mixed"), Thresholds()))
    for name in NAMES:
        assert not re.search(r"percent|hours|_minutes|_ms$|celsius_", name), name
    entity = {"drive": ("host", "drive"), "pool": ("host", "pool"), "fan": ("host", "fan")}
    entity |= {"ups": ("host", "ups"), "bay": ("host", "bay")}
    for (metric, labels), _ in parsed.samples.items():
        names = tuple(n for n, _ in labels)
        kind = metric.split("_")[1]
        if kind in entity and not metric.endswith("_info"):
            assert names[:2] == entity[kind], (metric, names)
            descriptive = {"model", "serial", "dev", "firmware", "kind", "zone"}
            assert not descriptive & set(names), (metric, names)
        assert names[0] == "host", metric


def test_state_changes_never_change_the_series() -> None:
    snap = assessed("scrubbing")
    pool = snap.pools[0]
    assert pool.scan is not None
    worse = replace(
        snap,
        pools=(
            replace(
                pool,
                state=PoolState.DEGRADED,
                scan=replace(pool.scan, kind=ScanKind.RESILVER, state=ScanState.FINISHED),
            ),
        ),
    )
    sets = ("nastui_pool_state", "nastui_pool_scan_state", "nastui_pool_scan_kind")
    before, after = parse(prometheus.render(snap)), parse(prometheus.render(worse))
    for metric in sets:
        assert series(before, metric).keys() == series(after, metric).keys()
        assert series(before, metric) != series(after, metric)
        assert sum(series(after, metric).values()) == 1
    assert one(after, "nastui_pool_state", host="nano", pool=pool.name, state="DEGRADED") == 1


def test_base_units() -> None:
    snap = assessed("scrubbing")
    parsed = parse(prometheus.render(snap))
    scan = snap.pools[0].scan
    assert scan is not None and scan.percent is not None and scan.eta_seconds is not None
    ids = {"host": snap.host, "pool": snap.pools[0].name}
    ratio = one(parsed, "nastui_pool_scan_progress_ratio", **ids)
    assert ratio == pytest.approx(scan.percent / 100)
    assert one(parsed, "nastui_pool_scan_eta_seconds", **ids) == pytest.approx(scan.eta_seconds)
    drive = next(d for d in snap.drives if d.power_on_hours)
    seconds = one(parsed, "nastui_drive_power_on_seconds", host=snap.host, drive=drive.key)
    assert drive.power_on_hours is not None and seconds == drive.power_on_hours * 3600


def test_limits_follow_the_configuration() -> None:
    snap = assessed("mixed")
    parsed = parse(prometheus.render(snap, Thresholds()))
    limits = series(parsed, "nastui_drive_temperature_limit_celsius")
    hdd = next(d for d in snap.drives if d.identity.rotational)
    ids = {"host": snap.host, "drive": hdd.key}
    hdd_limits = Thresholds().temps[hdd.identity.drive_class]
    assert limits[tuple({**ids, "severity": "warning"}.items())] == hdd_limits.warning
    assert limits[tuple({**ids, "severity": "critical"}.items())] == hdd_limits.critical
    caps = series(parsed, "nastui_pool_capacity_limit_ratio")
    assert sorted(set(caps.values())) == [0.8, 0.9]
    assert set(series(parsed, "nastui_pool_scrub_max_age_seconds").values()) == {35 * 86400}
    assert "nastui_pool_capacity_limit_ratio" not in parse(prometheus.render(snap)).help


def test_health_help_gives_the_mapping() -> None:
    parsed = parse(prometheus.render(assessed("failing-drive")))
    assert "0 ok, 1 warning, 2 critical, 3 unknown" in parsed.help["nastui_drive_health"]
    health = series(parsed, "nastui_drive_health").values()
    assert 1 in health or 2 in health
    raws = {dict(lb)["id"] for lb in series(parsed, "nastui_drive_smart_attribute_raw")}
    assert {"5", "197"} <= raws
    info = series(parsed, "nastui_drive_info")
    assert info and set(info.values()) == {1}
    assert all({"dev", "bay", "model", "serial"} <= dict(lb).keys() for lb in info)


def test_fleet_hosts_and_their_upses_are_exported() -> None:
    local = HostSnapshot("here", 10.0)
    ups_box = HostSnapshot(
        "ignored",
        9.0,
        ups=(Ups("rack", UpsStatus.ON_BATTERY, charge_percent=55.0, load_percent=20.0),),
        alerts=(Alert("ups:rack:power", Health.WARNING, Subject.UPS, "rack", "x", 1.0),),
    )
    fleet = (
        FleetHost("ups1", "10.0.0.9:161", "ups", ups_box, 9.0, 9.0),
        FleetHost("gone", "10.0.0.8:161", "synology", None, 9.0, None, "no answer"),
        FleetHost("here", "127.0.0.1:161", "nastui", local, 9.0, 9.0),
    )
    parsed = parse(prometheus.render(local, fleet=fleet))
    assert series(parsed, "nastui_host_up") == {
        (("host", "here"),): 1,
        (("host", "ups1"),): 1,
        (("host", "gone"),): 0,
    }
    assert one(parsed, "nastui_host_health", host="ups1") == 1
    assert one(parsed, "nastui_ups_battery_charge_ratio", host="ups1", ups="rack") == 0.55
    assert one(parsed, "nastui_ups_load_ratio", host="ups1", ups="rack") == 0.2
    status = series(parsed, "nastui_ups_status")
    assert status[(("host", "ups1"), ("ups", "rack"), ("status", "on_battery"))] == 1
    assert sum(status.values()) == 1 and len(status) == len(UpsStatus)
    assert one(parsed, "nastui_host_last_contact_timestamp_seconds", host="ups1") == 9


def test_labels_are_escaped_and_duplicates_dropped() -> None:
    nasty = 'fan "1"\\back\nslash'
    snap = HostSnapshot(
        "h",
        10.0,
        fans=(Fan(nasty, rpm=1200, duty_percent=40.5), Fan(nasty, rpm=1, duty_percent=1.0)),
        ups=(Ups("u", UpsStatus.ON_BATTERY, charge_percent=None, runtime_s=600.0),),
        alerts=(Alert("k", Health.CRITICAL, Subject.UPS, "u", "on battery", 1.0),),
        errors=(CollectorError("zfs", "missing"),),
    )
    text = prometheus.render(snap)
    assert 'fan="fan \\"1\\"\\\\back\\nslash"' in text
    parsed = parse(text)
    assert one(parsed, "nastui_fan_rpm", host="h", fan=nasty) == 1200
    assert one(parsed, "nastui_fan_duty_ratio", host="h", fan=nasty) == 0.405
    assert one(parsed, "nastui_alerts", host="h", health="critical") == 1
    assert one(parsed, "nastui_collector_errors", host="h") == 1
    assert one(parsed, "nastui_ups_runtime_seconds", host="h", ups="u") == 600
    assert ("nastui_ups_battery_charge_ratio", (("host", "h"), ("ups", "u"))) not in parsed.samples
    assert "nastui_drive_temperature_celsius" not in parsed.help  # no drives, no family


def test_help_escaping_and_values() -> None:
    assert prometheus.escape_help("a\\b\nc") == "a\\\\b\\nc"
    assert prometheus.format_value(3.0) == "3"
    assert prometheus.format_value(2.5) == "2.5"
    assert prometheus.format_value(math.nan) == "NaN"
    assert prometheus.format_value(-math.inf) == "-Inf"


def test_acknowledged_alerts_are_not_counted() -> None:
    alert = Alert("k", Health.WARNING, Subject.HOST, "h", "x", 1.0)
    snap = HostSnapshot("h", 1.0, alerts=(alert, replace(alert, key="j", acknowledged=True)))
    parsed = parse(prometheus.render(snap))
    assert one(parsed, "nastui_alerts", host="h", health="warning") == 1
