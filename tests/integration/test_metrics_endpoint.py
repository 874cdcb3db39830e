"""`nastui daemon --metrics-listen`: a real daemon process answering real HTTP GETs on
/metrics with the latest cycle's metrics (checked by prometheus_client's parser and by
`promtool check metrics`), never polling for a scrape; and the ways it refuses to start, each
one line: the port taken, an address that is not one. The server is the standard library's:
prometheus_client is not needed to serve."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from nastui.core.metrics import render
from nastui.daemon.metrics_http import ListenAddress, MetricsServer, parse_listen
from nastui.model import HostSnapshot
from tests.integration.test_prometheus_tools import promtool

pytestmark = pytest.mark.integration


def get(url: str) -> tuple[int, str, str]:
    with urllib.request.urlopen(url, timeout=10) as answer:
        return answer.status, answer.headers["Content-Type"], answer.read().decode()


def daemon(tmp_path: Path, *argv: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    full = {**os.environ, "NASTUI_STATE_DIR": str(tmp_path), "NO_COLOR": "1", **(env or {})}
    full.pop("NASTUI_CONFIG", None)
    return subprocess.Popen(
        [sys.executable, "-m", "nastui", "--demo", "daemon", "--no-notify", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=full,
    )


@pytest.fixture
def running(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """A demo daemon with one cycle an hour, listening on a port of its choosing; yields the
    process and its /metrics URL (from its start line)."""
    proc = daemon(
        tmp_path,
        "--period",
        "3600",
        "--metrics-listen",
        "127.0.0.1:0",
        "--history",
        str(tmp_path / "history.sqlite"),
    )
    try:
        assert proc.stdout is not None
        url = ""
        for line in proc.stdout:  # the start lines, up to the one naming the endpoint
            if line.startswith("metrics: serving "):
                url = line.split()[2]
                break
        assert url.startswith("http://127.0.0.1:"), url
        yield proc, url
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()


def wait_for_cycle(url: str) -> str:
    """The first body with a snapshot in it (the first cycle may still be running)."""
    deadline = time.monotonic() + 60  # a bound, not a measurement
    while time.monotonic() < deadline:
        status, _, body = get(url)
        assert status == 200
        if "nastui_snapshot_timestamp_seconds" in body:
            return body
    raise AssertionError("the daemon's first cycle never reached /metrics")


def test_a_real_get_answers_the_latest_cycle(
    running: tuple[subprocess.Popen[str], str],
) -> None:
    proc, url = running
    body = wait_for_cycle(url)
    families = {f.name: f for f in text_string_to_metric_families(body)}
    assert {"nastui_host_up", "nastui_drive_temperature_celsius", "nastui_pool_state"} <= set(
        families
    )
    hosts = {s.labels["host"] for s in families["nastui_host_up"].samples}
    assert "nano" in hosts and len(hosts) > 1  # the demo's fleet is exported too
    ups = families["nastui_ups_status"].samples
    assert any(s.labels["host"] != "nano" for s in ups)
    done = promtool("check", "metrics", stdin=body)
    assert done.returncode == 0 and done.stdout + done.stderr == "", done.stdout + done.stderr
    # a scrape never polls: the demo's clock moves, yet the next answers are the same cycle
    assert get(url)[2] == body and get(url)[2] == body
    assert proc.poll() is None


def test_the_server_alone(tmp_path: Path) -> None:
    server = MetricsServer(ListenAddress("127.0.0.1", 0))
    server.start()
    try:
        status, kind, body = get(server.url)
        assert (status, body) == (200, "")  # before the first cycle: nothing, not zeros
        assert kind.startswith("text/plain")
        server.publish(render.families(HostSnapshot("h", 5.0)))
        body = get(server.url)[2]
        samples = {
            (s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(body)
            for s in family.samples
        }
        assert samples[("nastui_snapshot_timestamp_seconds", (("host", "h"),))] == 5.0
        assert samples[("nastui_alerts", (("health", "warning"), ("host", "h")))] == 0.0
    finally:
        server.close()
    with pytest.raises(OSError):
        get(server.url)


def test_without_prometheus_client_it_serves_all_the_same(tmp_path: Path) -> None:
    blocker = tmp_path / "block" / "prometheus_client"
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text("raise ImportError('not installed (test)')\n")
    proc = daemon(
        tmp_path,
        *("--once", "--metrics-listen", "127.0.0.1:0"),
        env={"PYTHONPATH": os.pathsep.join((str(blocker.parent), *sys.path))},
    )
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert "metrics: serving http://127.0.0.1:" in out and "Traceback" not in err


def test_a_taken_port_is_one_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = daemon(tmp_path, "--once", "--metrics-listen", f"127.0.0.1:{port}")
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 69
    assert err.startswith(f"nastui: daemon: cannot listen on 127.0.0.1:{port} for metrics: ")
    assert err.count("\n") == 1 and "Address already in use" in err


def test_a_bad_address_is_a_usage_error(tmp_path: Path) -> None:
    proc = daemon(tmp_path, "--once", "--metrics-listen", "nas.example:9633")
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 64
    assert "not an IP address" in err


@pytest.mark.parametrize(
    ("text", "host", "port", "loopback"),
    [
        ("9633", "127.0.0.1", 9633, True),
        ("localhost:9100", "127.0.0.1", 9100, True),
        ("0.0.0.0:9633", "0.0.0.0", 9633, False),
        ("[::1]:9633", "::1", 9633, True),
        ("[::]:9633", "::", 9633, False),
    ],
)
def test_listen_addresses(text: str, host: str, port: int, loopback: bool) -> None:
    address = parse_listen(text)
    assert (address.host, address.port, address.loopback) == (host, port, loopback)


@pytest.mark.parametrize("text", ["", "::1:9633", "host:9633", "127.0.0.1:99999", "1.2.3.4:x"])
def test_bad_listen_addresses(text: str) -> None:
    with pytest.raises(ValueError, match=r"^'"):
        parse_listen(text)
