"""What nastui hands to the tools around it: a /metrics port of its own, alerting rules that do
not flap, a Grafana dashboard that asks for its data source on import, and the pool
data-error metric wherever the count is known (the simulator's ZFS pools too)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from nastui.core.metrics import render as prometheus
from nastui.daemon.metrics_http import DEFAULT_PORT
from nastui.model import PoolKind
from nastui.sim import SimBackend
from tests.conftest import REPO

RULES = REPO / "contrib" / "prometheus" / "nastui-rules.yml"
DASHBOARD = REPO / "contrib" / "grafana" / "nastui-dashboard.json"

# The rules whose value can flap: one missed poll, a transient error, a reading hovering at a
# limit, a power blip. The others fire at once: nastui's own verdicts are already debounced,
# and battery low or output off cannot wait.
FLAPPING = {
    "NastuiHostUnreachable",
    "NastuiCollectorErrors",
    "NastuiDriveHot",
    "NastuiDriveTooHot",
    "NastuiPoolFilling",
    "NastuiPoolFull",
    "NastuiFanStalled",
    "NastuiUpsOnBattery",
    "NastuiUpsBypass",
}


def test_the_default_metrics_port_is_no_registered_exporters() -> None:
    # Prometheus's registry of exporter ports (9100-9999) is fully allocated: 9633 is
    # smartctl_exporter's. Outside it, below Linux's ephemeral range, in no /etc/services.
    assert DEFAULT_PORT != 9633
    assert not 9100 <= DEFAULT_PORT <= 9999
    assert 1024 < DEFAULT_PORT < 32768
    services = Path("/etc/services")
    if services.exists():
        assert f"\t{DEFAULT_PORT}/tcp" not in services.read_text(errors="replace")


def test_rules_that_can_flap_wait_before_firing() -> None:
    rules: dict[str, dict[str, str]] = {}
    name = ""
    for line in RULES.read_text().splitlines():  # flat YAML: `- alert: X`, then its keys
        key, _, value = line.strip().removeprefix("- ").partition(": ")
        if key == "alert":
            name = value
            rules[name] = {}
        elif key == "for" and name:
            rules[name]["for"] = value
    assert rules.keys() >= FLAPPING
    for name, rule in rules.items():
        if name in FLAPPING:
            assert rule.get("for") in ("2m", "5m"), name
        else:
            assert "for" not in rule, name


def test_the_dashboard_asks_for_its_data_source_on_import() -> None:
    board = json.loads(DASHBOARD.read_text())
    (source,) = board["__inputs"]
    assert source["type"] == "datasource" and source["pluginId"] == "prometheus"
    ref = "${" + source["name"] + "}"
    variable = next(v for v in board["templating"]["list"] if v["name"] == "datasource")
    assert variable["current"]["value"] == ref  # the import's choice becomes the default
    required = {(r["type"], r["id"]) for r in board["__requires"]}
    assert ("datasource", "prometheus") in required
    assert {("panel", p["type"]) for p in board["panels"] if p["type"] != "row"} <= required
    # Every ${DS_...} the file mentions is an input the import asks for.
    text = DASHBOARD.read_text()
    assert text.count("${DS_") == text.count(ref)


def test_the_simulator_exports_its_pools_data_errors() -> None:
    for scenario in ("healthy-24-bay", "mixed"):
        snapshot = asyncio.run(SimBackend(scenario).collect())
        text = prometheus.render(snapshot, None)
        zfs = [p.name for p in snapshot.pools if p.kind is PoolKind.ZFS]
        assert zfs, scenario
        for name in zfs:
            assert f'nastui_pool_data_errors{{host="{snapshot.host}",pool="{name}"}} 0' in text
