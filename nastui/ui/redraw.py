"""Redraw only what changed: setters that skip Textual's refresh when nothing would look new,
and partial updates that write only the changed cells.

Textual repaints a widget (and with a container, everything inside it) on every assignment of
its border title or subtitle, even when the text is the same. On a serial console that turned
the fleet screen's two-second tick into a full repaint of its table. These setters compare the
new text with the one drawn and assign only on a change. `install_changed_cells_only` makes a
partial update start at the first changed cell of a line, not at the widget's left edge.
"""

from __future__ import annotations

from typing import Any

from rich.cells import get_character_cell_size
from rich.console import Console
from rich.control import Control
from rich.text import Text
from textual._compositor import ChopsUpdate
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget


def set_border_title(widget: Widget, title: str) -> bool:
    """Give `widget` the border title `title` unless it already has it; True if it changed."""
    if widget.border_title == _markup(widget, title):
        return False
    widget.border_title = title
    return True


def set_border_subtitle(widget: Widget, subtitle: str) -> bool:
    """Give `widget` the border subtitle `subtitle` unless it already has it; True if changed."""
    if widget.border_subtitle == _markup(widget, subtitle):
        return False
    widget.border_subtitle = subtitle
    return True


def set_display(widget: Widget, shown: bool) -> bool:
    """Show or hide `widget` unless it already is; True if it changed."""
    if widget.display == shown:
        return False
    widget.display = shown
    return True


def changed_cells(old: Text, new: Text, width: int) -> tuple[int, int]:
    """The cells [start, end) of a line that differ between `old` and `new` as drawn in
    `width` cells: the whole line unless both are ASCII with the same styles in the same
    places, then from the first to the last differing character (a shorter line blanks
    the rest of the old one)."""
    same_styles = old.style == new.style and old.spans == new.spans
    if not (same_styles and old.plain.isascii() and new.plain.isascii()):
        return 0, width
    a, b = old.plain, new.plain
    longest = max(len(a), len(b))
    diff = [i for i in range(longest) if (a[i : i + 1] or " ") != (b[i : i + 1] or " ")]
    if not diff:
        return 0, 0
    return min(diff[0], width), min(diff[-1] + 1, width)


def _markup(widget: Widget, text: str) -> str:
    """`text` as the title getter returns it once set (Textual stores it parsed, first line)."""
    return widget.render_str(text).expand_tabs(4).split()[0].markup


def _cut_start(strip: Strip, offset: int) -> int:
    """The cell where a crop at `offset` may start: `offset`, or the start of a double-width
    character that straddles it (half a character is never written)."""
    pos = 0
    for segment in strip:
        if segment.control:
            continue
        for char in segment.text:
            width = get_character_cell_size(char)
            if pos + width > offset:
                return pos
            pos += width
    return pos


def render_changed_cells(update: ChopsUpdate, console: Console) -> str:
    """`ChopsUpdate.render_segments`, cropped at both ends of each changed span.

    Textual 8.2 crops a partial update only at the span's end: a changed cell at column 60 of
    a widget that starts at column 0 rewrote the 60 unchanged cells before it (a bay grid
    cell, a new column of a benchmark graph). Here each piece starts at the span's first cell.
    """
    sequences: list[str] = []
    append = sequences.append
    last_y = update.spans[-1][0]
    for y, x1, x2 in update.spans:
        for end, (x, strip) in zip(update.chop_ends[y], update.chops[y].items(), strict=False):
            if strip is None or x > x2 or end <= x1:
                continue
            start = _cut_start(strip, max(0, x1 - x))
            piece = strip.crop(start, min(end, x2) - x)
            append(Control.move_to(x + start, y).segment.text)
            append(piece.render(console))
        if y != last_y:
            append("\n")
    return "".join(sequences)


def install_changed_cells_only() -> None:
    """Make Textual's partial updates write only the changed span of each line (see
    `render_changed_cells`). Idempotent."""
    ChopsUpdate.render_segments = render_changed_cells  # type: ignore[method-assign,assignment]


def paint_now(screen: Screen[Any]) -> None:
    """Paint the whole of `screen` now, in one full update after its layout.

    Textual paints on a timer of 1/TEXTUAL_FPS s (50 ms here), and a paint owed after a batch
    (the held first frame) waits for its next tick. On that tick it would also lay the screen
    out and write the changed regions, then repaint the whole screen over them: two writes,
    the first one wasted. Here the whole screen is marked for the update that follows the
    layout, and nothing is painted twice."""
    screen._repaint_required = False  # the full update below is that repaint
    screen._dirty_widgets.add(screen)
    screen._on_timer_update()


def start_update_timer(screen: Screen[Any]) -> None:
    """Start `screen`'s update timer now (as it is composed), not at its first paint.

    The timer's first tick comes a whole period (50 ms) after it is first resumed: started at
    the first paint, the update just after it (the fleet's first poll, which completes the
    first frame) waited that long with nothing to do. Started with the screen, it has run
    most of its first period by then, and that update is painted about when it is owed."""
    screen._update_timer.resume()
