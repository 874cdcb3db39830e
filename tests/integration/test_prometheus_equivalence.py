"""The shipped alerting rules raise what nastui raises: for every scenario (and the demo's
fleet), the exposition goes into `promtool test rules` as input series, and the alerts the
rules fire (Prometheus's ALERTS series) must be the ones nastui's own assessment gave, entity
by entity. Timestamps are shifted so that the snapshot is "now" at the evaluation time."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from nastui.core.assess import assess, fleet_alerts
from nastui.core.metrics import render as prometheus
from nastui.model import (
    Alert,
    CollectorError,
    Health,
    HostSnapshot,
    Thresholds,
    Ups,
    UpsStatus,
    worst,
)
from nastui.sim import SCENARIOS, SimBackend
from nastui.sim.fleet import SimFleet
from tests.integration.test_prometheus_tools import RULES, promtool

EVAL_S = 600  # the snapshot's time in promtool's clock (10m)
ENTITY = ("host", "drive", "pool", "bay", "fan", "ups", "vdev")
_UPS = {
    UpsStatus.ON_BATTERY: "NastuiUpsOnBattery",
    UpsStatus.BATTERY_LOW: "NastuiUpsBatteryLow",
    UpsStatus.OFF: "NastuiUpsOff",
    UpsStatus.BYPASS: "NastuiUpsBypass",
}
_POOL = {
    ("state", Health.WARNING): "NastuiPoolDegraded",
    ("state", Health.CRITICAL): "NastuiPoolFailed",
    ("state", Health.UNKNOWN): "NastuiPoolUnknown",
    ("capacity", Health.WARNING): "NastuiPoolFilling",
    ("capacity", Health.CRITICAL): "NastuiPoolFull",
    ("files", Health.CRITICAL): "NastuiPoolDataErrors",
    ("scan", Health.WARNING): "NastuiPoolScanErrors",
}

pytestmark = pytest.mark.integration
Key = tuple[tuple[str, str], ...]


def _key(rule: str, **labels: str) -> Key:
    return (("alertname", rule), *sorted(labels.items()))


def _pool_rule(alert: Alert, snap: HostSnapshot, host: str) -> Key | None:
    _, pool, finding = alert.key.split(":", 2)
    if finding.startswith("vdev:"):
        return _key("NastuiPoolDeviceErrors", host=host, pool=pool, vdev=finding[5:])
    if finding == "scrub-age":
        never = alert.message.startswith("no completed scrub")
        return _key("NastuiScrubNeverRun" if never else "NastuiScrubOverdue", host=host, pool=pool)
    rule = _POOL.get((finding, alert.health))
    return None if rule is None else _key(rule, host=host, pool=pool)


def _rule_of(alert: Alert, snap: HostSnapshot, host: str) -> Key | None:
    """The shipped rule that stands for one of nastui's alerts (None: no rule for it)."""
    kind, _, rest = alert.key.partition(":")
    if kind == "drive":
        drive, _, finding = rest.partition(":")
        if finding == "temp":
            hot = "NastuiDriveTooHot" if alert.health is Health.CRITICAL else "NastuiDriveHot"
            return _key(hot, host=host, drive=drive)
        return None  # every drive finding is in the drive's verdict: see `expected`
    if kind == "bay":
        return _key("NastuiBayMissing", host=host, bay=rest.split(":")[0])
    if kind == "pool":
        return _pool_rule(alert, snap, host)
    if kind == "fan":
        return _key("NastuiFanStalled", host=host, fan=rest.rsplit(":", 1)[0])
    if kind == "ups":
        name, _, finding = rest.rpartition(":")
        if finding == "battery":
            return _key("NastuiUpsBatteryReplace", host=host, ups=name)
        status = next(u.status for u in snap.ups if u.name == name)
        return _key(_UPS[status], host=host, ups=name)
    if kind == "collect":
        return _key("NastuiCollectorErrors", host=host)
    if alert.key == "host:unreachable":
        return _key("NastuiHostUnreachable", host=host)
    raise AssertionError(f"no rule stands for nastui's alert {alert.key}")


def expected(snap: HostSnapshot, host: str, alerts: tuple[Alert, ...]) -> Counter[Key]:
    found: Counter[Key] = Counter()
    rule = {
        Health.WARNING: "NastuiDriveWarning",
        Health.CRITICAL: "NastuiDriveCritical",
        Health.UNKNOWN: "NastuiDriveUnknown",
    }
    for drive in snap.drives:
        mine = [
            a.health
            for a in alerts
            if not a.acknowledged and a.key.split(":")[:2] == ["drive", drive.key]
        ]
        if mine:  # one drive rule for all its findings, at the worst one's level
            bay = snap.bay_of(drive.key)  # the rule names the bay (from nastui_drive_info)
            where = {"bay": str(bay)} if bay is not None else {}
            found[_key(rule[worst(mine)], host=host, drive=drive.key, **where)] = 1
    for alert in alerts:
        if not alert.acknowledged:
            key = _rule_of(alert, snap, host)
            if key is not None:
                found[key] = 1
    return found


def series(text: str, shift: float) -> list[dict[str, str]]:
    """promtool input series from exposition text (timestamps moved by `shift`)."""
    out = []
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        selector, value = line.rsplit(" ", 1)
        number = float(value)
        if selector.split("{")[0].endswith("_timestamp_seconds"):
            number -= shift
        out.append({"series": selector, "values": f"{number!r}x20"})
    return out


def run_rules(tmp_path: Path, text: str, shift: float, want: Counter[Key]) -> None:
    by = ", ".join(("alertname", *ENTITY))
    samples = [
        {"labels": "{" + ",".join(f'{k}="{v}"' for k, v in key) + "}", "value": count}
        for key, count in sorted(want.items())
    ]
    test = {
        "rule_files": [str(RULES)],
        "evaluation_interval": "1m",
        "tests": [
            {
                "interval": "1m",
                "input_series": series(text, shift),
                "promql_expr_test": [
                    {
                        "expr": f'count by ({by}) (ALERTS{{alertstate="firing"}})',
                        "eval_time": f"{EVAL_S}s",
                        "exp_samples": samples,
                    }
                ],
            }
        ],
    }
    path = tmp_path / "equivalence.test.yml"
    path.write_text(json.dumps(test))  # JSON is YAML
    done = promtool("test", "rules", str(path))
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_rules_fire_what_nastui_alerts(name: str, tmp_path: Path) -> None:
    limits = Thresholds()
    raw = SimBackend(name).snapshot()
    snap = assess(raw, limits, raw.taken_at)
    want = expected(snap, snap.host, snap.alerts)
    text = prometheus.render(snap, limits)
    run_rules(tmp_path, text, snap.taken_at - EVAL_S, want)


def test_the_fleet_too(tmp_path: Path) -> None:
    """The demo's fleet where it shows problems: a NAS, an archive box with a degraded pool,
    a UPS and an unreachable host; each host's alerts as the daemon has them (its assessment
    and "unreachable")."""
    limits = Thresholds()
    raw = SimBackend("failing-drive").snapshot()
    snap = assess(raw, limits, raw.taken_at)
    want = expected(snap, snap.host, snap.alerts)
    hosts = []
    for member in asyncio.run(SimFleet("failing-drive", limits=limits).poll()):
        alerts = fleet_alerts(member, snap.taken_at)
        seen = member.snapshot or HostSnapshot(member.name, 0.0)
        want += expected(seen, member.name, alerts)
        if member.snapshot is not None:
            hosts.append(replace(member, snapshot=replace(member.snapshot, alerts=alerts)))
        else:
            hosts.append(member)
    assert _key("NastuiHostUnreachable", host="offsite") in want
    text = prometheus.render(snap, limits, hosts)
    run_rules(tmp_path, text, snap.taken_at - EVAL_S, want)


def test_everything_wrong_at_once(tmp_path: Path) -> None:
    """The "mixed" box with a full pool, an old scrub, a pool never scrubbed, data errors, a
    drive over its critical temperature, a collector that failed and a UPS about to die."""
    limits = Thresholds()
    raw = SimBackend("mixed").snapshot()
    now = raw.taken_at
    first, second, *rest = raw.pools
    assert first.size_bytes is not None and first.last_scrub is not None
    old = replace(first.last_scrub, ended_at=now - 40 * 86400.0)
    pools = (
        replace(first, allocated_bytes=first.size_bytes * 95 // 100, last_scrub=old, scan=None),
        replace(second, last_scrub=None, scan=None, error_count=3),
        *rest,
    )
    hot = next(d for d in raw.drives if d.identity.rotational and d.temperature is not None)
    assert hot.temperature is not None
    drives = tuple(
        replace(d, temperature=replace(hot.temperature, celsius=61.0)) if d is hot else d
        for d in raw.drives
    )
    ups = (Ups("rack", UpsStatus.BATTERY_LOW, charge_percent=8.0, battery_replace=True),)
    broken = replace(
        raw, pools=pools, drives=drives, ups=ups, errors=(CollectorError("zfs", "zpool: gone"),)
    )
    snap = assess(broken, limits, now)
    want = expected(snap, snap.host, snap.alerts)
    rules = {dict(k)["alertname"] for k in want}
    assert {
        "NastuiPoolFull",
        "NastuiScrubOverdue",
        "NastuiDriveTooHot",
        "NastuiDriveCritical",
        "NastuiUpsBatteryLow",
        "NastuiUpsBatteryReplace",
        "NastuiCollectorErrors",
        "NastuiPoolDataErrors",
    } <= rules, rules
    run_rules(tmp_path, prometheus.render(snap, limits), now - EVAL_S, want)
