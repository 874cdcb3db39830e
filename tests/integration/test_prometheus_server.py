"""End to end with the real peer: a real Prometheus server (Debian prometheus) scrapes a real
`nastui daemon --metrics-listen` (the demo's failing-drive box and its fleet) and evaluates the
shipped rules; its HTTP API must show the target up, the families, and the alerts firing."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from nastui.collectors.latest import read_latest
from tests.conftest import require_tool
from tests.integration.test_metrics_endpoint import daemon
from tests.integration.test_prometheus_equivalence import expected
from tests.integration.test_prometheus_tools import RULES, dashboard_exprs

pytestmark = pytest.mark.integration
CLOCKED = {"NastuiSnapshotStale", "NastuiScrubOverdue"}


def stop(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(params=["failing-drive"])
def stack(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[str]:
    """The daemon (the scenario is the fixture's parameter) and a Prometheus scraping it every
    second; yields Prometheus's base URL."""
    server = require_tool("prometheus", "prometheus")
    nastui = daemon(
        tmp_path, "--scenario", request.param, "--period", "3600",
        "--metrics-listen", "127.0.0.1:0", "--history", str(tmp_path / "history.sqlite"),
    )  # fmt: skip
    prom: subprocess.Popen[str] | None = None
    try:
        assert nastui.stdout is not None
        target = next(
            line.split()[2] for line in nastui.stdout if line.startswith("metrics: serving ")
        )
        config = tmp_path / "prometheus.yml"
        config.write_text(
            json.dumps(
                {
                    "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
                    "rule_files": [str(RULES)],
                    "scrape_configs": [
                        {
                            "job_name": "nastui",
                            "static_configs": [{"targets": [urllib.parse.urlsplit(target).netloc]}],
                        }
                    ],
                }
            )
        )
        port = free_port()
        prom = subprocess.Popen(
            [
                server,
                f"--config.file={config}",
                f"--storage.tsdb.path={tmp_path / 'tsdb'}",
                f"--web.listen-address=127.0.0.1:{port}",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        yield f"http://127.0.0.1:{port}"
    finally:
        if prom is not None:
            stop(prom)
        stop(nastui)


def query(base: str, expr: str) -> list[dict[str, Any]]:
    url = f"{base}/api/v1/query?{urllib.parse.urlencode({'query': expr})}"
    with urllib.request.urlopen(url, timeout=10) as answer:
        result: list[dict[str, Any]] = json.load(answer)["data"]["result"]
        return result


def eventually(base: str, expr: str) -> list[dict[str, Any]]:
    """The first non-empty answer to `expr` (Prometheus starts, scrapes, evaluates)."""
    deadline = time.monotonic() + 90  # a bound, not a measurement
    while time.monotonic() < deadline:
        try:
            found = query(base, expr)
        except OSError:  # not listening yet
            found = []
        if found:
            return found
    raise AssertionError(f"Prometheus never answered {expr}")


def test_prometheus_scrapes_the_daemon_and_the_rules_fire(stack: str, tmp_path: Path) -> None:
    """The alerts Prometheus fires about the box are those nastui itself raised (its
    latest.json), and the fleet's unreachable host; the rules that compare with the wall
    clock (stale snapshot, scrub age) are left out: the demo's clock is its own."""
    assert eventually(stack, 'up{job="nastui"} == 1')
    hosts = {r["metric"]["host"] for r in eventually(stack, "nastui_host_up")}
    assert "nano" in hosts and "offsite" in hosts
    info = eventually(stack, 'nastui_drive_info{host="nano"}')
    assert all(r["metric"]["serial"] for r in info)
    latest = read_latest(tmp_path / "latest.json")
    want = {dict(k)["alertname"] for k in expected(latest, latest.host, latest.alerts)}
    want = want - CLOCKED
    assert "NastuiDriveCritical" in want or "NastuiDriveWarning" in want
    firing = 'ALERTS{alertstate="firing", host="nano"}'
    seen: set[str] = set()
    deadline = time.monotonic() + 90  # a bound, not a measurement
    while seen != want and time.monotonic() < deadline:
        seen = {r["metric"]["alertname"] for r in query(stack, firing)} - CLOCKED
    assert seen == want
    # `for: 5m` (a host can miss a poll): pending at first, firing five minutes later
    offsite = eventually(stack, 'ALERTS{alertname="NastuiHostUnreachable"}')
    assert [r["metric"]["host"] for r in offsite] == ["offsite"]
    assert offsite[0]["metric"]["alertstate"] in ("pending", "firing")
    (drive,) = [
        r["metric"]
        for r in query(stack, firing)
        if r["metric"]["alertname"].startswith("NastuiDrive")
    ]
    assert (drive["bay"], drive["serial"]) == ("10", "PK1331PLPX28B6")


@pytest.mark.parametrize("stack", ["scrubbing"], indirect=True)
def test_every_dashboard_panel_has_data(stack: str) -> None:
    """Each query of the Grafana dashboard, on the demo's scrubbing box and its fleet, answers
    something (the Prometheus a Grafana would ask: label names, joins and selectors are
    right), except one that has nothing to show there: no bay is missing."""
    eventually(stack, 'nastui_pool_scan_progress_ratio{host="nano"}')
    eventually(stack, 'nastui_ups_status{host="ups-rack"}')
    empty = []
    for expr in dashboard_exprs():
        if not query(stack, expr.replace("$host", "nano")):
            empty.append(expr)
    assert empty == ['nastui_bay_missing{host="$host"} == 1'], empty
