"""The daemon's metrics (`Monitor` with `prometheus=FILE` and a `/metrics` server): the local
box and the fleet, each host's alerts as the alert engine saw them (acknowledgements applied,
an unreachable host's included)."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

from nastui.core.ack import ack_alert
from nastui.core.assess import fleet_alerts
from nastui.daemon.metrics_http import ListenAddress, MetricsServer
from nastui.daemon.monitor import Monitor
from nastui.daemonlog import Log
from nastui.history.db import History
from nastui.session import Source, open_session
from tests.unit.test_prometheus import Parsed, parse


def monitor(tmp_path: Path, metrics: MetricsServer | None = None) -> Monitor:
    session = open_session(Source(demo=True, scenario="failing-drive", fleet=True), {})
    return Monitor(
        session,
        History.open(tmp_path / "history.sqlite"),
        [],
        Log(io.StringIO()),
        latest_path=tmp_path / "latest.json",
        fleet=session.fleet,
        prometheus=tmp_path / "nastui.prom",
        metrics=metrics,
    )


def value(parsed: Parsed, metric: str, **labels: str) -> float:
    return parsed.samples[(metric, tuple(labels.items()))]


async def test_the_textfile_has_the_fleet_and_the_limits(tmp_path: Path) -> None:
    await monitor(tmp_path).step()
    parsed = parse((tmp_path / "nastui.prom").read_text())
    up = {dict(lb)["host"]: v for (m, lb), v in parsed.samples.items() if m == "nastui_host_up"}
    assert up["nano"] == 1 and up["offsite"] == 0 and len(up) > 2
    assert value(parsed, "nastui_host_health", host="offsite") == 2  # unreachable: critical
    assert value(parsed, "nastui_host_health", host="nano") in (1, 2)  # the failing drive
    assert any(m == "nastui_drive_temperature_limit_celsius" for m, _ in parsed.samples)


async def test_an_acknowledged_alert_leaves_the_counts(tmp_path: Path) -> None:
    daemon = monitor(tmp_path)
    await daemon.step()
    before = parse((tmp_path / "nastui.prom").read_text())
    assert value(before, "nastui_host_health", host="offsite") == 2
    now = daemon.session.clock.now()
    (offsite,) = [h for h in daemon.state.fleet if h.name == "offsite"]
    for alert in fleet_alerts(offsite, now):
        daemon.history.add_ack(ack_alert(alert, now))
    await daemon.step()
    after = parse((tmp_path / "nastui.prom").read_text())
    assert value(after, "nastui_host_health", host="offsite") == 0
    assert value(after, "nastui_alerts", host="offsite", health="critical") == 0


async def test_the_endpoint_gets_the_same_families(tmp_path: Path) -> None:
    server = MetricsServer(ListenAddress("127.0.0.1", 0))  # not started: publish only
    await monitor(tmp_path, server).step()
    assert server._body.decode() == (tmp_path / "nastui.prom").read_text()


def test_prometheus_client_is_never_loaded() -> None:
    """The endpoint is the standard library's: the daemon, the export and the CLI never load
    prometheus_client."""
    probe = (
        "import sys, nastui.cli.main, nastui.daemon.monitord, nastui.cli.cmd_export\n"
        "from nastui.daemon.metrics_http import ListenAddress, MetricsServer\n"
        "server = MetricsServer(ListenAddress('127.0.0.1', 0)); server.start(); server.close()\n"
        "print(sorted(m for m in sys.modules if m.startswith('prometheus_client')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout == "[]\n"
