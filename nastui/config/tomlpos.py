"""Line numbers for TOML key paths, read from the raw text (tomllib reports no positions).

`index_lines(text)` maps every key path to the 1-based line that defines it:

- `[table]` and `[a.b]` headers map their path to the header line; tables created implicitly
  (`a` in `[a.b]`, or in a dotted key `a.b = 1`) map to the line that first mentions them;
- `[[array.of.tables]]` numbers each occurrence from 0, so the fourth `[[chassis.bay]]` is
  `("chassis", "bay", 3)` and its keys are `("chassis", "bay", 3, "serial")`; the bare path
  `("chassis", "bay")` maps to the first occurrence;
- `key = value` maps the table path plus the (dotted, quoted or bare) key;
- the items of an array value are numbered too, each at the line it starts on
  (`("zone", 0, "curve", 2)` is the third point of the first zone's curve).

Comments, multi-line strings and the continuation lines of multi-line arrays never look like keys.
The text is expected to be valid TOML (parse it with tomllib first); anything the indexer does not
understand is skipped to the end of its line, never raised.
"""

from __future__ import annotations

import bisect
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass

KeyPath = tuple[str | int, ...]

# Sample: chassis
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
# Sample: "thresholds \"quoted\""
_BASIC_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
# Sample: 'C:\literal'
_LITERAL_STRING = re.compile(r"'[^'\n]*'")
# Sample: """two\nlines""" (up to two quotes may end the content: """say "hi"""")
_ML_BASIC_STRING = re.compile(r'"""(?:[^\\"]|\\.|"{1,2}(?!"))*"{3,5}', re.DOTALL)
# Sample: '''two\nlines'''
_ML_LITERAL_STRING = re.compile(r"'''(?:[^']|'{1,2}(?!'))*'{3,5}", re.DOTALL)

_BLANK = " \t\r\n"
_NOT_AN_ITEM = _BLANK + "#,]"


@dataclass(frozen=True, slots=True)
class LineIndex:
    """Key paths and the lines that define them.

    Attributes:
        lines: key path -> 1-based line number.
    """

    lines: Mapping[KeyPath, int]

    def line_of(self, path: KeyPath) -> int | None:
        """The line defining `path`, else that of its nearest enclosing table or array.

        A key that is absent (the subject of a "missing key" message) thus points at the header
        of the table it should have been in. None when no prefix of `path` is known.
        """
        for end in range(len(path), 0, -1):
            line = self.lines.get(path[:end])
            if line is not None:
                return line
        return None


def index_lines(text: str) -> LineIndex:
    """Map each key path of a TOML document to the line defining it.

    Args:
        text: the document (valid TOML; invalid parts are skipped, not raised).

    Returns:
        The index; use `LineIndex.line_of` for lookups with fallback.
    """
    indexer = _Indexer(text)
    indexer.run()
    return LineIndex(dict(indexer.lines))


class _Indexer:
    """One pass over the text; `table` is the path keys are currently added under."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self.lines: dict[KeyPath, int] = {}
        self.counts: dict[KeyPath, int] = {}
        self.table: KeyPath = ()

    def line_at(self, pos: int) -> int:
        return bisect.bisect_right(self.starts, pos)

    def run(self) -> None:
        pos = self.skip_blank(0)
        while pos < len(self.text):
            if self.text.startswith("[[", pos):
                pos = self.header(pos + 2, array=True)
            elif self.text[pos] == "[":
                pos = self.header(pos + 1, array=False)
            else:
                pos = self.key_value(pos)
            pos = self.skip_blank(pos)

    def skip_blank(self, pos: int) -> int:
        """Past whitespace, newlines and comments."""
        while pos < len(self.text):
            if self.text[pos] in _BLANK:
                pos += 1
            elif self.text[pos] == "#":
                pos = self.end_of_line(pos)
            else:
                break
        return pos

    def end_of_line(self, pos: int) -> int:
        end = self.text.find("\n", pos)
        return len(self.text) if end < 0 else end

    def header(self, pos: int, *, array: bool) -> int:
        line = self.line_at(pos)
        keys, pos = self.read_key(pos)
        if not keys:
            return self.end_of_line(pos)
        path = self.resolve(keys[:-1], line)
        path += (keys[-1],)
        if array:
            self.lines.setdefault(path, line)
            index = self.counts.get(path, 0)
            self.counts[path] = index + 1
            path += (index,)
        self.lines[path] = line
        self.table = path
        return self.end_of_line(pos)

    def resolve(self, keys: list[str], line: int) -> KeyPath:
        """The path of a header's parent keys, entering the latest element of any array."""
        path: KeyPath = ()
        for key in keys:
            path += (key,)
            self.lines.setdefault(path, line)
            if path in self.counts:
                path += (self.counts[path] - 1,)
        return path

    def key_value(self, pos: int) -> int:
        line = self.line_at(pos)
        keys, pos = self.read_key(pos)
        pos = self.skip_spaces(pos)
        if not keys or not self.text.startswith("=", pos):
            return self.end_of_line(pos)
        path = self.table
        for key in keys[:-1]:
            path += (key,)
            self.lines.setdefault(path, line)
        path += (keys[-1],)
        self.lines[path] = line
        return self.value(self.skip_spaces(pos + 1), path)

    def skip_spaces(self, pos: int) -> int:
        while pos < len(self.text) and self.text[pos] in " \t":
            pos += 1
        return pos

    def read_key(self, pos: int) -> tuple[list[str], int]:
        """A dotted key (`a."b c".'d'`), decoded, and the position after it."""
        keys: list[str] = []
        while True:
            pos = self.skip_spaces(pos)
            match = (
                _BARE_KEY.match(self.text, pos)
                or _BASIC_STRING.match(self.text, pos)
                or _LITERAL_STRING.match(self.text, pos)
            )
            if match is None:
                return keys, pos
            keys.append(_decode_key(match.group()))
            pos = self.skip_spaces(match.end())
            if not self.text.startswith(".", pos):
                return keys, pos
            pos += 1

    def value(self, pos: int, path: KeyPath) -> int:
        """Past one value (which may span lines), numbering the items of a top-level array."""
        depth = 0
        item = 0
        expect_item = False
        is_array = self.text.startswith("[", pos)
        while pos < len(self.text):
            char = self.text[pos]
            if expect_item and depth == 1 and char not in _NOT_AN_ITEM:
                self.lines[(*path, item)] = self.line_at(pos)
                item += 1
                expect_item = False
            if char in "\"'":
                pos = self.string_end(pos)
                continue
            if char == "#":
                pos = self.end_of_line(pos)
                continue
            if char == "\n" and depth <= 0:
                return pos
            if char in "[{":
                depth += 1
            elif char in "]}":
                depth -= 1
            if is_array and depth == 1 and char in "[,":
                expect_item = True
            pos += 1
        return pos

    def string_end(self, pos: int) -> int:
        for pattern in (_ML_BASIC_STRING, _ML_LITERAL_STRING, _BASIC_STRING, _LITERAL_STRING):
            match = pattern.match(self.text, pos)
            if match is not None:
                return match.end()
        return self.end_of_line(pos)


def _decode_key(token: str) -> str:
    """A key token as tomllib reads it: bare as is, quoted ones unescaped."""
    if token[0] == '"':
        try:
            decoded = tomllib.loads(f"k = {token}")["k"]
        except tomllib.TOMLDecodeError:
            return token
        return decoded if isinstance(decoded, str) else token
    if token[0] == "'":
        return token[1:-1]
    return token
