"""The `[[ups]]` tables: UPSes read from a NUT server (upsd, TCP port 3493).

    [[ups]]
    target = "rackups@127.0.0.1"     # upsname@host[:port], as upsc takes it
    name = "rack UPS"                # shown in the fleet (default: the upsname)
    timeout = 2                      # seconds for the whole exchange

Names and hosts are allowlisted: they go into a protocol line sent to upsd.
"""

from __future__ import annotations

import re

from nastui.config.keys import UPS_KEYS
from nastui.config.remote import UpsConfig
from nastui.config.validate_base import Section, check_unique
from nastui.config.validate_values import MAX_TIMEOUT_S

NUT_PORT = 3493

# Sample: rackups@nas.example.org:3493  (also: ups1@[2001:db8::1]:3493, ups1@127.0.0.1)
_TARGET = re.compile(
    r"(?P<ups>[A-Za-z0-9_.-]{1,64})@"
    r"(?:\[(?P<ip6>[0-9A-Fa-f:.]{2,45})\]|(?P<host>[A-Za-z0-9][A-Za-z0-9.-]{0,252}))"
    r"(?::(?P<port>\d{1,5}))?"
)


def parse_target(text: str) -> tuple[str, str, int] | None:
    """(upsname, host, port) of "upsname@host[:port]"; None when it is not one."""
    match = _TARGET.fullmatch(text.strip())
    if match is None:
        return None
    port = int(match["port"]) if match["port"] else NUT_PORT
    if not 1 <= port <= 65535:
        return None
    return match["ups"], match["ip6"] or match["host"], port


def read_ups(root: Section) -> tuple[UpsConfig, ...]:
    """The `[[ups]]` tables, names unique."""
    tables = root.tables("ups")
    check_unique(tables, "name", "name")
    found = (_ups(sec) for sec in tables)
    return tuple(ups for ups in found if ups is not None)


def _ups(sec: Section) -> UpsConfig | None:
    sec.check_keys(UPS_KEYS)
    target = sec.text("target", required=True)
    timeout_s = sec.number("timeout", 2.0, positive=True, high=MAX_TIMEOUT_S, unit="seconds")
    name = sec.text("name")
    if target is None:
        return None
    parsed = parse_target(target)
    if parsed is None:
        sec.wrong("target", 'upsname@host or upsname@host:port (e.g. "ups@127.0.0.1:3493")')
        return None
    ups, host, port = parsed
    return UpsConfig(name or ups, ups, host, port, timeout_s)
