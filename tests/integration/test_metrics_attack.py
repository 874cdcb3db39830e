"""`/metrics` under attack by a local user: half-open connections by the hundred, hundreds of
scrapes at once, requests that never end. The endpoint may slow down; the alerts may not.

The daemon runs as a real process on a fake box (`tests.daemonrig`) with RLIMIT_NOFILE lowered
to 128, so a few hundred held connections are what a thousand are at the usual 1024. Before
the endpoint was bounded: /metrics timed out, latest.json went stale, deliveries failed with
"Too many open files" (tracebacks in the log), and an alert raised during the attack went out
only after it.
"""

from __future__ import annotations

import asyncio
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from nastui.core.metrics import render
from nastui.daemon.boundedhttp import Limits, fitted
from nastui.daemon.metrics_http import ListenAddress, MetricsServer
from nastui.model import HostSnapshot
from tests.daemonrig import HOT_C, TEMP_KEY, DaemonRig, hold, port_of, stop

pytestmark = pytest.mark.integration

FILES = 128


def scrape(url: str, timeout: float = 10) -> str:
    with urllib.request.urlopen(url, timeout=timeout) as answer:
        return str(answer.read().decode())


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[DaemonRig]:
    yield DaemonRig(tmp_path)


def test_held_connections_delay_no_alert_and_no_write(rig: DaemonRig) -> None:
    proc = rig.start("--metrics-listen", "127.0.0.1:0", files=FILES)
    held: list[socket.socket] = []
    try:
        url = rig.metrics_url()
        latest = rig.state / "latest.json"
        assert rig.wait_for(latest.exists, 60), rig.output()
        held = hold(port_of(url), 2 * FILES)
        assert len(held) > FILES  # more than the daemon has descriptors
        rig.set_temp(HOT_C)
        told = rig.wait_for(lambda: TEMP_KEY in {t.key for t in rig.told()}, 60)
        assert told, rig.output()  # while every connection is still held
        mtime = latest.stat().st_mtime
        assert rig.wait_for(lambda: latest.stat().st_mtime > mtime, 30)  # still written
        assert "nastui_drive_temperature_celsius" in scrape(url)  # an idle one made room
    finally:
        for sock in held:
            sock.close()
        assert stop(proc) == 0
    out = rig.output()
    assert "Too many open files" not in out and "Traceback" not in out, out
    assert out.count("connection(s) to /metrics closed unanswered") == 1, out  # hourly


async def _get(port: int, timeout: float) -> bool:
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), timeout)
        writer.write(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        data = await asyncio.wait_for(reader.read(), timeout)
        writer.close()
        return data.split(b" ", 2)[1:2] == [b"200"]
    except (OSError, TimeoutError):
        return False


async def _many(port: int, count: int) -> list[bool]:
    return list(await asyncio.gather(*(_get(port, 10) for _ in range(count))))


def test_500_scrapes_at_once_are_all_answered(rig: DaemonRig) -> None:
    proc = rig.start("--metrics-listen", "127.0.0.1:0")
    try:
        url = rig.metrics_url()
        results = asyncio.run(_many(port_of(url), 500))
    finally:
        assert stop(proc) == 0
    assert results.count(False) == 0


@pytest.fixture
def server() -> Iterator[MetricsServer]:
    limits = Limits(connections=4, read_timeout_s=0.5, write_timeout_s=2, evict_after_s=0.3)
    server = MetricsServer(ListenAddress("127.0.0.1", 0), limits)
    server.start()
    server.publish(render.families(HostSnapshot("h", 5.0)))
    try:
        yield server
    finally:
        server.close()


def raw(port: int, request: bytes, timeout: float = 5) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(request)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def test_a_request_that_never_ends_is_closed_after_the_read_timeout(
    server: MetricsServer,
) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(b"GET /metrics HTTP/1.1\r\n")  # and never the end of the head
        started = time.monotonic()
        assert sock.recv(100) == b""  # closed by the server, unanswered
        assert time.monotonic() - started < 5  # the read timeout (0.5 s), not the client's
    assert server.counts.dropped == 1


def test_answers(server: MetricsServer) -> None:
    ok = raw(server.port, b"GET /metrics HTTP/1.0\r\n\r\n")
    assert ok.startswith(b"HTTP/1.1 200 OK\r\n") and b"nastui_host_up" in ok
    assert b"Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n" in ok
    head = raw(server.port, b"HEAD /metrics HTTP/1.1\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 OK") and head.endswith(b"\r\n\r\n")
    assert raw(server.port, b"POST /metrics HTTP/1.1\r\n\r\n").startswith(b"HTTP/1.1 405")
    assert raw(server.port, b"GET /etc/passwd HTTP/1.1\r\n\r\n").startswith(b"HTTP/1.1 404")
    huge = b"GET /metrics HTTP/1.1\r\nX: " + b"a" * 10000 + b"\r\n\r\n"
    assert raw(server.port, huge).startswith(b"HTTP/1.1 431")
    assert raw(server.port, b"nonsense\r\n\r\n").startswith(b"HTTP/1.1 405")


def test_idle_connections_make_room_for_a_scrape(server: MetricsServer) -> None:
    held = hold(server.port, 50)  # 4 taken, the rest in the listen queue
    try:
        assert "nastui_host_up" in scrape(server.url)
    finally:
        for sock in held:
            sock.close()


def test_a_low_descriptor_limit_shrinks_the_endpoint_not_the_reserve() -> None:
    assert fitted(Limits(), 1024) == Limits()
    small = fitted(Limits(), 64)
    assert small.reserve == 32 and small.connections == 16
    tiny = fitted(Limits(), 8)
    assert tiny.reserve == 4 and tiny.connections == 2


def test_a_closed_endpoint_refuses(server: MetricsServer) -> None:
    url = server.url
    server.close()
    with pytest.raises(urllib.error.URLError):
        scrape(url, timeout=2)
