"""Redraw only what changed: setters that skip Textual's refresh when nothing would look new.

Textual repaints a widget (and with a container, everything inside it) on every assignment of
its border title or subtitle, even when the text is the same. On a serial console that turned
the fleet screen's two-second tick into a full repaint of its table. These setters compare the
new text with the one drawn and assign only on a change.
"""

from __future__ import annotations

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


def _markup(widget: Widget, text: str) -> str:
    """`text` as the title getter returns it once set (Textual stores it parsed, first line)."""
    return widget.render_str(text).expand_tabs(4).split()[0].markup
