"""Serial numbers replaced by tokens, the same token for the same serial everywhere.

`nastui capture --mask-serials` runs every text of the bundle (file contents, file and link
names, program outputs, argument lists, the configuration, the views) through one `SerialMask`,
so a by-id link, the sysfs `serial` file, smartctl's report, a ZFS vdev name and a bay binding
still agree and the bundle replays as the box was, under other names.

A token is as long as the serial it replaces (columns of text tables and SCSI VPD headers stay
right), has no "_" (by-id names split the serial at the last one) and is replaced only where
the serial stands alone (not inside a longer word or number).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

# Sample: "Serial Number:    PN2334PBG6P4SK"  (ATA, NVMe)  "Serial number:        8DG3J2ZD" (SCSI)
_TEXT_SERIAL = re.compile(r"^\s*Serial [Nn]umber:\s+(?P<serial>\S+)\s*$", re.MULTILINE)
# Sample: "serial_number": "PN2334PBG6P4SK"   (smartctl -j)
_JSON_SERIAL = re.compile(r'"serial_number":\s*"(?P<serial>[^"\\]+)"')
_EDGE = "A-Za-z0-9"


def worth_masking(serial: str) -> bool:
    """A serial long and distinct enough to replace wherever it stands alone: 8 characters, or
    4 with a letter (a short number would hit counters)."""
    return len(serial) >= 8 or (len(serial) >= 4 and any(c.isalpha() for c in serial))


def serials_in(outputs: Iterable[str]) -> set[str]:
    """Serial numbers that smartctl reports (text or JSON) name."""
    found: set[str] = set()
    for text in outputs:
        found.update(m["serial"] for m in _TEXT_SERIAL.finditer(text))
        found.update(m["serial"] for m in _JSON_SERIAL.finditer(text))
    return found


def _token(index: int, length: int) -> str:
    number = str(index)
    if length < len(number) + 1:
        return f"M{number}"
    head = "MASK"[: max(1, length - len(number))]
    return head + "X" * (length - len(head) - len(number)) + number


@dataclass
class SerialMask:
    """serial -> token; the identity when empty (no `--mask-serials`)."""

    tokens: dict[str, str] = field(default_factory=dict)
    _pattern: re.Pattern[str] | None = field(init=False, default=None, repr=False)

    def __post_init__(self) -> None:
        if self.tokens:
            alternatives = "|".join(
                re.escape(s) for s in sorted(self.tokens, key=len, reverse=True)
            )
            self._pattern = re.compile(f"(?<![{_EDGE}])(?:{alternatives})(?![{_EDGE}])")

    @classmethod
    def of(cls, serials: Iterable[str]) -> SerialMask:
        """A mask for the serials worth masking, numbered in sorted order."""
        chosen = sorted({s.strip() for s in serials if s and worth_masking(s.strip())})
        tokens: dict[str, str] = {}
        index = 0
        for serial in chosen:
            index += 1
            while (token := _token(index, len(serial))) in chosen:  # never another's serial
                index += 1
            tokens[serial] = token
        return cls(tokens)

    def text(self, text: str) -> str:
        """`text` with every serial replaced by its token."""
        if self._pattern is None:
            return text
        return self._pattern.sub(lambda m: self.tokens[m[0]], text)

    def data(self, data: bytes) -> bytes:
        """`data` (a file's bytes) with every serial replaced (latin-1 keeps every byte)."""
        if not self.tokens:
            return data
        return self.text(data.decode("latin-1")).encode("latin-1")
