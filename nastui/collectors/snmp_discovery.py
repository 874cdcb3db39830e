"""SNMPv3 engine-ID discovery (RFC 3414 section 4) encoded by hand, so it never blocks.

net-snmp discovers an agent's engine ID with a synchronous probe inside `snmp_send`: one dead v3
host would stall every other request for its whole timeout. The engine thread instead sends this
unauthenticated discovery request on its own non-blocking socket, reads the agent's Report for
`msgAuthoritativeEngineID`, and opens the net-snmp session with `-e` (no probe then).

Provides `discovery_request(msg_id) -> bytes` and `parse_discovery_report(data, msg_id)`, both
pure.
"""

from __future__ import annotations

from dataclasses import dataclass

SEQUENCE = 0x30
INTEGER = 0x02
OCTET_STRING = 0x04
GET_REQUEST = 0xA0
MAX_MESSAGE = 65507
REPORTABLE = b"\x04"  # msgFlags: noAuthNoPriv, reportable
USM = 3  # msgSecurityModel


@dataclass(frozen=True, slots=True)
class EngineInfo:
    """What an agent's discovery Report says about its SNMP engine."""

    engine_id: bytes
    boots: int
    time: int

    @property
    def hex_id(self) -> str:
        """The engine ID as net-snmp's `-e` option takes it ("0x80001f88...")."""
        return "0x" + self.engine_id.hex()


def _length(size: int) -> bytes:
    if size < 0x80:
        return bytes((size,))
    body = size.to_bytes((size.bit_length() + 7) // 8, "big")
    return bytes((0x80 | len(body),)) + body


def _tlv(tag: int, body: bytes) -> bytes:
    return bytes((tag,)) + _length(len(body)) + body


def _integer(value: int) -> bytes:
    return _tlv(INTEGER, value.to_bytes(value.bit_length() // 8 + 1, "big", signed=True))


def discovery_request(msg_id: int) -> bytes:
    """An SNMPv3 GetRequest with empty USM parameters: the agent answers with a Report.

    Args:
        msg_id: msgID and request-id, 0..2**31-1; the Report echoes the msgID.
    """
    header = _tlv(
        SEQUENCE,
        _integer(msg_id) + _integer(MAX_MESSAGE) + _tlv(OCTET_STRING, REPORTABLE) + _integer(USM),
    )
    empty = _tlv(OCTET_STRING, b"")
    usm = _tlv(SEQUENCE, empty + _integer(0) + _integer(0) + empty + empty + empty)
    pdu = _tlv(GET_REQUEST, _integer(msg_id) + _integer(0) + _integer(0) + _tlv(SEQUENCE, b""))
    scoped = _tlv(SEQUENCE, empty + empty + pdu)
    return _tlv(SEQUENCE, _integer(3) + header + _tlv(OCTET_STRING, usm) + scoped)


def _read(data: bytes, pos: int) -> tuple[int, bytes, int]:
    """(tag, body, position after it) of the TLV at `pos`; ValueError when it is cut short."""
    if pos + 2 > len(data):
        raise ValueError("truncated")
    tag, first = data[pos], data[pos + 1]
    pos += 2
    size = first
    if first & 0x80:
        count = first & 0x7F
        if count == 0 or count > 4 or pos + count > len(data):
            raise ValueError("bad length")
        size = int.from_bytes(data[pos : pos + count], "big")
        pos += count
    if pos + size > len(data):
        raise ValueError("truncated")
    return tag, data[pos : pos + size], pos + size


def _children(body: bytes) -> list[tuple[int, bytes]]:
    items: list[tuple[int, bytes]] = []
    pos = 0
    while pos < len(body):
        tag, value, pos = _read(body, pos)
        items.append((tag, value))
    return items


def parse_discovery_report(data: bytes, msg_id: int) -> EngineInfo | None:
    """The engine ID, boots and time in an agent's answer to `discovery_request(msg_id)`.

    None when the datagram is not an SNMPv3 message answering that msgID or carries no engine ID.
    """
    try:
        tag, body, _ = _read(data, 0)
        parts = _children(body) if tag == SEQUENCE else []
        if len(parts) < 3 or parts[0] != (INTEGER, b"\x03") or parts[1][0] != SEQUENCE:
            return None
        header = _children(parts[1][1])
        if not header or header[0][0] != INTEGER:
            return None
        if int.from_bytes(header[0][1], "big", signed=True) != msg_id:
            return None
        tag, usm, _ = _read(parts[2][1], 0)
        fields = _children(usm) if parts[2][0] == OCTET_STRING and tag == SEQUENCE else []
    except ValueError:
        return None
    if len(fields) < 3 or [t for t, _ in fields[:3]] != [OCTET_STRING, INTEGER, INTEGER]:
        return None
    engine_id = fields[0][1]
    if not engine_id:
        return None
    boots, time = (int.from_bytes(v, "big", signed=True) for _, v in fields[1:3])
    return EngineInfo(engine_id, boots, time)
