"""`ParseError`: the one exception every parser raises for input it does not understand.

Parsers of tool output (smartctl, zpool, mdstat, btrfs, ipmitool, fio) are pure functions; when
the text is not what they know, they raise this, naming the input, the line and what was wrong,
so the operator's one-line message says which output surprised nastui and where.
"""

from __future__ import annotations


class ParseError(ValueError):
    """Input a parser does not know.

    Attributes:
        what: which input ("zpool status", "/proc/mdstat", "smartctl -j output of /dev/sda").
        reason: what was wrong with it.
        line_no: 1-based line number, when known.
        line: the unexpected line, when known.
    """

    def __init__(self, what: str, reason: str, line_no: int | None = None, line: str = "") -> None:
        self.what = what
        self.reason = reason
        self.line_no = line_no
        self.line = line
        where = f" line {line_no}" if line_no is not None else ""
        shown = f": {line.strip()[:120]!r}" if line else ""
        super().__init__(f"{what}{where}: {reason}{shown}")

    @property
    def source(self) -> str:
        """The input's name (as `what`)."""
        return self.what

    @property
    def detail(self) -> str:
        """What was wrong (as `reason`)."""
        return self.reason
