"""The daemon's optional `/metrics` endpoint: Prometheus scrapes the latest assessed snapshot.

`nastui daemon --metrics-listen 127.0.0.1:19633` serves, on `/metrics`, the same text the
textfile export writes (`nastui.core.metrics.render.families`, formatted once per cycle), as the
last cycle left it: a scrape never polls (no smartctl, no SNMP, no disk woken by a scrape),
and before the first cycle the page is empty. The server is nastui's own, standard library
only (`nastui.daemon.boundedhttp`): one thread, a few connections, timeouts, and descriptors
kept in reserve, so that a local user holding a thousand connections open can slow a scrape
but never the alerts. A bare port listens on 127.0.0.1 only: the page has no authentication,
so serving it to the network is a choice written out in full (`0.0.0.0:19633`), and said in
the log.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Sequence
from dataclasses import dataclass

from nastui.core.metrics.exposition import Family, format_families
from nastui.daemon.boundedhttp import BACKLOG, BoundedServer, Counts, Limits, Page

# Not 9633 (smartctl_exporter's): Prometheus's registry of exporter ports, 9100-9999, has been
# fully allocated since 2023, so any default in it collides with some exporter. 19633 lies
# outside it, below Linux's ephemeral range (32768-60999) and in no /etc/services.
DEFAULT_PORT = 19633
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


class MetricsUnavailable(Exception):
    """The endpoint cannot be served: the address is refused (taken, not this machine's)."""


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


class MetricsServer:
    """The endpoint: `start`, then `publish` after every cycle, `close` at the end."""

    def __init__(self, address: ListenAddress, limits: Limits | None = None) -> None:
        self.address = address
        self._limits = limits or Limits()
        self._body = b""
        self._server: BoundedServer | None = None

    @property
    def port(self) -> int:
        """The port listened on (the one chosen, for port 0)."""
        return self._server.port if self._server is not None else self.address.port

    @property
    def url(self) -> str:
        """The endpoint's URL, for the log."""
        host = self.address.host
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{self.port}/metrics"

    @property
    def counts(self) -> Counts:
        """Scrapes served and connections dropped unanswered so far."""
        return self._server.counts if self._server is not None else Counts()

    def start(self) -> None:
        """Listen and serve in a thread of its own. Raises MetricsUnavailable."""
        host = self.address.host
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        try:
            listener = socket.create_server(
                (host, self.address.port),
                family=family,
                backlog=BACKLOG,
                dualstack_ipv6=host == "::" and socket.has_dualstack_ipv6(),
            )
        except OSError as exc:
            raise MetricsUnavailable(
                f"cannot listen on {self.address} for metrics: {exc.strerror or exc} "
                "(choose another port with --metrics-listen)"
            ) from None
        self._server = BoundedServer(listener, self._page, self._limits)
        self._server.start()

    def _page(self, method: str, path: str) -> Page:
        if method not in ("GET", "HEAD"):
            return Page("405 Method Not Allowed", "text/plain", b"GET /metrics\n")
        if path.split("?", 1)[0] not in ("/metrics", "/"):
            return Page("404 Not Found", "text/plain", b"nastui serves /metrics\n")
        return Page("200 OK", CONTENT_TYPE, self._body)

    def publish(self, families: Sequence[Family]) -> None:
        """Serve these from now on (the last cycle's), formatted once."""
        self._body = format_families(families).encode("utf-8")  # one reference, swapped whole

    def close(self) -> None:
        """Stop serving."""
        if self._server is not None:
            self._server.close()
        self._server = None
