"""Benchmark time series as character charts (pure): the TUI's live graphs and `bench show`.

A chart is a grid of cells (character, style role) that changes as little as possible while a run
goes on, so a terminal repaints only what moved (a serial console at 115200 baud stays cheap):
- the time axis: one column per sample until the chart is full, then 2, 4, 8 ... samples per
  column (powers of two: the whole chart is redrawn only when the scale doubles);
- the value axis: a round top above the highest value, raised only when a value passes it;
  latency uses whole decades on a log scale (p99 is often 100 x p50).
Rates draw as bars: Unicode eighth blocks, or `_ = #` in ASCII (serial consoles have no eighth
blocks). Latency draws as marks: p50 `•`/`o`, p99 `×`/`x`: a mark, not only a colour.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from nastui.model import BenchSample, Phase

Cell = tuple[str, str]  # (character, role): roles "bar", "ramp", "p50", "p99", "" (blank)
BLANK: Cell = (" ", "")
LABEL_W = 7  # "12.3k |"


@dataclass(frozen=True, slots=True)
class ChartGlyphs:
    """What charts draw with."""

    levels: str  # partial cell fills, empty to full
    p50: str
    p99: str
    axis: str


UNICODE_CHART = ChartGlyphs(" ▁▂▃▄▅▆▇█", "•", "×", "│")
ASCII_CHART = ChartGlyphs(" _=#", "o", "x", "|")


def chart_glyphs(ascii_only: bool) -> ChartGlyphs:
    """The glyph set for a terminal."""
    return ASCII_CHART if ascii_only else UNICODE_CHART


def per_column(count: int, width: int) -> int:
    """Samples per column: the smallest power of two that fits `count` in `width` columns."""
    step = 1
    while count > step * max(1, width):
        step *= 2
    return step


def nice_top(value: float) -> float:
    """A round axis top at or above `value`: 1, 2, 2.5, 5 x 10^n (at least 1)."""
    if value <= 1:
        return 1.0
    power = 10.0 ** math.floor(math.log10(value))
    for factor in (1.0, 2.0, 2.5, 5.0):
        if value <= factor * power:
            return factor * power
    return 10.0 * power


def short(value: float | None, unit: str = "") -> str:
    """A value in at most five characters: 987, 12.3k, 1.2M, 45G."""
    if value is None:
        return "-"
    for div, suffix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= div:
            scaled = value / div
            return f"{scaled:.1f}{suffix}{unit}" if scaled < 10 else f"{scaled:.0f}{suffix}{unit}"
    return f"{value:.0f}{unit}" if value >= 10 or value == 0 else f"{value:.1f}{unit}"


def latency(ns: float | None) -> str:
    """A latency: 85us, 1.2ms, 14ms, 1.1s."""
    if ns is None:
        return "-"
    for div, unit in ((1e9, "s"), (1e6, "ms"), (1e3, "us")):
        if ns >= div:
            value = ns / div
            return f"{value:.1f}{unit}" if value < 10 else f"{value:.0f}{unit}"
    return f"{ns:.0f}ns"


def buckets(
    values: Sequence[float | None], step: int, merge: Callable[[list[float]], float]
) -> list[float | None]:
    """`values` merged `step` at a time (None where a bucket has no value)."""
    out: list[float | None] = []
    for start in range(0, len(values), step):
        chunk = [v for v in values[start : start + step] if v is not None]
        out.append(merge(chunk) if chunk else None)
    return out


def mean(values: list[float]) -> float:
    """The arithmetic mean of a non-empty list."""
    return sum(values) / len(values)


def bar_rows(
    values: Sequence[float | None],
    roles: Sequence[str],
    height: int,
    top: float,
    glyphs: ChartGlyphs,
) -> list[list[Cell]]:
    """Vertical bars, one per value, in `height` rows scaled to `top`; row 0 is the top."""
    levels = len(glyphs.levels) - 1
    grid = [[BLANK] * len(values) for _ in range(height)]
    for col, value in enumerate(values):
        if value is None or value <= 0:
            continue
        units = min(height * levels, round(value / top * height * levels))
        full, part = divmod(units, levels)
        for row in range(full):
            grid[height - 1 - row][col] = (glyphs.levels[-1], roles[col])
        if part and full < height:
            grid[height - 1 - full][col] = (glyphs.levels[part], roles[col])
    return grid


def decades(values: Sequence[float | None]) -> tuple[float, float]:
    """Log-scale bounds for latencies: whole decades around them (10us..10ms)."""
    seen = [v for v in values if v is not None and v > 0]
    if not seen:
        return 1e3, 1e6
    low = 10 ** math.floor(math.log10(min(seen)))
    high = 10 ** math.ceil(math.log10(max(seen)))
    return float(low), float(high if high > low else low * 10)


def mark_rows(
    series: Sequence[tuple[Sequence[float | None], Cell]],
    height: int,
    bounds: tuple[float, float],
) -> list[list[Cell]]:
    """Marks on a log scale; later series draw over earlier ones in a shared cell."""
    width = max((len(values) for values, _ in series), default=0)
    grid = [[BLANK] * width for _ in range(height)]
    low, high = (math.log10(b) for b in bounds)
    for values, cell in series:
        for col, value in enumerate(values):
            if value is None or value <= 0:
                continue
            where = (math.log10(value) - low) / (high - low)
            row = height - 1 - min(height - 1, max(0, round(where * (height - 1))))
            grid[row][col] = cell
    return grid


@dataclass(frozen=True, slots=True)
class Chart:
    """A chart ready to draw: axis labels per row and the plot cells."""

    labels: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]
    step: int  # samples per column
    span: tuple[float, float] = (0.0, 1.0)  # the value axis: (0, top), or latency decades


def measured(samples: Sequence[BenchSample]) -> list[BenchSample]:
    """The samples worth plotting: not the file-layout phase."""
    return [s for s in samples if s.phase is not Phase.SETUP]


def rate_chart(
    samples: Sequence[BenchSample],
    value: Callable[[BenchSample], float],
    size: tuple[int, int],
    glyphs: ChartGlyphs,
    top: float | None = None,
) -> Chart:
    """IOPS or bytes/s over time as bars in `size` (plot columns, rows)."""
    width, height = size
    shown = measured(samples)
    step = per_column(len(shown), width)
    values = buckets([value(s) for s in shown], step, mean)
    roles = buckets([0.0 if s.phase is Phase.RAMP else 1.0 for s in shown], step, max)
    role = ["bar" if r else "ramp" for r in roles]
    axis_top = top if top is not None else nice_top(max((v or 0 for v in values), default=0))
    rows = bar_rows(values, role, height, axis_top, glyphs)
    labels = tuple(
        short(axis_top) if r == 0 else ("0" if r == height - 1 else "") for r in range(height)
    )
    return Chart(labels, tuple(tuple(r) for r in rows), step, (0.0, axis_top))


def latency_chart(
    samples: Sequence[BenchSample],
    size: tuple[int, int],
    glyphs: ChartGlyphs,
    within: tuple[float, float] | None = None,
) -> Chart:
    """p50 and p99 latency over time as marks on a log scale (at least the decades `within`:
    a live chart's scale then only widens)."""
    width, height = size
    shown = measured(samples)
    step = per_column(len(shown), width)
    p50 = buckets([s.lat_p50_ns for s in shown], step, mean)
    p99 = buckets([s.lat_p99_ns for s in shown], step, max)
    bounds = decades([*p50, *p99])
    if within is not None:
        bounds = (min(bounds[0], within[0]), max(bounds[1], within[1]))
    rows = mark_rows([(p99, (glyphs.p99, "p99")), (p50, (glyphs.p50, "p50"))], height, bounds)
    labels = tuple(
        latency(bounds[1]) if r == 0 else (latency(bounds[0]) if r == height - 1 else "")
        for r in range(height)
    )
    return Chart(labels, tuple(tuple(r) for r in rows), step, bounds)


def chart_lines(chart: Chart, width: int, glyphs: ChartGlyphs) -> list[str]:
    """A chart as plain text lines `LABEL_W + width` wide (the CLI and tests)."""
    lines = []
    for label, row in zip(chart.labels, chart.rows, strict=True):
        cells = "".join(c for c, _ in row).ljust(width)
        lines.append(f"{label:>{LABEL_W - 1}}{glyphs.axis}{cells}".rstrip())
    return lines
