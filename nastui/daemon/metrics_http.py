"""The daemon's optional `/metrics` endpoint: Prometheus scrapes the latest assessed snapshot.

`nastui daemon --metrics-listen 127.0.0.1:19633` serves, on `/metrics`, the same families the
textfile export writes (`nastui.core.prometheus.families`), as the last cycle left them: a
scrape never polls (no smartctl, no SNMP, no disk woken by a scrape), and before the first
cycle the page is empty. The server is prometheus_client's (an optional extra,
`pip install 'nastui[prometheus]'`; Debian: python3-prometheus-client), in its own thread, on
a registry that holds only nastui's families. A bare port listens on 127.0.0.1 only: the
page has no authentication, so serving it to the network is a choice written out in full
(`0.0.0.0:19633`), and said in the log.
"""

from __future__ import annotations

import ipaddress
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from nastui.core.promtext import Family

if TYPE_CHECKING:
    from wsgiref.simple_server import WSGIServer

# Not 9633 (smartctl_exporter's): Prometheus's registry of exporter ports, 9100-9999, has been
# fully allocated since 2023, so any default in it collides with some exporter. 19633 lies
# outside it, below Linux's ephemeral range (32768-60999) and in no /etc/services.
DEFAULT_PORT = 19633
INSTALL_HINT = "pip install 'nastui[prometheus]' (Debian: apt install python3-prometheus-client)"


class MetricsUnavailable(Exception):
    """The endpoint cannot be served: prometheus_client missing, or the address refused."""


@dataclass(frozen=True, slots=True)
class ListenAddress:
    """Where to listen: an IP address (v4 or v6) and a port (0: any free one)."""

    host: str
    port: int

    @property
    def loopback(self) -> bool:
        """Only this machine can connect."""
        return ipaddress.ip_address(self.host).is_loopback

    def __str__(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"


def parse_listen(text: str) -> ListenAddress:
    """`PORT`, `ADDRESS:PORT` or `[IPv6]:PORT`; "localhost" means 127.0.0.1. Only IP
    literals are taken (a name could resolve anywhere). Raises ValueError naming the fix."""
    # Sample: 127.0.0.1:19633, [::1]:19633, 19633, localhost:19633
    host, sep, port_text = text.rpartition(":")
    if not sep:
        host, port_text = "127.0.0.1", text
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    elif ":" in host:
        raise ValueError(f"{text!r}: write an IPv6 address in brackets, e.g. [::1]:{port_text}")
    if host == "localhost":
        host = "127.0.0.1"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        raise ValueError(
            f"{text!r}: not an IP address (give e.g. 127.0.0.1:{DEFAULT_PORT} or "
            f"0.0.0.0:{DEFAULT_PORT})"
        ) from None
    if not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        raise ValueError(f"{text!r}: the port must be a number from 0 to 65535")
    return ListenAddress(str(address), int(port_text))


class _Collector:
    """A prometheus_client collector yielding the families last published."""

    def __init__(self) -> None:
        self.families: tuple[Family, ...] = ()

    def collect(self) -> Iterator[Any]:
        from prometheus_client.core import Metric

        for family in self.families:  # one reference, swapped whole by `publish`
            if not family.samples:
                continue
            metric = Metric(family.name, family.help, "gauge")
            for labels, value in family.samples.items():
                metric.add_sample(family.name, dict(labels), value)
            yield metric


class MetricsServer:
    """The endpoint: `start`, then `publish` after every cycle, `close` at the end."""

    def __init__(self, address: ListenAddress) -> None:
        self.address = address
        self._collector = _Collector()
        self._server: WSGIServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        """The port listened on (the one chosen, for port 0)."""
        return self._server.server_port if self._server is not None else self.address.port

    @property
    def url(self) -> str:
        """The endpoint's URL, for the log."""
        host = self.address.host
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{self.port}/metrics"

    def start(self) -> None:
        """Listen and serve in a daemon thread. Raises MetricsUnavailable."""
        try:
            from prometheus_client import CollectorRegistry, start_http_server
        except ImportError:
            raise MetricsUnavailable(
                f"--metrics-listen needs prometheus_client: {INSTALL_HINT}"
            ) from None
        registry = CollectorRegistry(auto_describe=False)
        registry.register(self._collector)
        try:
            self._server, self._thread = start_http_server(
                self.address.port, addr=self.address.host, registry=registry
            )
        except OSError as exc:
            raise MetricsUnavailable(
                f"cannot listen on {self.address} for metrics: {exc.strerror or exc} "
                "(choose another port with --metrics-listen)"
            ) from None

    def publish(self, families: Sequence[Family]) -> None:
        """Serve these from now on (the last cycle's)."""
        self._collector.families = tuple(families)

    def close(self) -> None:
        """Stop serving."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = self._thread = None
