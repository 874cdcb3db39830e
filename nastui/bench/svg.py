"""SVG export of a benchmark graph (pure): a metric over time (or over bytes written, for the
fill profile) for one or more runs, or IOPS against p99 latency for queue-depth sweeps.

Plain SVG 1.1 with inline styles: it opens in any browser and pastes into a report. Series are
told apart by dash pattern as well as colour.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from xml.sax.saxutils import escape

from nastui.bench.chart import short
from nastui.bench.compare import Metric
from nastui.model import BenchRun, Phase

WIDTH, HEIGHT = 800, 420
LEFT, RIGHT, TOP, BOTTOM = 70, 20, 40, 70
COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b")
DASHES = ("", "6,3", "2,3", "8,3,2,3", "1,2", "10,4")


@dataclass(frozen=True, slots=True)
class Series:
    """One line: its name and its (x, y) points."""

    name: str
    points: tuple[tuple[float, float], ...]


def run_series(run: BenchRun, metric: Metric, *, by_bytes: bool = False) -> Series:
    """A run's measured samples: (seconds, or GB written, metric value)."""
    points = []
    for sample in run.samples:
        value = metric.sample(sample)
        if sample.phase is Phase.SETUP or value is None:
            continue
        x = sample.bytes_done / 1e9 if by_bytes else sample.t
        points.append((x, value))
    ident = run.target.identity
    name = (ident.model or ident.serial) if ident and (ident.model or ident.serial) else run.run_id
    return Series(f"{name} ({run.settings.profile}, {run.run_id[:15]})", tuple(points))


def sweep_series(run: BenchRun) -> Series:
    """A sweep's steps as (IOPS, p99 latency in ms): fio-plot's IOPS-against-latency line."""
    points = tuple(
        (s.iops, s.lat_p99_ns / 1e6) for s in run.steps if s.lat_p99_ns is not None and s.iops
    )
    return Series(run.run_id, points)


def _ticks(low: float, high: float, count: int = 5) -> list[float]:
    if high <= low:
        return [low]
    raw = (high - low) / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(f * power for f in (1, 2, 2.5, 5, 10) if f * power >= raw)
    first = math.ceil(low / step) * step
    return [first + i * step for i in range(int((high - first) / step) + 1)]


def chart_svg(series: Sequence[Series], *, title: str, x_label: str, y_label: str) -> str:
    """A line chart of `series` with axes, ticks, a title and a legend."""
    points = [p for s in series for p in s.points]
    x_hi = max((x for x, _ in points), default=1.0) or 1.0
    y_hi = max((y for _, y in points), default=1.0) or 1.0
    x_lo = min((x for x, _ in points), default=0.0)
    x_lo = 0.0 if x_lo >= 0 else x_lo
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def px(x: float) -> float:
        return LEFT + (x - x_lo) / ((x_hi - x_lo) or 1) * plot_w

    def py(y: float) -> float:
        return TOP + plot_h - y / (y_hi * 1.05) * plot_h

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">',
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
        f'<text x="{WIDTH / 2}" y="22" text-anchor="middle" font-size="15">{escape(title)}</text>',
        f'<line x1="{LEFT}" y1="{TOP + plot_h}" x2="{LEFT + plot_w}" y2="{TOP + plot_h}" '
        'stroke="black"/>',
        f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{TOP + plot_h}" stroke="black"/>',
    ]
    for tick in _ticks(0, y_hi * 1.05):
        y = py(tick)
        out.append(
            f'<line x1="{LEFT}" y1="{y:.1f}" x2="{LEFT + plot_w}" y2="{y:.1f}" stroke="#ddd"/>'
            f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{short(tick)}</text>'
        )
    for tick in _ticks(x_lo, x_hi):
        x = px(tick)
        out.append(
            f'<text x="{x:.1f}" y="{TOP + plot_h + 16}" text-anchor="middle">{short(tick)}</text>'
        )
    out.append(
        f'<text x="{LEFT + plot_w / 2}" y="{TOP + plot_h + 36}" text-anchor="middle">'
        f"{escape(x_label)}</text>"
        f'<text x="16" y="{TOP + plot_h / 2}" text-anchor="middle" '
        f'transform="rotate(-90 16 {TOP + plot_h / 2})">{escape(y_label)}</text>'
    )
    for i, s in enumerate(series):
        color, dash = COLORS[i % len(COLORS)], DASHES[i % len(DASHES)]
        style = f'fill="none" stroke="{color}" stroke-width="1.5"'
        style += f' stroke-dasharray="{dash}"' if dash else ""
        path = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in s.points)
        out.append(f'<polyline {style} points="{path}"/>')
        ly = HEIGHT - 14 - 16 * (len(series) - 1 - i)
        out.append(
            f'<line x1="{LEFT}" y1="{ly - 4}" x2="{LEFT + 30}" y2="{ly - 4}" {style}/>'
            f'<text x="{LEFT + 36}" y="{ly}">{escape(s.name)}</text>'
        )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def runs_svg(runs: Sequence[BenchRun], metric: Metric) -> str:
    """`metric` over time for each run (over GB written when every run is a fill)."""
    if all(r.settings.profile == "sweep" for r in runs):
        return chart_svg(
            [sweep_series(r) for r in runs],
            title="IOPS against p99 latency (queue depth sweep)",
            x_label="IOPS",
            y_label="p99 latency (ms)",
        )
    by_bytes = all(r.settings.profile == "fill" for r in runs)
    return chart_svg(
        [run_series(r, metric, by_bytes=by_bytes) for r in runs],
        title=f"{metric.title} " + ("against data written" if by_bytes else "over time"),
        x_label="GB written" if by_bytes else "seconds",
        y_label=metric.title + (" (ns)" if metric.lower_is_better else ""),
    )
