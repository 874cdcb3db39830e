"""The fan screen's text (pure): the fan list, a zone's curve as a character chart with its
points and the operating point, the duty each zone's curve gives now, and the replay.

The chart draws with whole character cells only. Unicode: `·` curve, `●` points, `◆` the
selected point, `×` where the zone is now. ASCII (serial consoles): `.`, `o`, `@` and `X`.
Colour is never the only signal: every mark is its own character.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from rich.text import Text

from nastui.core.glyphs import Glyphs
from nastui.fans.logic.curve import curve_duty
from nastui.fans.logic.preview import ReplayStep, summarize
from nastui.fans.logic.zone import ZoneDecision
from nastui.model import Fan, FanZone, ZoneMode
from nastui.ui.render.style import DIM, LABEL, degrees, fit


@dataclass(frozen=True, slots=True)
class ChartGlyphs:
    """The marks a curve chart is drawn with."""

    curve: str
    point: str
    selected: str
    now: str
    vline: str
    hline: str
    corner: str
    ramp: str


UNICODE_CHART = ChartGlyphs("·", "●", "◆", "×", "│", "─", "└", "▁▂▃▄▅▆▇█")
ASCII_CHART = ChartGlyphs(".", "o", "@", "X", "|", "-", "+", "_.-=+*#")
Y_LABEL = 5  # "100%" and the axis


def chart_glyphs(glyphs: Glyphs) -> ChartGlyphs:
    """The chart's marks for the app's glyph set."""
    return ASCII_CHART if glyphs.ascii else UNICODE_CHART


def fan_list_text(fans: Sequence[Fan], width: int, glyphs: Glyphs) -> Text:
    """One line per fan: name, zone, RPM and duty; a stalled fan says STALLED for its zone."""
    if not fans:
        return Text("no fans found", style=DIM)
    name_w = max(6, min(16, max(len(f.name) for f in fans), width - 22))
    text = Text(fit(f"{'':<{name_w}} {'zone':<8}{'rpm':>6} duty", width, glyphs), style=DIM)
    for fan in fans:
        text.append("\n")
        rpm = f"{fan.rpm}" if fan.rpm is not None else "?"
        duty = f"{fan.duty_percent:.0f}%" if fan.duty_percent is not None else "-"
        zone = "STALLED" if fan.stalled else fit(fan.zone or "-", 8, glyphs)
        line = f"{fit(fan.name, name_w, glyphs):<{name_w}} {zone:<8}{rpm:>6} {duty:>4}"
        text.append(fit(line, width, glyphs), style="bold red" if fan.stalled else "")
    return text


def _temp_range(zone: FanZone, now_c: float | None) -> tuple[float, float]:
    temps = [p.temp_c for p in zone.curve.points] + ([now_c] if now_c is not None else [])
    low = math.floor((min(temps) - 5) / 5) * 5
    high = math.ceil((max(temps) + 5) / 5) * 5
    if high - low < 20:
        high = low + 20
    return low, high


def chart_text(
    zone: FanZone,
    selected: int,
    now: tuple[float, float] | None,
    size: tuple[int, int],
    glyphs: Glyphs,
) -> Text:
    """`zone`'s curve in `size` (columns, rows) cells: duty up, temperature across."""
    g = chart_glyphs(glyphs)
    width, height = size
    plot_w, plot_h = max(10, width - Y_LABEL - 1), max(3, height - 2)
    plot_h -= 1 - plot_h % 2  # odd, so that 50 % has a row of its own
    low, high = _temp_range(zone, now[0] if now else None)
    grid = [[(" ", "")] * plot_w for _ in range(plot_h)]

    def cell(temp: float, duty: float) -> tuple[int, int]:
        col = round((temp - low) / (high - low) * (plot_w - 1))
        row = round((100 - duty) / 100 * (plot_h - 1))
        return min(plot_h - 1, max(0, row)), min(plot_w - 1, max(0, col))

    for col in range(plot_w):
        temp = low + col * (high - low) / (plot_w - 1)
        row, _ = cell(temp, curve_duty(zone.curve, temp))
        grid[row][col] = (g.curve, "cyan")
    for i, point in enumerate(zone.curve.points):
        row, col = cell(point.temp_c, point.duty_percent)
        grid[row][col] = (g.selected, "bold reverse") if i == selected else (g.point, "bold")
    if now is not None:
        row, col = cell(*now)
        grid[row][col] = (g.now, "bold red")
    return _framed(grid, (low, high), plot_w, g)


def _framed(
    grid: list[list[tuple[str, str]]], span: tuple[float, float], plot_w: int, g: ChartGlyphs
) -> Text:
    text = Text()
    plot_h = len(grid)
    for row, cells in enumerate(grid):
        duty = 100 - row * 100 / (plot_h - 1)
        label = f"{duty:.0f}%" if row in (0, plot_h // 2, plot_h - 1) else ""
        text.append(f"{label:>{Y_LABEL - 1}}{g.vline}", style=DIM)
        for char, style in cells:
            text.append(char, style=style)
        text.append("\n")
    text.append(" " * (Y_LABEL - 1) + g.corner + g.hline * plot_w + "\n", style=DIM)
    low, high = span
    ticks = [" "] * (plot_w + 6)
    for temp in range(int(low), int(high) + 1, 10 if high - low > 40 else 5):
        col = Y_LABEL + round((temp - low) / (high - low) * (plot_w - 1))
        label = str(temp)
        start = max(0, min(col - len(label) // 2, len(ticks) - len(label)))
        if all(c == " " for c in ticks[max(0, start - 1) : start + len(label) + 1]):
            ticks[start : start + len(label)] = label
    text.append("".join(ticks).rstrip(), style=DIM)
    return text


def status_text(zone: FanZone, selected: int, dirty: bool, draft: bool, glyphs: Glyphs) -> Text:
    """The line under the chart: the selected point, hysteresis, min duty, saved or not."""
    curve = zone.curve
    point = curve.points[selected]
    text = Text()
    text.append(f"{selected + 1}/{len(curve.points)} ", style=LABEL)
    text.append(f"{degrees(point.temp_c, glyphs)} {point.duty_percent:.0f}%")
    text.append(f"  hyst {curve.hysteresis_c:g}  min {curve.min_duty:.0f}%", style=DIM)
    if zone.mode is ZoneMode.PID:
        text.append(f"  pid {degrees(zone.setpoint_c, glyphs)}", style=DIM)
    if draft:
        text.append("  draft", style="yellow")
    elif dirty:
        text.append("  unsaved", style="bold yellow")
    return text


def preview_text(decisions: Sequence[ZoneDecision], width: int, glyphs: Glyphs) -> Text:
    """Each zone's duty at the current temperatures, fail-safes first in the eye."""
    if not decisions:
        return Text("no zones", style=DIM)
    text = Text()
    for i, d in enumerate(decisions):
        if i:
            text.append("\n")
        temp = degrees(d.temp_c, glyphs) if d.temp_c is not None else "?"
        text.append(f"{fit(d.zone, 10, glyphs):<10} ", style=LABEL)
        if d.failsafe:
            why = d.reason.removeprefix("fail-safe: ")
            text.append(fit(f"FAIL-SAFE 100% {why}", width - 11, glyphs), style="bold red")
            continue
        text.append(f"{temp:>5} -> {d.duty:3.0f}%")
    return text


def spark(values: Sequence[float | None], low: float, high: float, width: int, ramp: str) -> str:
    """`values` squeezed into `width` cells of `ramp` characters (blank where unknown)."""
    if not values or width <= 0:
        return ""
    cells: list[str] = []
    count = min(width, len(values))
    for i in range(count):
        chunk = values[i * len(values) // count : (i + 1) * len(values) // count]
        known = [v for v in chunk if v is not None]
        if not known:
            cells.append(" ")
            continue
        share = (max(known) - low) / (high - low) if high > low else 0.5
        cells.append(ramp[min(len(ramp) - 1, max(0, round(share * (len(ramp) - 1))))])
    return "".join(cells)


def replay_text(zone: FanZone, steps: Sequence[ReplayStep], width: int, glyphs: Glyphs) -> Text:
    """What the curve would have done over the stored history: numbers and two sparklines."""
    summary = summarize(steps)
    text = Text()
    text.append(f"{zone.name}: ", style=LABEL)
    if summary is None or summary.steps < 2:
        now = f": {steps[-1].duty:.0f}% now" if steps else ""
        text.append(f"no history yet{now}; it grows as nastui runs (24 h kept)", style=DIM)
        return text
    hours = summary.span_s / 3600
    span = f"{hours:.1f} h" if hours >= 1 else f"{summary.span_s / 60:.0f} min"
    line = (
        f"{span}, {summary.steps} steps: duty {summary.min_duty:.0f}-{summary.max_duty:.0f}% "
        f"(mean {summary.mean_duty:.0f}%), {summary.changes} changes, "
        f"{summary.full_s / 60:.0f} min at 100%"
    )
    text.append(fit(line, width - len(zone.name) - 2, glyphs))
    ramp = chart_glyphs(glyphs).ramp
    temps = [s.temp_c for s in steps]
    known = [t for t in temps if t is not None]
    if known:
        low, high = min(known), max(known)
        text.append(f"\n{f'temp {low:.0f}-{high:.0f}':<13}", style=DIM)
        text.append(spark(temps, low, high, width - 13, ramp), style="yellow")
    text.append(f"\n{'duty 0-100%':<13}", style=DIM)
    text.append(spark([s.duty for s in steps], 0, 100, width - 13, ramp), style="cyan")
    return text
