"""Read snmpsim `.snmprec` recordings into a `Walk`, decoded the way pynetsnmp decodes values.

Lines are `OID|TAG|VALUE`: 2 Integer, 4 OctetString (4x: hex), 6 OID, 64 IpAddress (64x: hex),
65 Counter32, 66 Gauge32, 67 TimeTicks, 68 Opaque, 70 Counter64; `#` starts a comment. A tag
with a variation (`2:numeric`) takes the value spec's `value=` (else `initial=`, else `min=`).
Also turns `snmpwalk -On -Ob -OU -Oe -Ot` output into snmprec lines, for recording a real agent:

    python -m tests.snmprec < walk.txt > host.snmprec
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from nastui.collectors.snmp_profiles.base import SnmpValue, Walk, oid

FIXTURES = Path(__file__).parent / "fixtures" / "snmp"
INTEGER_TAGS = {"2", "65", "66", "67", "70"}


def fixture(name: str) -> Walk:
    """The recording tests/fixtures/snmp/<name> as a walk; fails naming the missing file."""
    path = FIXTURES / name
    if not path.is_file():
        raise FileNotFoundError(f"missing SNMP fixture {path}")
    return parse_snmprec(path.read_text(encoding="utf-8", errors="surrogateescape"))


def parse_snmprec(content: str) -> dict[tuple[int, ...], SnmpValue]:
    """OID -> value for every line of a recording; raises ValueError naming a malformed line."""
    walk: dict[tuple[int, ...], SnmpValue] = {}
    for number, line in enumerate(content.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split("|", 2)
        if len(parts) != 3:
            raise ValueError(f"snmprec line {number}: not OID|TAG|VALUE: {line!r}")
        key, tag, value = parts
        try:
            walk[oid(key)] = decode(tag, value)
        except ValueError as exc:
            raise ValueError(f"snmprec line {number}: {exc}: {line!r}") from None
    return walk


def decode(tag: str, value: str) -> SnmpValue:
    """One value as pynetsnmp returns it: int, bytes, OID tuple or dotted-quad str."""
    base, _, variation = tag.partition(":")
    if variation:
        value = _variation_value(value)
    hexed = base.endswith("x")
    base = base.removesuffix("x")
    raw = bytes.fromhex(value) if hexed else value.encode("utf-8", errors="surrogateescape")
    if base in INTEGER_TAGS:
        return int(raw.decode())
    if base in ("4", "68"):
        return raw
    if base == "6":
        return oid(raw.decode()) if raw.strip(b".") else ()
    if base == "64":
        return ".".join(str(b) for b in raw) if hexed else raw.decode()
    if base == "5":
        return None
    raise ValueError(f"unknown snmprec tag {tag!r}")


def _variation_value(spec: str) -> str:
    fields = dict(item.partition("=")[::2] for item in spec.split(","))
    for key in ("value", "initial", "min"):
        if key in fields:
            return fields[key]
    return spec


# Sample: .1.3.6.1.4.1.2021.13.15.1.1.2.9 = STRING: "vda"
_WALK_LINE = re.compile(r"^\.?(?P<oid>[\d.]+) = (?:(?P<type>[\w-]+): ?)?(?P<value>.*)$")
_WALK_TAGS = {
    "INTEGER": "2",
    "STRING": "4",
    "Hex-STRING": "4x",
    "OID": "6",
    "IpAddress": "64",
    "Counter32": "65",
    "Gauge32": "66",
    "Timeticks": "67",
    "Counter64": "70",
}


def snmpwalk_to_snmprec(output: str) -> str:
    """snmprec lines from `snmpwalk -On -Ob -OU -Oe -Ot` output (other lines are dropped)."""
    lines = []
    for line in output.splitlines():
        match = _WALK_LINE.match(line)
        if match is None:
            continue
        value = match["value"]
        if match["type"] is None and value.isdigit():
            tag = "67"  # -Ot prints TimeTicks as a bare number
        elif match["type"] in _WALK_TAGS:
            tag = _WALK_TAGS[match["type"]]
        else:
            continue
        if tag == "4" and value.startswith('"') and value.endswith('"'):
            value = value[1:-1]
        elif tag == "4x":
            value = value.replace(" ", "")
        elif tag == "6":
            value = value.lstrip(".")
        lines.append(f"{match['oid']}|{tag}|{value}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(snmpwalk_to_snmprec(sys.stdin.read()))
