"""A smartctl report as people paste it into mail and forums, put back into smartctl's layout
(pure): what it keeps is read, what it cannot put back is named, nothing is dropped silently.

- Mail clients hard-wrap at 72 columns: every row of `smartctl -a`'s attribute table (87
  columns and more) and of the self-test log is cut in two. A row that starts a table line
  but is not complete is joined with the lines after it until it is (at most three), and so
  are the tables' heading lines and a "Label: value" line whose value's last words went on
  a line of their own.
- Replies quote with "> ": when most lines are quoted, the quote marks go.
- Fragments: attribute rows with no table heading (a few rows copied, the rows of a thread
  reply, a whole table flattened onto one line by a web page) are gathered under a heading of
  their own, so they are read; `notes` says so.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from nastui.collectors.smart.text import BRIEF_ROW

# Sample:   5 Reallocated_Sector_Ct   0x0033   100   100   010    Pre-fail  Always       -       0
CLASSIC_ROW = re.compile(
    r"^\s*\d{1,3}\s+\S+\s+0x[0-9a-fA-F]{4}\s+(?:\d{1,3}|---)\s+(?:\d{1,3}|---)\s+"
    r"(?:\d{1,3}|---)\s+(?:Pre-fail|Old_age)\s+(?:Always|Offline)\s+"
    r"(?:-|FAILING_NOW|In_the_past)\s+\S.*$"
)
# One classic row inside other text (a flattened table); the raw value is its first word.
# Sample: ...  5 Reallocated_Sector_Ct 0x0033 100 100 005 Pre-fail Always - 1179816  ...
_INLINE_ROW = re.compile(
    r"(?<!\S)(?P<row>\d{1,3} +[A-Za-z][\w-]* +0x[0-9a-fA-F]{4} +\d{1,3} +\d{1,3} +"
    r"(?:\d{1,3}|---) +(?:Pre-fail|Old_age) +(?:Always|Offline) +(?:-|FAILING_NOW|In_the_past)"
    r" +\d+)(?!\S)"
)
# Sample: # 1  Short offline       Completed without error       00%     14201         -
SELFTEST_ROW = re.compile(r"^#\s*\d+\s+\S.*?\s+\d{1,3}%\s+\d+\s+\S+\s*$")
# A line that starts a table row (an attribute id and name, or a self-test number).
_ROW_START = re.compile(r"^\s*(?:\d{1,3}\s+[A-Za-z][\w-]*|#\s*\d+\s+[A-Za-z])")
_HEADINGS = (  # a table heading, and the word it ends with
    # Sample: ID# ATTRIBUTE_NAME          FLAG     VALUE WORST THRESH ... RAW_VALUE
    (re.compile(r"^\s*ID#\s+ATTRIBUTE_NAME"), "RAW_VALUE"),
    # Sample: Num  Test_Description    Status    Remaining  LifeTime(hours)  LBA_of_first_error
    (re.compile(r"^\s*Num\s+Test_Description"), "LBA_of_first_error"),
)
# Sample: Model Number:                       Dell Express Flash NVMe P4610 1.6TB SFF
_LABEL = re.compile(r"^[A-Z][\w ./()-]*:\s+\S")
WIDTH = 72  # where mail clients wrap
_TABLE_HEADING = re.compile(r"^\s*ID#\s+ATTRIBUTE_NAME")
_SECTION = re.compile(r"^=== START OF .* SECTION ===")
_QUOTE = re.compile(r"^(?:> ?)+")
CLASSIC_HEADING = (
    "ID# ATTRIBUTE_NAME          FLAG     VALUE WORST THRESH TYPE      UPDATED  WHEN_FAILED "
    "RAW_VALUE"
)
_MAX_JOINS = 3


def _complete(line: str) -> bool:
    return bool(CLASSIC_ROW.match(line) or BRIEF_ROW.match(line) or SELFTEST_ROW.match(line))


def _continues(line: str) -> bool:
    """A line that can be the wrapped rest of a row: not blank, not a row or section."""
    return bool(line.strip()) and not _ROW_START.match(line) and not _SECTION.match(line)


def unquoted(lines: list[str]) -> list[str]:
    """`lines` without mail quote marks, when most non-blank lines carry them."""
    full = [line for line in lines if line.strip()]
    quoted = [line for line in full if _QUOTE.match(line)]
    if not full or 2 * len(quoted) < len(full):
        return lines
    return [_QUOTE.sub("", line) for line in lines]


def _joined_heading(line: str, rest: list[str]) -> tuple[str, int]:
    for heading, last in _HEADINGS:
        if heading.match(line) and last not in line:
            joined, used = line, 0
            while used < len(rest) and used < _MAX_JOINS and last not in joined:
                joined, used = f"{joined} {rest[used].strip()}", used + 1
            return (joined, used) if last in joined else (line, 0)
    return line, 0


def _joined_row(line: str, rest: list[str]) -> tuple[str, int]:
    if not _ROW_START.match(line) or _complete(line):
        return line, 0
    joined, used = line, 0
    while used < len(rest) and used < _MAX_JOINS and _continues(rest[used]):
        joined, used = f"{joined} {rest[used].strip()}", used + 1
        if _complete(joined):
            return joined, used
    return line, 0


def _joined_label(line: str, rest: list[str]) -> tuple[str, int]:
    """A "Label: value" line whose value went on the next line: the next line starts at the
    margin (smartctl indents its own continuation lines), is no label of its own, and its
    first word would not have fitted in `WIDTH` columns (how a hard wrap leaves it)."""
    if not rest or not _LABEL.match(line) or not _continues(rest[0]) or _LABEL.match(rest[0]):
        return line, 0
    if rest[0][:1].isspace():
        return line, 0
    if len(line) + 1 + len(rest[0].split()[0]) <= WIDTH:
        return line, 0
    return f"{line} {rest[0].strip()}", 1


def unwrapped(lines: list[str]) -> tuple[list[str], int]:
    """`lines` with wrapped table rows and headings joined again; and how many were joined."""
    out: list[str] = []
    joined = 0
    i = 0
    while i < len(lines):
        line, used = _joined_heading(lines[i], lines[i + 1 : i + 1 + _MAX_JOINS])
        if not used:
            line, used = _joined_row(lines[i], lines[i + 1 : i + 1 + _MAX_JOINS])
        if not used:
            line, used = _joined_label(lines[i], lines[i + 1 : i + 2])
        out.append(line)
        joined += 1 if used else 0
        i += 1 + used
    return out, joined


def _stray_rows(lines: list[str]) -> Iterator[tuple[int, list[str]]]:
    """(line index, attribute rows) for lines holding rows outside any table heading."""
    for index, line in enumerate(lines):
        if CLASSIC_ROW.match(line) or BRIEF_ROW.match(line):
            yield index, [line.strip()]
            continue
        found = [m["row"] for m in _INLINE_ROW.finditer(line)]
        if found:
            yield index, found


def _with_section(lines: list[str]) -> list[str]:
    """A table pasted without the section line above it gets one (smartctl always prints
    it), so that the text is known for a smartctl report."""
    if any(_SECTION.match(line) for line in lines):
        return lines
    at = next(i for i, line in enumerate(lines) if _TABLE_HEADING.match(line))
    if at > 0 and lines[at - 1].startswith("Vendor Specific SMART Attributes"):
        at -= 1
    return [*lines[:at], "=== START OF READ SMART DATA SECTION ===", *lines[at:]]


def gathered(lines: list[str]) -> tuple[list[str], int]:
    """`lines` with attribute rows that have no table heading (a fragment) moved under one of
    their own at the end; and how many rows were gathered. A report with a table is left as
    it is."""
    if any(_TABLE_HEADING.match(line) for line in lines):
        return _with_section(lines), 0
    strays = dict(_stray_rows(lines))
    rows = [row for found in strays.values() for row in found]
    if not rows:
        return lines, 0
    kept = [line for index, line in enumerate(lines) if index not in strays]
    section = (
        []
        if any(_SECTION.match(line) for line in kept)
        else ["=== START OF READ SMART DATA SECTION ==="]
    )
    table = ["Vendor Specific SMART Attributes with Thresholds:", CLASSIC_HEADING, *rows, ""]
    return [*kept, "", *section, *table], len(rows)


def restored(text: str) -> tuple[str, tuple[str, ...]]:
    """A pasted report put back into smartctl's layout, and one note per repair made."""
    lines = text.splitlines()
    plain = unquoted(lines)
    notes = ["mail quote marks removed"] if plain is not lines else []
    plain, joined = unwrapped(plain)
    if joined:
        notes.append(f"{joined} line(s) broken by wrapping joined again")
    plain, rows = gathered(plain)
    if rows:
        notes.append(f"{rows} attribute row(s) pasted without their table heading read")
    return "\n".join(plain) + ("\n" if text.endswith("\n") else ""), tuple(notes)
