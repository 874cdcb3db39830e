"""The Prometheus text exposition: checked by a strict parser of the format, on every scenario."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace

import pytest

from nastui.core import prometheus
from nastui.core.assess import assess
from nastui.model import (
    Alert,
    CollectorError,
    Fan,
    Health,
    HostSnapshot,
    Subject,
    Thresholds,
    Ups,
    UpsStatus,
)
from nastui.sim import SCENARIOS, SimBackend

# Sample: nastui_fan_rpm{fan="a",zone=""} 1200
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


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_every_scenario_is_valid_exposition(name: str) -> None:
    snap = assessed(name)
    parsed = parse(prometheus.render(snap))
    assert all(n.startswith("nastui_") for n in parsed.help)
    assert parsed.samples[("nastui_snapshot_timestamp_seconds", ())] == snap.taken_at
    temps = {
        dict(labels)["drive"]: value
        for (metric, labels), value in parsed.samples.items()
        if metric == "nastui_drive_temperature_celsius"
    }
    assert temps == {d.key: d.temperature.celsius for d in snap.drives if d.temperature}
    for pool in snap.pools:
        key = (
            "nastui_pool_state",
            (("pool", pool.name), ("kind", pool.kind.value), ("state", pool.state.value)),
        )
        assert parsed.samples[key] == 1


def test_health_help_gives_the_mapping() -> None:
    parsed = parse(prometheus.render(assessed("failing-drive")))
    assert "0 ok, 1 warning, 2 critical, 3 unknown" in parsed.help["nastui_drive_health"]
    health = [v for (m, _), v in parsed.samples.items() if m == "nastui_drive_health"]
    assert 1 in health or 2 in health
    raws = {
        dict(lb)["id"]
        for (m, lb), _ in parsed.samples.items()
        if m == "nastui_drive_smart_attribute_raw"
    }
    assert {"5", "197"} <= raws


def test_scan_progress_and_eta() -> None:
    snap = assessed("scrubbing")
    parsed = parse(prometheus.render(snap))
    scan = snap.pools[0].scan
    assert scan is not None and scan.percent is not None and scan.eta_seconds is not None
    percent = [v for (m, _), v in parsed.samples.items() if m == "nastui_pool_scan_percent"]
    assert percent == [pytest.approx(scan.percent)]
    assert parsed.samples[("nastui_pool_scan_eta_seconds", (("pool", snap.pools[0].name),))] == (
        pytest.approx(scan.eta_seconds)
    )


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
    assert parsed.samples[("nastui_fan_rpm", (("fan", nasty), ("zone", "")))] == 1200
    assert parsed.samples[("nastui_fan_duty_percent", (("fan", nasty), ("zone", "")))] == 40.5
    assert parsed.samples[("nastui_alerts", (("health", "critical"),))] == 1
    assert parsed.samples[("nastui_collector_errors", ())] == 1
    assert parsed.samples[("nastui_ups_status", (("ups", "u"), ("status", "on battery")))] == 1
    assert ("nastui_ups_battery_charge_percent", (("ups", "u"),)) not in parsed.samples
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
    assert parsed.samples[("nastui_alerts", (("health", "warning"),))] == 1
