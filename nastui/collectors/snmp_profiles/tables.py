"""Shared helpers for SNMP profiles: table rows by index, vendor strings and numbers, row notes,
the vendor's own drive statuses as a verdict and the main unit's bays.

Vendor agents are sloppy: strings end in NULs or spaces, temperatures come as "41 C", sizes as
"3.64 TB", a column can be missing from a row. Every helper here returns None for what it cannot
read (unknown is None, never 0) and never raises; `Notes` collects the rows a profile had to skip
as `CollectorError`s for `HostSnapshot.errors`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TypeVar

from nastui.collectors.snmp_profiles.base import Oid, SnmpValue, Walk
from nastui.model import (
    UNASSESSED,
    BaySlot,
    CollectorError,
    Drive,
    Health,
    MappedBy,
    Reason,
    Temperature,
    TempSource,
    Verdict,
)

T = TypeVar("T")
MAIN_UNIT = "main"
"""`EnclosureSlot.enclosure` of the drives in the host's own chassis (not an expansion unit)."""

Row = dict[int, SnmpValue]
"""One table row: column number -> value."""

# Sample: 41    " 36 C"    "-3.5"    "3.64 TB"    "12,000 RPM"
_LEADING_NUMBER = re.compile(r"^\s*([-+]?\d+(?:[.,]\d+)?)")
# Sample: "3.64 TB"    "931.5 GB"    "512 MB"    "4000787030016"
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMGTP]?)i?B?\s*$", re.IGNORECASE)
_SIZE_UNITS = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4, "P": 1024**5}
DRIVE_TEMP_RANGE = (1.0, 125.0)
"""Plausible drive temperatures; agents report 0 (or -1, 255) for a missing sensor."""


def table(walk: Walk, entry: Oid) -> dict[Oid, Row]:
    """The rows of the table whose entry OID is `entry` (`...Table.1`), keyed by index, sorted.

    Args:
        walk: OID -> value as walked.
        entry: the table's entry OID; each cell is `entry.column.index...`.
    """
    depth = len(entry)
    rows: dict[Oid, Row] = {}
    for key, value in walk.items():
        if len(key) > depth + 1 and key[:depth] == entry:
            rows.setdefault(key[depth + 1 :], {})[key[depth]] = value
    return dict(sorted(rows.items()))


def scalar(walk: Walk, name: Oid) -> SnmpValue:
    """The value of scalar `name` (instance `.0`), falling back to `name` itself."""
    value = walk.get((*name, 0))
    return value if value is not None else walk.get(name)


def text(value: SnmpValue) -> str | None:
    """A vendor string without trailing NULs and spaces; None when empty or not a string."""
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    if isinstance(value, bool) or not isinstance(value, str | int):
        return None
    cleaned = str(value).replace("\x00", " ").strip()
    return cleaned or None


def integer(value: SnmpValue) -> int | None:
    """An integer from an int, a float or a numeric string ("41 C" -> 41); None otherwise."""
    number_ = number(value)
    return None if number_ is None else int(number_)


def number(value: SnmpValue) -> float | None:
    """A finite float from an int, a float or a string that starts with a number; else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int) and abs(value) > 2**64:
        return None  # beyond any SNMP type: a broken agent
    if isinstance(value, int | float):
        result = float(value)
    else:
        raw = text(value)
        match = _LEADING_NUMBER.match(raw) if raw else None
        if match is None:
            return None
        result = float(match[1].replace(",", "."))
    return result if math.isfinite(result) else None


def scaled(value: SnmpValue, factor: float) -> float | None:
    """`number(value) * factor` (millidegrees to degrees: factor 0.001), or None."""
    number_ = number(value)
    return None if number_ is None else number_ * factor


def size_bytes(value: SnmpValue) -> int | None:
    """Bytes from a plain count or a "3.64 TB" style string (binary units, as vendors mean)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value if value >= 0 else None
    raw = text(value)
    match = _SIZE.match(raw) if raw else None
    if match is None:
        return None
    return int(float(match[1]) * _SIZE_UNITS[match[2].upper()])


def drive_temperature(value: SnmpValue, now: float) -> Temperature | None:
    """A remote drive temperature measured at `now`, or None when missing or implausible."""
    celsius = number(value)
    low, high = DRIVE_TEMP_RANGE
    if celsius is None or not low <= celsius <= high:
        return None
    return Temperature(celsius=celsius, measured_at=now, source=TempSource.SNMP)


def vendor_verdict(statuses: Iterable[Reason]) -> Verdict:
    """A drive's verdict from every status its agent gave, OK ones included: the worst of the
    others, OK when all are OK, `UNASSESSED` (left to `assess`) when the agent gave none."""
    given = list(statuses)
    if not given:
        return UNASSESSED
    return Verdict.of(r for r in given if r.health is not Health.OK)


def bay_slots(drives: Iterable[Drive]) -> tuple[BaySlot, ...]:
    """Bays of the main unit (`MAIN_UNIT`), from the drives' enclosure slots, by bay number."""
    slots = {
        d.slot.slot: BaySlot(d.slot.slot, d.key, MappedBy.ENCLOSURE)
        for d in drives
        if d.slot is not None and d.slot.enclosure == MAIN_UNIT
    }
    return tuple(slots[bay] for bay in sorted(slots))


def index_text(index: Oid) -> str:
    """A row index as text: "3" or "1.2"."""
    return ".".join(str(part) for part in index)


@dataclass(slots=True)
class Notes:
    """What a profile could not read, as one-line `CollectorError`s under its source."""

    source: str
    errors: list[CollectorError] = field(default_factory=list)

    def skip(self, what: str, why: str) -> None:
        """Record a skipped row: `what` names the row, `why` says what was wrong with it."""
        self.errors.append(
            CollectorError(self.source, f"{what}: {why}; row skipped (check the agent's MIB)")
        )

    def missing(self, what: str) -> None:
        """Record a table the agent did not answer for."""
        self.errors.append(
            CollectorError(self.source, f"{what} not found: check the agent exports it")
        )


def read_rows(
    walk: Walk,
    entry: Oid,
    read: Callable[[Oid, Row], T | None],
    notes: Notes,
    what: tuple[str, str],
) -> tuple[T, ...]:
    """What `read(index, row)` makes of each row of the table under `entry`; a row it cannot
    read (None) is noted as skipped.

    Args:
        what: the table's name and why an unread row is skipped: ("qnap raidTable",
            "no raidStatus") notes "qnap raidTable row 3: no raidStatus".
    """
    table_name, why = what
    items: list[T] = []
    for index, row in table(walk, entry).items():
        item = read(index, row)
        if item is None:
            notes.skip(f"{table_name} row {index_text(index)}", why)
        else:
            items.append(item)
    return tuple(items)
