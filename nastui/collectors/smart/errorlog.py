"""The ATA error log of a smartctl report (`-x` extended comprehensive or `-a` summary log, and
`-j`'s `ata_smart_error_log`), as `AtaError`s newest first: the power-on hour of each error and
smartctl's one-line description ("UNC at LBA = 0x6c5e7e98 = 1818132120"), with the LBA.

smartctl prints the newest error first; an entry whose description line is missing (a cut
report) is left out, the rest kept.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from nastui.model import AtaError

# Sample: Error 1 [0] occurred at disk power-on lifetime: 11933 hours (497 days + 5 hours)
# Sample: Error 306 occurred at disk power-on lifetime: 46933 hours (1955 days + 13 hours)
_HEADER = re.compile(
    r"^Error \d+ (?:\[\d+\] )?occurred at disk power-on lifetime: (?P<h>\d+) hours"
)
# Sample:   40 -- 51 00 00 00 00 6c 5e 7e 98 00 00  Error: UNC at LBA = 0x6c5e7e98 = 1818132120
# Sample:   40 51 00 ff ff ff 0f  Error: UNC 8 sectors at LBA = 0x0fffffff = 268435455
# Sample:   84 51 00 00 00 00 a0  Error: ICRC, ABRT at LBA = 0x00000000 = 0
_DESCRIPTION = re.compile(r"\bError: (?P<what>.+?)\s*$")
# Sample: UNC 8 sectors at LBA = 0x0fffffff = 268435455
_LBA = re.compile(r"at LBA = 0x[0-9a-fA-F]+ = (?P<lba>\d+)")


def _entry(hours: int, description: str) -> AtaError:
    lba = _LBA.search(description)
    return AtaError(hours, description, int(lba["lba"]) if lba else None)


def errors_from_lines(lines: Iterable[str]) -> tuple[AtaError, ...]:
    """Every error-log entry with its description, in the report's order (newest first)."""
    found: list[AtaError] = []
    hours: int | None = None
    for line in lines:
        header = _HEADER.match(line)
        if header:
            hours = int(header["h"])
            continue
        if hours is None:
            continue
        described = _DESCRIPTION.search(line)
        if described:
            found.append(_entry(hours, described["what"]))
            hours = None
    return tuple(found)


def errors_from_json(log: dict[str, Any]) -> tuple[AtaError, ...]:
    """The same from `-j`'s `ata_smart_error_log` (extended table, else the summary's)."""
    found: list[AtaError] = []
    for kind in ("extended", "summary"):
        section = log.get(kind)
        table = section.get("table") if isinstance(section, dict) else None
        for row in table if isinstance(table, list) else ():
            if not isinstance(row, dict):
                continue
            hours, text = row.get("lifetime_hours"), row.get("error_description")
            if isinstance(hours, int) and isinstance(text, str):
                found.append(_entry(hours, text.removeprefix("Error: ").strip()))
        if found:
            break
    return tuple(found)
