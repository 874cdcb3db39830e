"""What one walk or get asks an agent, request after request (pure state machines).

A job says which request to send first; each answer's varbinds give it the next request or the
finished result. Walks use GETBULK and leave a subtree when an OID falls outside it, stops
increasing (endOfMibView repeats the last OID) or the agent says endOfMibView; a bound on the
number of values keeps a broken agent from making a walk run forever.

Provides `Request`, `WalkJob`, `GetJob` and `Job` (either).
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass

from nastui.collectors.snmp_profiles.base import Oid, SnmpValue
from nastui.collectors.snmp_target import SnmpError

END_OF_MIB_VIEW = 0x82  # SNMPv2 exception tag
GET_CHUNK = 40  # varbinds per GET request: well inside one UDP datagram
Result = dict[Oid, SnmpValue]


@dataclass(frozen=True, slots=True)
class Request:
    """One PDU to send: GETBULK from each OID, or GET of each OID."""

    bulk: bool
    oids: tuple[Oid, ...]


def _dotted(name: Oid) -> str:
    return ".".join(map(str, name))


def distinct_roots(roots: Sequence[Oid]) -> tuple[Oid, ...]:
    """`roots` in order without duplicates or subtrees of an earlier root."""
    kept: list[Oid] = []
    for root in roots:
        if any(root[: len(k)] == k for k in kept):
            continue
        kept = [k for k in kept if k[: len(root)] != root]
        kept.append(root)
    return tuple(kept)


class WalkJob:
    """Every value under each root, by GETBULK.

    Attributes:
        future: completed with OID -> value (in walk order) or an `SnmpError`.
    """

    def __init__(self, roots: Sequence[Oid], max_rows: int, label: str) -> None:
        self.future: Future[Result] = Future()
        self.roots = distinct_roots(roots)
        self.max_rows = max_rows
        self.label = label
        self.result: Result = {}
        self.index = 0
        self.last: Oid = self.roots[0] if self.roots else ()

    @property
    def what(self) -> str:
        """The request in words, for error messages."""
        return f"a walk of {_dotted(self.roots[self.index])}" if self.roots else "a walk"

    def first(self) -> Request | None:
        """The first request; None when there is nothing to walk."""
        return Request(True, (self.last,)) if self.roots else None

    def _next_root(self) -> Request | None:
        self.index += 1
        if self.index >= len(self.roots):
            return None
        self.last = self.roots[self.index]
        return Request(True, (self.last,))

    def answer(self, varbinds: Sequence[tuple[Oid, int, SnmpValue]]) -> Request | None:
        """Take one GETBULK answer; the next request, or None when the walk is complete.

        Raises:
            SnmpError: the walk went past `max_rows` values.
        """
        root = self.roots[self.index]
        for name, tag, value in varbinds:
            if tag == END_OF_MIB_VIEW or name[: len(root)] != root or name <= self.last:
                return self._next_root()
            self.result[name] = value
            self.last = name
            if len(self.result) > self.max_rows:
                raise SnmpError(
                    f"{self.label}: stopped {self.what} after {self.max_rows} values: the agent "
                    "keeps answering (a broken agent, or raise max_rows)"
                )
        return Request(True, (self.last,)) if varbinds else self._next_root()


class GetJob:
    """The values of given OIDs (None for noSuchObject/noSuchInstance), by GET.

    Attributes:
        future: completed with OID -> value (every asked OID present) or an `SnmpError`.
    """

    def __init__(self, oids: Sequence[Oid]) -> None:
        self.future: Future[Result] = Future()
        self.oids = tuple(dict.fromkeys(oids))
        self.result: Result = {}
        self.sent = 0

    @property
    def what(self) -> str:
        """The request in words, for error messages."""
        return f"a get of {_dotted(self.oids[0])}" if self.oids else "a get"

    def _chunk(self) -> Request | None:
        if self.sent >= len(self.oids):
            return None
        chunk = self.oids[self.sent : self.sent + GET_CHUNK]
        self.sent += len(chunk)
        return Request(False, chunk)

    def first(self) -> Request | None:
        """The first request; None when no OID was asked."""
        return self._chunk()

    def answer(self, varbinds: Sequence[tuple[Oid, int, SnmpValue]]) -> Request | None:
        """Take one GET answer; the next request, or None when every OID has a value."""
        for name, _tag, value in varbinds:
            self.result[name] = value
        return self._chunk()


Job = WalkJob | GetJob
