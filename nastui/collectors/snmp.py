"""The SNMP engine: one thread owns every pynetsnmp call; any thread or coroutine may ask it.

pynetsnmp (and net-snmp under it) crashes when several threads call it, so `SnmpEngine` starts
one thread on first use that opens the sessions, sends the requests and runs the select loop.
Requests to different agents are all in flight at once, so dead hosts time out in parallel: a
poll of many hosts costs the slowest one's timeout * (retries + 1), never the sum. Each agent
gets one session (kept between polls) and one request at a time.

    engine = SnmpEngine()
    walk = await engine.awalk(SnmpTarget("192.0.2.20", community="public"), [SYSTEM])
    engine.close()

Failures are `SnmpError`s whose text is one line for an operator: no answer (with the timeout,
retries and likely causes), an SNMPv3 Report (wrong auth password, unknown user, ...), an
error-status, an unknown host name. SNMPv3 engine IDs are discovered without blocking (see
`snmp_discovery`). Nothing is ever printed: pynetsnmp's and net-snmp's logging go to the
"zen.pynetsnmp" logger, this module's to "nastui.collectors.snmp".
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import select
import socket
import threading
from collections import deque
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from random import randrange
from time import monotonic
from types import TracebackType
from typing import Any

from nastui.collectors import snmp_netsnmp as ns
from nastui.collectors.snmp_discovery import EngineInfo, discovery_request, parse_discovery_report
from nastui.collectors.snmp_jobs import GetJob, Job, Request, Result, WalkJob
from nastui.collectors.snmp_profiles.base import Oid
from nastui.collectors.snmp_target import (
    V3,
    SnmpError,
    SnmpTarget,
    error_status_message,
    report_message,
    timeout_message,
)

__all__ = ["Result", "SnmpEngine", "SnmpError", "SnmpTarget"]

MAX_ROWS = 50_000
MAX_REPETITIONS = 40
_log = logging.getLogger(__name__)


def _literal_ip(address: str) -> str | None:
    try:
        return str(ipaddress.ip_address(address.strip("[]")))
    except ValueError:
        return None


def _resolve(target: SnmpTarget) -> str:
    """The first address of `target.address` (blocking: only ever on the resolver threads)."""
    try:
        infos = socket.getaddrinfo(target.address, target.port, type=socket.SOCK_DGRAM)
    except (socket.gaierror, UnicodeError):
        raise SnmpError(
            f"unknown host name {target.address}: check the [[host]] address or DNS"
        ) from None
    return str(infos[0][4][0])


def _settle(future: Future[Result], outcome: Result | BaseException) -> None:
    if future.done():
        return
    if isinstance(outcome, BaseException):
        future.set_exception(outcome)
    else:
        future.set_result(outcome)


@dataclass(slots=True)
class _Discovery:
    """An SNMPv3 engine-ID discovery in flight on its own socket."""

    sock: socket.socket
    msg_id: int
    deadline: float
    tries_left: int


class _Peer:
    """One agent as the engine thread sees it: session, engine ID, jobs."""

    def __init__(self, target: SnmpTarget, ip: str) -> None:
        self.target = target
        self.ip = ip
        self.session: ns.Session | None = None
        self.engine: EngineInfo | None = None
        self.discovery: _Discovery | None = None
        self.job: Job | None = None
        self.queue: deque[Job] = deque()
        self.lease: tuple[bytes, str] | None = None  # the (engine ID, user) keys it holds
        self.parked: Request | None = None  # the request waiting for that lease


def _credentials(target: SnmpTarget) -> tuple[str, str | None, str, str | None]:
    """What a v3 session's keys are made of, besides the engine ID and user."""
    return (target.auth_protocol, target.auth_password, target.priv_protocol, target.priv_password)


@dataclass(slots=True)
class _Lease:
    """Peers with one (engine ID, user) and the same credentials, with jobs in flight."""

    credentials: tuple[str, str | None, str, str | None]
    peers: set[_Peer]


class SnmpEngine:
    """Asynchronous SNMP v2c/v3 GET and GETBULK walks over one pynetsnmp thread.

    Args:
        max_rows: a walk stops with an error past this many values (a broken agent).
        max_repetitions: rows asked per GETBULK.
    """

    def __init__(self, *, max_rows: int = MAX_ROWS, max_repetitions: int = MAX_REPETITIONS) -> None:
        self.max_rows = max_rows
        self.max_repetitions = max_repetitions
        self._lock = threading.Lock()
        self._inbox: deque[tuple[SnmpTarget, str, Job]] = deque()
        self._closed = False
        self._thread: threading.Thread | None = None
        self._resolver: ThreadPoolExecutor | None = None
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)
        self._peers: dict[tuple[SnmpTarget, str], _Peer] = {}
        self._retired: list[ns.Session] = []
        # net-snmp keeps one key set per (engine ID, user) for the whole process and checks
        # every answer with it: peers with other credentials for the pair take turns.
        self._leases: dict[tuple[bytes, str], _Lease] = {}
        self._parked: dict[tuple[bytes, str], deque[_Peer]] = {}
        self._registered: dict[tuple[bytes, str], tuple[str, str | None, str, str | None]] = {}

    # ------------------------------------------------------------------ any thread

    def walk(self, target: SnmpTarget, roots: Sequence[Oid]) -> Future[Result]:
        """Every value under each root (GETBULK), OID -> value in walk order."""
        return self._submit(target, WalkJob(roots, self.max_rows, target.label))

    def get(self, target: SnmpTarget, oids: Sequence[Oid]) -> Future[Result]:
        """The value of each OID (None for noSuchObject/noSuchInstance)."""
        return self._submit(target, GetJob(oids))

    async def awalk(self, target: SnmpTarget, roots: Sequence[Oid]) -> Result:
        """`walk`, awaited; cancelling the await abandons the walk."""
        return await asyncio.wrap_future(self.walk(target, roots))

    async def aget(self, target: SnmpTarget, oids: Sequence[Oid]) -> Result:
        """`get`, awaited."""
        return await asyncio.wrap_future(self.get(target, oids))

    def close(self) -> None:
        """Fail what is pending, close every session and stop the thread (idempotent)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            thread, resolver = self._thread, self._resolver
        self._wake()
        if resolver is not None:
            resolver.shutdown(wait=False, cancel_futures=True)
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=5)
        if thread is None or not thread.is_alive():
            self._wake_r.close()
            self._wake_w.close()

    def __enter__(self) -> SnmpEngine:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def _submit(self, target: SnmpTarget, job: Job) -> Future[Result]:
        ip = _literal_ip(target.address)
        with self._lock:
            if self._closed:
                job.future.set_exception(SnmpError("the SNMP engine is closed"))
                return job.future
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="nastui-snmp", daemon=True)
                self._thread.start()
            if ip is None and self._resolver is None:
                self._resolver = ThreadPoolExecutor(4, thread_name_prefix="nastui-snmp-dns")
            resolver = self._resolver
        if ip is not None:
            self._enqueue(target, ip, job)
        elif resolver is not None:
            resolver.submit(self._resolve_then_enqueue, target, job)
        return job.future

    def _resolve_then_enqueue(self, target: SnmpTarget, job: Job) -> None:
        try:
            ip = _resolve(target)
        except SnmpError as exc:
            _settle(job.future, exc)
            return
        self._enqueue(target, ip, job)

    def _enqueue(self, target: SnmpTarget, ip: str, job: Job) -> None:
        with self._lock:
            if self._closed:
                _settle(job.future, SnmpError("the SNMP engine is closed"))
                return
            self._inbox.append((target, ip, job))
        self._wake()

    def _wake(self) -> None:
        with contextlib.suppress(OSError):  # already awake (buffer full), or closed
            self._wake_w.send(b"\0")

    # ------------------------------------------------------------------ engine thread only

    def _run(self) -> None:
        while True:
            with self._lock:
                items = list(self._inbox)
                self._inbox.clear()
                closed = self._closed
            if closed:
                self._inbox.extend(items)  # _shutdown fails them
                break
            try:
                for target, ip, job in items:
                    self._accept(target, ip, job)
                self._turn()
            except Exception:  # never let the thread die with requests waiting on it
                _log.exception("SNMP engine loop")
        self._shutdown()

    def _turn(self) -> None:
        """One select over the sessions, the discovery sockets and the wake-up socket."""
        for session in self._retired:
            session.close()
        self._retired.clear()
        fds, wait = ns.select_info()
        finding = {p.discovery.sock.fileno(): p for p in self._peers.values() if p.discovery}
        now = monotonic()
        for peer in finding.values():
            due = max(0.0, peer.discovery.deadline - now) if peer.discovery else 0.0
            wait = due if wait is None else min(wait, due)
        ready = select.select([*fds, self._wake_r.fileno(), *finding], [], [], wait)[0]
        if self._wake_r.fileno() in ready:
            self._drain_wake()
        for fd in ready:
            if fd in finding:
                self._discovery_answer(finding[fd])
        ns.read(fd for fd in ready if fd in fds)
        ns.expire()
        self._discovery_timeouts(monotonic())

    def _drain_wake(self) -> None:
        try:
            while self._wake_r.recv(4096):
                pass
        except (BlockingIOError, OSError):
            pass

    def _accept(self, target: SnmpTarget, ip: str, job: Job) -> None:
        peer = self._peers.get((target, ip))
        if peer is None:
            peer = self._peers[(target, ip)] = _Peer(target, ip)
        peer.queue.append(job)
        self._start(peer)

    def _start(self, peer: _Peer) -> None:
        """Send the next queued job's first request, unless one is in flight."""
        while peer.job is None and peer.queue:
            job = peer.job = peer.queue.popleft()
            if job.future.done():  # cancelled while queued
                peer.job = None
                continue
            if peer.target.version == V3 and peer.engine is None:
                self._discover(peer)
                return
            self._send(peer, job.first())

    def _send(self, peer: _Peer, request: Request | None) -> None:
        """Send `request` for the peer's job, or finish the job (done, cancelled or failed)."""
        job = peer.job
        if job is None:
            return
        if request is None or job.future.done():
            self._finish(peer, job.result)
            return
        if not self._lease(peer, request):
            return
        try:
            if peer.session is None:
                self._retire_namesakes(peer)
                session = ns.Session(
                    peer.target,
                    peer.ip,
                    peer.engine,
                    lambda pdu: self._answer(peer, pdu),
                    lambda: self._timed_out(peer),
                )
                session.open()
                peer.session = session
            peer.session.send(request.bulk, request.oids, self.max_repetitions)
        except SnmpError as exc:
            self._finish(peer, exc)

    def _finish(self, peer: _Peer, outcome: Result | SnmpError) -> None:
        if peer.job is not None:
            _settle(peer.job.future, outcome)
        peer.job = None
        self._release(peer)

    def _lease(self, peer: _Peer, request: Request) -> bool:
        """Take the peer's (engine ID, user) keys for its job, or park the request until the
        peers using other credentials for that pair are done (False)."""
        if peer.target.version != V3 or peer.engine is None or peer.lease is not None:
            return True
        key = (peer.engine.engine_id, peer.target.user or "")
        credentials = _credentials(peer.target)
        held = self._leases.get(key)
        if held is not None and held.credentials != credentials:
            peer.parked = request
            self._parked.setdefault(key, deque()).append(peer)
            return False
        if held is None:
            held = self._leases[key] = _Lease(credentials, set())
        held.peers.add(peer)
        peer.lease = key
        if self._registered.get(key) != credentials and peer.session is not None:
            self._retired.append(peer.session)  # its keys were replaced: a new session
            peer.session = None
        self._registered[key] = credentials
        return True

    def _release(self, peer: _Peer) -> None:
        """Give the peer's keys back; the last one out lets the parked peers go."""
        key, peer.lease = peer.lease, None
        held = self._leases.get(key) if key is not None else None
        if key is None or held is None:
            return
        held.peers.discard(peer)
        if held.peers:
            return
        del self._leases[key]
        waiting = self._parked.pop(key, deque())
        while waiting:
            other = waiting.popleft()
            request, other.parked = other.parked, None
            self._send(other, request)

    def _fail_all(self, peer: _Peer, error: SnmpError) -> None:
        """Fail the job in flight and every queued one: they would meet the same fate."""
        self._finish(peer, error)
        while peer.queue:
            _settle(peer.queue.popleft().future, error)

    def _retire(self, peer: _Peer) -> None:
        """Close the session at the next turn (not inside its callback); v3 rediscovers."""
        if peer.session is not None:
            self._retired.append(peer.session)
        peer.session = None
        peer.engine = None

    def _retire_namesakes(self, peer: _Peer) -> None:
        """Retire idle v3 sessions sharing the peer's (engine ID, user): net-snmp keeps one key
        set per pair for the whole process, and the new session's keys replace theirs."""
        if peer.engine is None:
            return
        for other in self._peers.values():
            if (
                other is not peer
                and other.session is not None
                and other.job is None
                and other.engine is not None
                and other.engine.engine_id == peer.engine.engine_id
                and other.target.user == peer.target.user
            ):
                self._retire(other)

    def _answer(self, peer: _Peer, pdu: Any) -> None:
        """net-snmp's callback for an answer to the peer's request in flight."""
        job = peer.job
        if job is None:
            return
        try:
            if ns.is_report(pdu):
                names = ns.varbinds(pdu)
                if peer.target.version == V3:
                    self._retire(peer)
                raise SnmpError(report_message(peer.target, names[0][0] if names else ()))
            if pdu.errstat:
                raise SnmpError(error_status_message(peer.target, pdu.errstat, job.what))
            next_request = None if job.future.done() else job.answer(ns.varbinds(pdu))
        except SnmpError as exc:
            self._finish(peer, exc)
        except Exception as exc:  # a decoding surprise must fail the job, not the engine
            _log.exception("SNMP answer from %s", peer.target.label)
            self._finish(peer, SnmpError(f"{peer.target.label}: unreadable answer ({exc})"))
        else:
            self._send(peer, next_request)
        self._start(peer)

    def _timed_out(self, peer: _Peer) -> None:
        """net-snmp's callback for a request that got no answer after every retry."""
        if peer.target.version == V3:
            self._retire(peer)
        self._fail_all(peer, SnmpError(timeout_message(peer.target)))

    def _discover(self, peer: _Peer) -> None:
        family = socket.AF_INET6 if ":" in peer.ip else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_DGRAM)
        sock.setblocking(False)
        msg_id = randrange(1, 2**31 - 1)
        peer.discovery = _Discovery(
            sock, msg_id, monotonic() + peer.target.timeout_s, peer.target.retries
        )
        try:
            sock.connect((peer.ip, peer.target.port))
            sock.send(discovery_request(msg_id))
        except OSError:
            pass  # unreachable now: it times out like a silent host

    def _discovery_answer(self, peer: _Peer) -> None:
        found = peer.discovery
        if found is None:
            return
        info = None
        while info is None:
            try:
                data = found.sock.recv(65535)
            except BlockingIOError:
                return
            except OSError:  # ICMP port unreachable: keep waiting, as for a silent host
                return
            info = parse_discovery_report(data, found.msg_id)
        found.sock.close()
        peer.discovery = None
        peer.engine = info
        if peer.job is not None:
            self._send(peer, peer.job.first())
        self._start(peer)

    def _discovery_timeouts(self, now: float) -> None:
        for peer in self._peers.values():
            found = peer.discovery
            if found is None or found.deadline > now:
                continue
            if found.tries_left > 0:
                found.tries_left -= 1
                found.deadline = now + peer.target.timeout_s
                with contextlib.suppress(OSError):
                    found.sock.send(discovery_request(found.msg_id))
                continue
            found.sock.close()
            peer.discovery = None
            self._fail_all(peer, SnmpError(timeout_message(peer.target)))

    def _shutdown(self) -> None:
        closed = SnmpError("the SNMP engine is closed")
        with self._lock:
            items = list(self._inbox)
            self._inbox.clear()
        for _target, _ip, job in items:
            _settle(job.future, closed)
        self._parked.clear()  # failed below with the rest, never sent
        for peer in self._peers.values():
            self._fail_all(peer, closed)
            if peer.discovery is not None:
                peer.discovery.sock.close()
            self._retire(peer)
        for session in self._retired:
            session.close()
        self._retired.clear()
        self._peers.clear()
        self._wake_r.close()
        self._wake_w.close()
