"""A small HTTP server that a local user cannot use to starve the daemon: for `/metrics`.

One thread, one `selectors` loop, non-blocking sockets; each connection is a few hundred bytes
of state, never a thread. What bounds it:

- **Connections:** at most `Limits.connections` at once (16, one more for a moment). A new
  connection is read at once: a scraper's request is usually there already and is answered on
  the spot. When all places are taken, the oldest connection that has not sent a whole request
  within `Limits.evict_after_s` (0.25 s) is closed to make room; when none is that old,
  nothing more is accepted until a place is free, and further clients wait in the kernel's
  listen queue (`BACKLOG`), costing the daemon no descriptor. A thousand half-open
  connections cost the daemon 17 descriptors and delay a scrape by a second or two.
- **Time:** the request must arrive whole within `Limits.read_timeout_s` (5 s) of the connect,
  and the answer must be taken within `Limits.write_timeout_s` (10 s); then the connection is
  closed.
- **Size:** a request head over `MAX_REQUEST` bytes is answered 431 and closed.
- **Descriptors:** `Limits.reserve` descriptors are never taken by the endpoint: a connection is
  accepted only while more than that many are free under RLIMIT_NOFILE (counted in
  /proc/self/fd), so the alert path (an exec hook's pipes, a mail connection, the history)
  always has its own. An accept that fails for lack of descriptors pauses accepting for a
  second instead of spinning.

It answers GET and HEAD (`Connection: close`, HTTP/1.1) with whatever body the owner last
published; the body is made once per cycle by the owner, never per request.
"""

from __future__ import annotations

import contextlib
import errno
import resource
import selectors
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

BACKLOG = 128
MAX_REQUEST = 8192
PAUSE_S = 1.0  # accepting pauses this long after running out of descriptors
_OUT_OF_FILES = (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM)


@dataclass(frozen=True, slots=True)
class Limits:
    """What one server may take (see the module docstring)."""

    connections: int = 16
    read_timeout_s: float = 5.0
    write_timeout_s: float = 10.0
    evict_after_s: float = 0.25
    reserve: int = 64


@dataclass(frozen=True, slots=True)
class Page:
    """An answer: status line text, content type and body."""

    status: str
    content_type: str
    body: bytes


Route = Callable[[str, str], Page]  # (method, path) -> the answer


@dataclass
class _Conn:
    sock: socket.socket
    opened: float
    request: bytearray = field(default_factory=bytearray)
    answer: memoryview | None = None
    deadline: float = 0.0


@dataclass
class Counts:
    """What the server did, for the daemon's log."""

    served: int = 0
    dropped: int = 0  # closed unanswered: idle past the read timeout, evicted, or too slow


def open_descriptors() -> int | None:
    """How many descriptors this process has open (None where /proc cannot tell)."""
    try:
        return sum(1 for _ in Path("/proc/self/fd").iterdir()) - 1  # the listing's own
    except OSError:
        return None


def descriptor_limit() -> int:
    """The soft RLIMIT_NOFILE."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return soft if soft != resource.RLIM_INFINITY else 1 << 20


def fitted(limits: Limits, limit: int) -> Limits:
    """`limits` shrunk to a small descriptor limit: the reserve at most half of it, and the
    connections at most half of what is left."""
    reserve = min(limits.reserve, limit // 2)
    connections = max(1, min(limits.connections, (limit - reserve) // 2))
    return Limits(
        connections,
        limits.read_timeout_s,
        limits.write_timeout_s,
        limits.evict_after_s,
        reserve,
    )


class BoundedServer:
    """Serve `route` on a listening socket in a thread of its own; see the module docstring."""

    def __init__(self, listener: socket.socket, route: Route, limits: Limits) -> None:
        self._listener = listener
        self._route = route
        self.limits = fitted(limits, descriptor_limit())
        self._selector = selectors.DefaultSelector()
        self._wake_r, self._wake_w = socket.socketpair()
        self._conns: dict[int, _Conn] = {}
        self._listening = False
        self._paused_until = 0.0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.counts = Counts()

    @property
    def port(self) -> int:
        """The port listened on."""
        return int(self._listener.getsockname()[1])

    def start(self) -> None:
        """Start serving in a daemon thread."""
        self._listener.setblocking(False)
        self._wake_r.setblocking(False)
        self._selector.register(self._wake_r, selectors.EVENT_READ, None)
        self._listen(True)
        self._thread = threading.Thread(target=self._loop, name="nastui-metrics", daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Stop serving, close every connection and the listening socket."""
        self._stop.set()
        with contextlib.suppress(OSError):
            self._wake_w.send(b"x")
        if self._thread is not None:
            self._thread.join(timeout=5)
        for conn in list(self._conns.values()):
            self._drop(conn, counted=False)
        self._selector.close()
        for sock in (self._listener, self._wake_r, self._wake_w):
            sock.close()

    # ------------------------------------------------------------------ the loop

    def _loop(self) -> None:
        while not self._stop.is_set():
            for key, _ in self._selector.select(self._timeout()):
                if key.fileobj is self._listener:
                    self._accept()
                elif key.fileobj is self._wake_r:
                    with contextlib.suppress(OSError):
                        self._wake_r.recv(64)
                else:
                    conn = self._conns.get(key.fd)
                    if conn is not None:
                        self._step(conn)
            self._expire()

    def _timeout(self) -> float:
        now = time.monotonic()
        soonest = min((c.deadline for c in self._conns.values()), default=now + 1.0)
        if not self._listening:
            soonest = min(soonest, max(self._paused_until, now + 0.05))
        return max(0.01, min(soonest - now, 1.0))

    def _expire(self) -> None:
        now = time.monotonic()
        for conn in [c for c in self._conns.values() if c.deadline <= now]:
            self._drop(conn)
        self._listen(now >= self._paused_until and self._has_room())

    def _listen(self, on: bool) -> None:
        if on and not self._listening:
            self._selector.register(self._listener, selectors.EVENT_READ, None)
        elif not on and self._listening:
            self._selector.unregister(self._listener)
        self._listening = on

    # ------------------------------------------------------------------ accepting

    def _idle(self) -> list[_Conn]:
        """Connections that may be closed for a newcomer: no whole request after a while."""
        now = time.monotonic()
        after = self.limits.evict_after_s
        return [c for c in self._conns.values() if c.answer is None and now - c.opened >= after]

    def _has_room(self) -> bool:
        return len(self._conns) < self.limits.connections or bool(self._idle())

    def _headroom(self) -> bool:
        """More free descriptors than the reserve (else accepting pauses a while)."""
        used = open_descriptors()
        if used is not None and descriptor_limit() - used <= self.limits.reserve:
            self._paused_until = time.monotonic() + PAUSE_S
            return False
        return True

    def _accept(self) -> None:
        while True:
            if not self._headroom():
                self._listen(False)
                return
            try:
                sock, _ = self._listener.accept()
            except BlockingIOError:
                return
            except OSError as exc:
                if exc.errno in _OUT_OF_FILES:
                    self._paused_until = time.monotonic() + PAUSE_S
                    self._listen(False)
                return
            self._admit(sock)
            if not self._listening:
                return

    def _admit(self, sock: socket.socket) -> None:
        """Take a new connection: what it already sent is read (a whole request is answered at
        once). Over the cap, the oldest idle connection is closed to make room; when none is
        idle long enough, accepting stops until a place is free."""
        sock.setblocking(False)
        now = time.monotonic()
        conn = _Conn(sock, now, deadline=now + self.limits.read_timeout_s)
        self._conns[sock.fileno()] = conn
        self._selector.register(sock, selectors.EVENT_READ, None)
        self._step(conn)
        if len(self._conns) <= self.limits.connections:
            return
        idle = self._idle()
        if idle:
            self._drop(min(idle, key=lambda c: c.opened))
        else:
            self._listen(False)

    # ------------------------------------------------------------------ one connection

    def _step(self, conn: _Conn) -> None:
        try:
            if conn.answer is None:
                self._read(conn)
            else:
                self._write(conn)
        except BlockingIOError:
            return
        except OSError:
            self._drop(conn)

    def _read(self, conn: _Conn) -> None:
        data = conn.sock.recv(4096)
        if not data:
            self._drop(conn)
            return
        conn.request += data
        end = conn.request.find(b"\r\n\r\n")
        if end < 0 and len(conn.request) <= MAX_REQUEST:
            return
        if end < 0 or end > MAX_REQUEST:
            page = Page("431 Request Header Fields Too Large", "text/plain", b"request too large\n")
            method = "GET"
        else:
            method, path = _request_line(bytes(conn.request[:end]))
            page = self._route(method, path)
        conn.answer = memoryview(_response(page, head=method == "HEAD"))
        conn.deadline = time.monotonic() + self.limits.write_timeout_s
        self._selector.modify(conn.sock, selectors.EVENT_WRITE, None)
        self._write(conn)

    def _write(self, conn: _Conn) -> None:
        assert conn.answer is not None
        sent = conn.sock.send(conn.answer)
        conn.answer = conn.answer[sent:]
        if not conn.answer:
            self.counts.served += 1
            self._drop(conn, counted=False)

    def _drop(self, conn: _Conn, *, counted: bool = True) -> None:
        if self._conns.pop(conn.sock.fileno(), None) is None:
            return
        if counted:
            self.counts.dropped += 1
        with contextlib.suppress(KeyError, ValueError):
            self._selector.unregister(conn.sock)
        conn.sock.close()


def _request_line(head: bytes) -> tuple[str, str]:
    """(method, path) of a request head; ("", "") when the first line is not one."""
    # Sample: GET /metrics HTTP/1.1
    parts = head.split(b"\r\n", 1)[0].split(b" ")
    if len(parts) != 3 or not parts[2].startswith(b"HTTP/"):
        return "", ""
    return parts[0].decode("ascii", "replace"), parts[1].decode("ascii", "replace")


def _response(page: Page, *, head: bool) -> bytes:
    lines = [
        f"HTTP/1.1 {page.status}",
        f"Content-Type: {page.content_type}",
        f"Content-Length: {len(page.body)}",
        "Connection: close",
        "",
        "",
    ]
    return "\r\n".join(lines).encode("ascii") + (b"" if head else page.body)
