"""Styles and small drawing helpers shared by the panel builders.

Colours are the 16 ANSI ones, so they cost few bytes, survive a 16-colour serial console and
follow the operator's terminal palette; every coloured thing also carries a word or mark.
"""

from __future__ import annotations

from rich.text import Text

from nastui.core.glyphs import Glyphs
from nastui.model import Health, PoolState

HEALTH_STYLE = {
    Health.OK: "green",
    Health.WARNING: "yellow",
    Health.CRITICAL: "bold red",
    Health.UNKNOWN: "magenta",
}
POOL_STATE_STYLE = {
    PoolState.ONLINE: "green",
    PoolState.DEGRADED: "yellow",
    PoolState.OFFLINE: "yellow",
    PoolState.AVAIL: "green",
    PoolState.INUSE: "yellow",
}
DIM = "dim"
LABEL = "bold"


def pool_state_style(state: PoolState) -> str:
    """Colour of a pool or vdev state word."""
    return POOL_STATE_STYLE.get(state, "bold red")


def bar(percent: float | None, width: int, glyphs: Glyphs) -> Text:
    """A progress bar `width` cells wide: "█████░░░░░" or "#####.....".

    Cells are whole: no eighth-blocks, which a Linux console font does not have.
    """
    width = max(1, width)
    done = 0 if percent is None else round(width * min(100.0, max(0.0, percent)) / 100)
    text = Text()
    text.append(glyphs.bar_full * done, style="cyan")
    text.append(glyphs.bar_empty * (width - done), style=DIM)
    return text


def fit(text: str, width: int, glyphs: Glyphs, *, keep_end: bool = False) -> str:
    """`text` cut to `width` characters with an ellipsis; `keep_end` keeps the tail (serials)."""
    if len(text) <= width:
        return text
    dots = glyphs.ellipsis
    if width <= len(dots):
        return text[:width]
    if keep_end:
        return dots + text[len(text) - (width - len(dots)) :]
    return text[: width - len(dots)] + dots


def degrees(value: float | None, glyphs: Glyphs) -> str:
    """A temperature: "36 °C", or "36 C" in ASCII."""
    if value is None:
        return "?"
    return f"{value:.0f} {glyphs.degree}C" if glyphs.degree else f"{value:.0f} C"
