"""net-snmp's pass_persist protocol, as pure functions over a `Table`.

snmpd writes a command line and, for get, getnext and set, an OID line (set adds a "TYPE VALUE"
line). The answer to get and getnext is three lines (OID, type, value) or "NONE"; to PING,
"PONG"; to set, "not-writable" (this agent is read-only). See snmpd.conf(5), "pass_persist".

    PING            -> PONG
    get .1.3...     -> .1.3...  /  gauge  /  38
    getnext .1.3... -> the next OID in the table, or NONE past its end
"""

from __future__ import annotations

from nastui.agent.mib import format_oid, parse_oid
from nastui.agent.table import Table

NONE = "NONE"
PONG = "PONG"
NOT_WRITABLE = "not-writable"
COMMANDS = ("get", "getnext", "set")


def answer(table: Table, command: str, oid_text: str) -> list[str]:
    """The reply lines to `command` ("get", "getnext" or "set") on `oid_text`.

    A malformed OID, or a command this agent does not know, gets NONE (snmpd then answers
    noSuchObject); set always gets not-writable.
    """
    command = command.strip().lower()
    if command == "set":
        return [NOT_WRITABLE]
    try:
        oid = parse_oid(oid_text)
    except ValueError:
        return [NONE]
    if command == "get":
        cell = table.lookup(oid)
        found = (oid, cell) if cell is not None else None
    elif command == "getnext":
        found = table.next_after(oid)
    else:
        return [NONE]
    if found is None:
        return [NONE]
    at, (kind, value) = found
    return [format_oid(at), kind, str(value)]
