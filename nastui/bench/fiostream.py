"""Splitting fio's live output into its JSON documents (pure).

`fio --output-format=json+ --status-interval=1 --eta=never` prints one complete JSON object per
interval on stdout, and a last one when the job ends. Each top-level object opens with a line
that is exactly `{` and closes with a line that is exactly `}`; every nested brace is indented.
Splitting on those two lines needs no JSON parser and never waits for more than one line, and a
document cut short (fio killed mid-dump) shows up as `broken` the moment the next one starts or
the stream ends. Lines between documents ("fio: terminating on signal 2") are `note`s.

# Sample:
{
  "fio version" : "fio-3.33",
  "timestamp_ms" : 1795250101346,
  "jobs" : [ ... ]
}
fio: terminating on signal 2
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass


class PieceKind(enum.Enum):
    """What a piece of the stream is."""

    DOCUMENT = "document"  # one complete top-level JSON object (not yet parsed)
    NOTE = "note"  # a line outside any document
    BROKEN = "broken"  # a document cut short: the stream ended or a new one began inside it


@dataclass(frozen=True, slots=True)
class Piece:
    """A piece of fio's output.

    Attributes:
        kind: document, note or broken document.
        text: the document's lines joined with newlines, or the note.
        line_no: 1-based line number where it began.
    """

    kind: PieceKind
    text: str
    line_no: int


class StreamSplitter:
    """Feed fio's stdout one line at a time; complete pieces come back as they end."""

    def __init__(self) -> None:
        self._lines: list[str] | None = None
        self._start = 0
        self._line_no = 0

    @property
    def inside(self) -> bool:
        """Whether a document has begun and not yet ended."""
        return self._lines is not None

    def feed(self, line: str) -> list[Piece]:
        """One line of output (its line end optional); returns the pieces it completed."""
        self._line_no += 1
        text = line.rstrip("\r\n")
        if text == "{":
            done = self._cut()
            self._lines, self._start = [text], self._line_no
            return done
        if self._lines is None:
            return [Piece(PieceKind.NOTE, text, self._line_no)] if text.strip() else []
        self._lines.append(text)
        if text != "}":
            return []
        piece = Piece(PieceKind.DOCUMENT, "\n".join(self._lines), self._start)
        self._lines = None
        return [piece]

    def close(self) -> list[Piece]:
        """The end of the stream: a document still open is broken."""
        return self._cut()

    def _cut(self) -> list[Piece]:
        if self._lines is None:
            return []
        piece = Piece(PieceKind.BROKEN, "\n".join(self._lines), self._start)
        self._lines = None
        return [piece]


def split_stream(lines: Iterable[str]) -> list[Piece]:
    """Every piece of a whole captured stream, in order."""
    splitter = StreamSplitter()
    pieces: list[Piece] = []
    for line in lines:
        pieces.extend(splitter.feed(line))
    pieces.extend(splitter.close())
    return pieces
