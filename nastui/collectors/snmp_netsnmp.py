"""Everything that touches pynetsnmp (and through it net-snmp's C library), for the engine thread.

Only `nastui.collectors.snmp`'s one thread may call into this module after import: net-snmp's
session list and pynetsnmp's callbacks are not thread-safe. Importing it routes pynetsnmp's
logging (which also carries net-snmp's own log lines) to a `NullHandler`, so nothing reaches the
terminal a TUI is drawing on; configure the "zen.pynetsnmp" logger to see them.

Provides `Session` (one agent, requests answered through `on_pdu`/`on_timeout` hooks),
`varbinds(pdu)`, `select_info()`, `read(fds)` and `expire()`.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable
from ctypes import byref, c_char_p, c_size_t, c_void_p, cast, pointer, string_at
from typing import Any

from nastui.collectors.snmp_discovery import EngineInfo
from nastui.collectors.snmp_profiles.base import Oid, SnmpValue
from nastui.collectors.snmp_target import V3, SnmpError, SnmpTarget

logging.getLogger("zen.pynetsnmp").addHandler(logging.NullHandler())
# net-snmp loads every MIB it finds when a v3 session parses its arguments unless MIBS says
# otherwise; nastui uses numeric OIDs only.
os.environ.setdefault("MIBS", "")

from pynetsnmp import netsnmp  # noqa: E402  (after the logging and MIBS set-up above)
from pynetsnmp.CONSTANTS import (  # noqa: E402
    ASN_OPAQUE,
    SNMP_ENDOFMIBVIEW,
    SNMP_MSG_GET,
    SNMP_MSG_GETBULK,
    SNMP_MSG_REPORT,
    SNMP_NOSUCHINSTANCE,
    SNMP_NOSUCHOBJECT,
    SNMP_VERSION_2c,
)

NO_SUCH = (SNMP_NOSUCHOBJECT, SNMP_NOSUCHINSTANCE, SNMP_ENDOFMIBVIEW)
VarBind = tuple[Oid, int, SnmpValue]  # (OID, ASN.1 tag, decoded value)

_log = logging.getLogger(__name__)


def peername(ip: str, port: int) -> str:
    """net-snmp's transport address: "192.0.2.20:161" or "udp6:[2001:db8::1]:161"."""
    return f"udp6:[{ip}]:{port}" if ":" in ip else f"{ip}:{port}"


def _v3_args(target: SnmpTarget, engine: EngineInfo | None) -> list[str]:
    args = ["-v3", "-l", target.security_level, "-u", target.user or ""]
    if engine is not None:  # known: no synchronous probe, no notInTimeWindow round trip
        args += ["-e", engine.hex_id, "-Z", f"{engine.boots},{engine.time}"]
    if target.auth_password:
        args += ["-a", target.auth_protocol, "-A", target.auth_password]
    if target.priv_password:
        args += ["-x", target.priv_protocol, "-X", target.priv_password]
    return args


netsnmp.lib.usm_get_user.restype = c_void_p
netsnmp.lib.usm_get_user.argtypes = (c_char_p, c_size_t, c_char_p)
netsnmp.lib.usm_remove_user.argtypes = (c_void_p,)
netsnmp.lib.usm_free_user.argtypes = (c_void_p,)


def forget_user(engine_id: bytes, user: str) -> None:
    """Drop net-snmp's cached keys for (engine ID, user).

    net-snmp keeps one USM user per engine ID and name for the whole process and reuses it for
    every later session: without this a changed (or wrong) password would never be used.
    """
    found = netsnmp.lib.usm_get_user(engine_id, len(engine_id), user.encode())
    if found:
        netsnmp.lib.usm_remove_user(found)
        netsnmp.lib.usm_free_user(found)


class Session(netsnmp.Session):  # type: ignore[misc]  # pynetsnmp has no type hints
    """One open net-snmp session to one agent, with at most one request in flight.

    Attributes:
        on_pdu: called with each answer (Response or Report PDU).
        on_timeout: called when the request in flight went unanswered.
    """

    def __init__(
        self,
        target: SnmpTarget,
        ip: str,
        engine: EngineInfo | None,
        on_pdu: Callable[[Any], None],
        on_timeout: Callable[[], None],
    ) -> None:
        peer = peername(ip, target.port)
        if target.version == V3:
            super().__init__(cmdLineArgs=(*_v3_args(target, engine), peer))
        else:
            super().__init__(version=SNMP_VERSION_2c, peername=peer, community=target.community)
        self.target = target
        self.engine = engine
        self.on_pdu = on_pdu
        self.on_timeout = on_timeout

    def open(self) -> None:
        """Open without net-snmp's synchronous engine-ID probe; raises SnmpError."""
        if self.target.version == V3 and self.engine is not None:
            forget_user(self.engine.engine_id, self.target.user or "")
        sess = netsnmp.netsnmp_session()
        try:
            self.args = netsnmp.initialize_session(sess, self.cmdLineArgs, self.kw)
        except netsnmp.ArgumentParseError:
            raise SnmpError(
                f"{self.target.label}: net-snmp refused the SNMPv3 settings (user, "
                f"auth_protocol {self.target.auth_protocol}, priv_protocol "
                f"{self.target.priv_protocol})"
            ) from None
        sess.timeout = int(self.target.timeout_s * 1_000_000)
        sess.retries = self.target.retries
        sess.flags |= netsnmp.SNMP_FLAGS_DONT_PROBE
        sess.callback = netsnmp._callback
        self._data = netsnmp._CallbackData(session_id=id(self))
        sess.callback_magic = cast(pointer(self._data), c_void_p)
        netsnmp.sessionMap[id(self)] = self
        self.sess = netsnmp.lib.snmp_open(byref(sess))
        if not self.sess:
            netsnmp.sessionMap.pop(id(self), None)
            raise SnmpError(f"{self.target.label}: net-snmp could not open a session")

    def callback(self, pdu: Any) -> None:
        """pynetsnmp's hook for an answer."""
        self.on_pdu(pdu)

    def timeout(self, reqid: int) -> None:
        """pynetsnmp's hook for a request that was never answered."""
        self.on_timeout()

    def send(self, bulk: bool, oids: Iterable[Oid], repetitions: int) -> None:
        """Send a GETBULK (non-repeaters 0) or a GET; raises SnmpError if it cannot be sent."""
        req = netsnmp.lib.snmp_pdu_create(SNMP_MSG_GETBULK if bulk else SNMP_MSG_GET)
        if bulk:
            req.contents.errstat = 0
            req.contents.errindex = repetitions
        for name in oids:
            raw = netsnmp.mkoid(name)
            netsnmp.lib.snmp_add_null_var(req, raw, len(raw))
        if netsnmp.lib.snmp_send(self.sess, req) == 0:
            netsnmp.lib.snmp_free_pdu(req)
            raise SnmpError(f"{self.target.label}: net-snmp could not send the request")

    def close(self) -> None:
        """Close the session (never from inside one of its own callbacks)."""
        if id(self) in netsnmp.sessionMap:
            super().close()


def is_report(pdu: Any) -> bool:
    """Whether an answer is a Report PDU (an SNMPv3 agent refusing the request)."""
    return bool(pdu.command == SNMP_MSG_REPORT)


def _value(var: Any, tag: int) -> SnmpValue:
    if tag in NO_SUCH:
        return None
    if tag == ASN_OPAQUE:
        return string_at(var.val.bitstring, var.val_len) if var.val_len else b""
    decode = netsnmp.decoder.get(bytes((tag,)))
    if decode is None:
        return None
    if decode is netsnmp.decodeString:
        return string_at(var.val.bitstring, var.val_len) if var.val_len else b""
    value: SnmpValue = decode(var)
    return value


def varbinds(pdu: Any) -> list[VarBind]:
    """The (OID, tag, value) triples of an answer, decoded as pynetsnmp decodes them."""
    result: list[VarBind] = []
    var = pdu.variables
    while var:
        item = var.contents
        name = tuple(int(item.name[i]) for i in range(item.name_length))
        tag = item.type[0] if isinstance(item.type, bytes) else int(item.type)
        result.append((name, tag, _value(item, tag)))
        var = item.next_variable
    return result


def select_info() -> tuple[list[int], float | None]:
    """The sockets of every open session, and the seconds until the next retransmission
    or timeout is due (None: no request in flight)."""
    fds: list[int]
    fds, wait = netsnmp.snmp_select_info()
    return fds, wait


def read(fds: Iterable[int]) -> None:
    """Let net-snmp read the readable session sockets (runs the callbacks)."""
    for fd in fds:
        netsnmp.snmp_read(fd)


def expire() -> None:
    """Retransmit or time out every request whose time has come (runs the callbacks)."""
    netsnmp.lib.snmp_timeout()
