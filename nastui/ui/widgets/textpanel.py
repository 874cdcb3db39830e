"""`TextPanel`: a block of text that repaints only the lines that changed.

A `Static` repaints its whole area on every update; on a serial console a fan RPM ticking in a
seven-line panel would cost the full panel each poll. This widget keeps the previous lines and
marks only changed ones dirty. Text is built for the current width by a builder function, so it
re-flows on resize. A line longer than the panel is folded under itself (`wrap=True`: detail
text, where every word matters) or cut with a `~` in its last column: a cut is never silent.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from rich.text import Text
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widget import Widget

from nastui.core.glyphs import ascii_char
from nastui.ui.redraw import changed_cells

Builder = Callable[[int], Text]


def ascii_text(text: Text) -> Text:
    """`text` with non-ASCII characters replaced (see `to_ascii`), styles kept in place."""
    plain = text.plain
    if plain.isascii():
        return text
    pieces: list[str] = []
    where: list[int] = []  # where each character of `plain` starts in the result, and the end
    at = 0
    for char in plain:
        where.append(at)
        piece = ascii_char(char)
        pieces.append(piece)
        at += len(piece)
    where.append(at)
    result = Text("".join(pieces), style=text.style, end=text.end)
    for span in text.spans:
        result.stylize(span.style, where[span.start], where[span.end])
    return result


CUT_MARK = "~"


def _hang(plain: str, width: int) -> int:
    """Where a folded line's continuation starts: under a column of text ("  d / 1   dashboard"
    continues under "dashboard"), else two past the line's own indent."""
    lead = len(plain) - len(plain.lstrip(" "))
    gap = re.search(r"\S {2,}(?=\S)", plain[: width // 2])
    return gap.end() if gap else min(lead + 2, width // 2)


def fold(line: Text, width: int) -> list[Text]:
    """`line` folded at spaces into lines of `width`, the rest hung under its text."""
    indent = _hang(line.plain, width)
    out: list[Text] = []
    rest = line
    room = width
    while rest.cell_len > room:
        plain = rest.plain
        cut = plain.rfind(" ", 0, room + 1)
        if cut <= len(plain) - len(plain.lstrip(" ")):
            cut = room  # one word longer than the line: fold inside it, nothing is lost
        head, rest = rest[:cut], rest[cut:]
        head.rstrip()
        out.append(head)
        rest = Text(" " * indent) + rest[len(rest.plain) - len(rest.plain.lstrip(" ")) :]
        room = width
    out.append(rest)
    return out


def fit_lines(lines: list[Text], width: int, *, wrap: bool) -> list[Text]:
    """Every line within `width` cells: folded (`wrap`) or cut with `CUT_MARK` at the end."""
    if width <= 0:
        return lines
    fitted: list[Text] = []
    for line in lines:
        if line.cell_len <= width:
            fitted.append(line)
        elif wrap:
            fitted.extend(fold(line, width))
        else:
            cut = line[: max(0, width - 1)]
            cut.truncate(width - 1)
            cut.append(CUT_MARK, style="dim")
            fitted.append(cut)
    return fitted


class TextPanel(Widget):
    """Lines of styled text from a builder; height follows the line count."""

    DEFAULT_CSS = """
    TextPanel { height: auto; }
    """

    def __init__(
        self, *, id: str | None = None, classes: str | None = None, wrap: bool = False
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.wrap = wrap
        self._builder: Builder | None = None
        self._lines: list[Text] = []
        self._strips: dict[int, Strip] = {}

    def show(self, builder: Builder) -> None:
        """Build the text with `builder(width)` now and again on every resize."""
        self._builder = builder
        self._rebuild()

    def on_resize(self) -> None:
        self._rebuild(force=True)

    def _rebuild(self, *, force: bool = False) -> None:
        if self._builder is None:
            return
        width = self.content_region.width or self.app.size.width
        built = self._builder(width)
        if getattr(self.app, "ascii_only", False):
            built = ascii_text(built)
        visible = bool(built.plain) or not self.has_class("section")
        if visible != self.display:
            self.display = visible
        lines = fit_lines(list(built.split("\n", allow_blank=True)), width, wrap=self.wrap)
        old = self._lines
        self._lines = list(lines)
        if force or len(lines) != len(old):
            self._strips.clear()
            self.refresh(layout=len(lines) != len(old))
            return
        for y, (new_line, old_line) in enumerate(zip(lines, old, strict=True)):
            if new_line != old_line:
                self._strips.pop(y, None)
                start, end = changed_cells(old_line, new_line, self.size.width)
                if end > start:
                    self.refresh(Region(start, y, end - start, 1))

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._lines)

    def render_line(self, y: int) -> Strip:
        strip = self._strips.get(y)
        if strip is None:
            if y >= len(self._lines):
                return Strip.blank(self.size.width, self.rich_style)
            line = self._lines[y]
            line.end = ""
            segments = list(line.render(self.app.console))
            strip = Strip(segments, line.cell_len).apply_style(self.rich_style).simplify()
            self._strips[y] = strip
        return strip.crop_extend(0, self.size.width, self.rich_style)

    @property
    def plain(self) -> str:
        """The panel's text without styles (for tests)."""
        return "\n".join(line.plain for line in self._lines)
