"""The Prometheus side checked by Prometheus's own `promtool` (Debian prometheus): the
exposition of every scenario (`promtool check metrics`), the shipped alerting rules (`check
rules`, and `test rules` with series in and alerts out for every rule), and the Grafana
dashboard's queries (parsed by promtool as recording rules). Names are cross-checked: the rules
and the dashboard use only metrics the exporter produces, and state values that exist."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from nastui.core.assess import assess
from nastui.core.metrics import render as prometheus
from nastui.core.metrics.families import NAMES
from nastui.model import PoolState, ScanKind, ScanState, Thresholds, UpsStatus
from nastui.sim import SCENARIOS, SimBackend
from tests.conftest import FIXTURES, REPO, require_tool

RULES = REPO / "contrib" / "prometheus" / "nastui-rules.yml"
RULE_TESTS = FIXTURES / "prometheus" / "nastui-rules.test.yml"
DASHBOARD = REPO / "contrib" / "grafana" / "nastui-dashboard.json"
# Sample: nastui_pool_state{state=~"DEGRADED|OFFLINE"}
_NAME = re.compile(r"\bnastui_[a-z_]+\b")
# Sample: nastui_ups_status{status="on_battery"}
_MATCHER = re.compile(r"\b(nastui_[a-z_]+)\{([^}]*)\}")
# Sample: state=~"running|paused"
_LABEL = re.compile(r'(\w+)\s*(?:=~|!=|!~|=)\s*"([^"]*)"')
_STATES: dict[tuple[str, str], set[str]] = {
    ("nastui_pool_state", "state"): {s.value for s in PoolState},
    ("nastui_pool_scan_state", "state"): {s.name.lower() for s in ScanState},
    ("nastui_pool_scan_kind", "scan"): {s.name.lower() for s in ScanKind},
    ("nastui_ups_status", "status"): {s.name.lower() for s in UpsStatus},
    ("nastui_pool_info", "kind"): {"zfs", "mdraid", "btrfs"},
}

pytestmark = pytest.mark.integration


def promtool(*argv: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    tool = require_tool("promtool", "prometheus")
    return subprocess.run(
        [tool, *argv], input=stdin, capture_output=True, text=True, timeout=120, check=False
    )


def dashboard_exprs() -> list[str]:
    board: dict[str, Any] = json.loads(DASHBOARD.read_text())
    return [t["expr"] for p in board["panels"] for t in p.get("targets", ())]


def check_names(text: str, where: str) -> None:
    unknown = set(_NAME.findall(text)) - set(NAMES)
    assert not unknown, f"{where} uses metrics nastui does not export: {sorted(unknown)}"
    for metric, matchers in _MATCHER.findall(text):
        for label, value in _LABEL.findall(matchers):
            allowed = _STATES.get((metric, label))
            if allowed is not None:
                wanted = set(value.split("|"))
                assert wanted <= allowed, f"{where}: {metric}{{{label}}}: {wanted - allowed}"


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_exposition_passes_promtool_check_metrics(name: str) -> None:
    raw = SimBackend(name).snapshot()
    text = prometheus.render(assess(raw, Thresholds(), raw.taken_at), Thresholds())
    done = promtool("check", "metrics", stdin=text)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout + done.stderr == ""  # not one lint remark


def test_promtool_check_metrics_does_complain() -> None:
    """The check above is not vacuous: the old names broke the conventions promtool lints."""
    old = "# HELP nastui_drive_power_on_hours Hours\n# TYPE nastui_drive_power_on_hours counter\n"
    done = promtool("check", "metrics", stdin=old + 'nastui_drive_power_on_hours{drive="a"} 3\n')
    assert done.returncode != 0 and "_total" in done.stdout + done.stderr


def test_rules_pass_promtool_check() -> None:
    done = promtool("check", "rules", str(RULES))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "SUCCESS: 25 rules found" in done.stdout


def test_rules_unit_tests_pass() -> None:
    done = promtool("test", "rules", str(RULE_TESTS))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "SUCCESS" in done.stdout


def test_every_rule_has_a_test_that_fires_it() -> None:
    rules = re.findall(r"^\s+- alert: (\w+)$", RULES.read_text(), re.MULTILINE)
    fired = re.findall(r"alertname: (\w+)\n\s+exp_alerts:", RULE_TESTS.read_text())
    assert len(rules) == 25 and set(rules) == set(fired)


def test_rules_and_dashboard_use_only_exported_names() -> None:
    check_names(RULES.read_text(), RULES.name)
    check_names(RULE_TESTS.read_text(), RULE_TESTS.name)
    check_names("\n".join(dashboard_exprs()), DASHBOARD.name)


def test_dashboard_parses_and_its_queries_are_promql(tmp_path: Path) -> None:
    board: dict[str, Any] = json.loads(DASHBOARD.read_text())
    assert board["uid"] == "nastui-overview" and board["schemaVersion"] >= 36
    ids = [p["id"] for p in board["panels"]]
    assert len(ids) == len(set(ids))
    for panel in board["panels"]:
        assert {"x", "y", "w", "h"} <= panel["gridPos"].keys()
        if panel["type"] != "row":
            assert panel["datasource"]["uid"] == "${datasource}"
            assert panel["targets"], panel["title"]
    titles = " ".join(p["title"] for p in board["panels"]).lower()
    assert all(word in titles for word in ("bay", "temperature", "pool", "scrub"))
    # promtool parses PromQL when it checks recording rules: the queries, $host filled in
    records = [
        {"record": f"nastui:dashboard:{n}", "expr": e.replace("$host", "x")}
        for n, e in enumerate(dashboard_exprs())
    ]
    rules = json.dumps({"groups": [{"name": "dashboard", "rules": records}]})  # JSON is YAML
    path = tmp_path / "dashboard-rules.yml"
    path.write_text(rules)
    done = promtool("check", "rules", str(path))
    assert done.returncode == 0, done.stdout + done.stderr
