"""What an SNMP profile is: the subtrees to walk on a host and a pure parser of what came back.

A profile turns a walk (OID -> value, as the SNMP engine decoded it) into a raw `HostSnapshot`:
drives with what the MIB says of them (temperature, the vendor's health status as a verdict),
pools or RAID groups, fans, sensors and UPSes. Parsers are pure: the fleet collector does the
walking, tests feed them recordings (snmpsim `.snmprec` files) directly.

Values as the engine decodes them (pynetsnmp): INTEGER, Counter32/64, Gauge32 and TimeTicks as
`int`; OCTET STRING as `bytes`; OBJECT IDENTIFIER as a tuple of ints; IpAddress as `str`;
NULL, noSuchObject, noSuchInstance and endOfMibView as `None`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from nastui.model import HostSnapshot

Oid = tuple[int, ...]
SnmpValue = int | float | bytes | str | Oid | None
Walk = Mapping[Oid, SnmpValue]
Parser = Callable[[str, Walk, float], HostSnapshot]

SYSTEM: Oid = (1, 3, 6, 1, 2, 1, 1)  # SNMPv2-MIB system group: sysDescr.0 is .1.0, sysUpTime .3.0


def oid(text: str) -> Oid:
    """ "1.3.6.1.2.1.1" or ".1.3.6.1.2.1.1" as a tuple of ints."""
    return tuple(int(part) for part in text.strip(".").split("."))


@dataclass(frozen=True, slots=True)
class Profile:
    """One way of reading a host.

    Attributes:
        name: the config's `profile` value ("synology").
        roots: the subtrees walked, besides the system group.
        parse: (configured host name, walk, now) -> raw snapshot with `source="snmp:<name>"`.
            Drives get `verdict` from the vendor's status where the MIB has one (assess keeps a
            verdict a collector already gave); the rest is left to `nastui.core.assess`.
    """

    name: str
    roots: tuple[Oid, ...]
    parse: Parser
