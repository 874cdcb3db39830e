"""Trends from the store and the daemon's history file (pure): a time-bucketed sparkline, a
drive's temperature line with min / max / now, its SMART counter changes, and a pool's past
scrubs and resilvers with date, duration and errors.

Sparklines bucket by time, not by sample: the history keeps a temperature only when it moved
(or every 10 minutes) while a live session keeps every poll, and a gap while nothing ran stays a
gap. Unicode draws with the lower-block ramp; ASCII (serial consoles, TERM=vt100) with
`_.-=+*#`, the fan screen's ramp.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rich.text import Text

from nastui.core import units
from nastui.core.glyphs import Glyphs
from nastui.history.record import CounterChange, ScanRecord
from nastui.model import ScanProgress, ScanState
from nastui.ui.render.fans import chart_glyphs
from nastui.ui.render.style import DIM, degrees, fit

DAY_S = 86400.0
TEMP_RANGE_MIN = 6.0  # degrees: a flat drive's one-degree wobble must not fill the height
SPARK_MIN = 12  # narrower than this, the sparkline goes on its own line
NO_HISTORY = "no history: `nastui daemon` keeps it"

Sample = tuple[float, float]


def spark(
    samples: Sequence[Sample], start: float, end: float, width: int, ramp: str, *, span: float = 0.0
) -> str:
    """`width` cells covering [start, end]; each the highest sample in its slice of time, a
    blank where there is none. Values scale over their own range widened to `span`."""
    if width <= 0 or end <= start:
        return ""
    inside = [(t, v) for t, v in samples if start <= t <= end]
    if not inside:
        return " " * width
    low, high = min(v for _, v in inside), max(v for _, v in inside)
    if high - low < span:
        mid = (low + high) / 2
        low, high = mid - span / 2, mid + span / 2
    buckets: list[float | None] = [None] * width
    for t, v in inside:
        i = min(width - 1, int((t - start) / (end - start) * width))
        old = buckets[i]
        buckets[i] = v if old is None else max(old, v)
    top = len(ramp) - 1
    cells = []
    for value in buckets:
        if value is None:
            cells.append(" ")
            continue
        share = (value - low) / (high - low) if high > low else 0.5
        cells.append(ramp[min(top, max(0, round(share * top)))])
    return "".join(cells)


def span_label(seconds: float) -> str:
    """ "24 h" for (nearly) a full day, else the time covered: "5 h", "12 min"."""
    if seconds >= DAY_S - 900:
        return "24 h"
    return f"{seconds / 3600:.0f} h" if seconds >= 3600 else f"{max(1.0, seconds / 60):.0f} min"


def temperature_trend(
    samples: Sequence[Sample], now: float, width: int, glyphs: Glyphs, span_s: float = DAY_S
) -> Text:
    """ "temp 24 h  min 33  max 41  now 37 °C  ▁▂▃▅▇█▇▅" over the last `span_s`; empty with
    fewer than two samples. The sparkline takes the rest of the line, or one of its own when
    that would be too narrow."""
    recent = [(t, v) for t, v in samples if now - span_s <= t <= now]
    if len(recent) < 2:
        return Text("")
    start = recent[0][0]
    values = [v for _, v in recent]
    text = Text()
    text.append(f"temp {span_label(now - start)}  ", style=DIM)
    text.append(f"min {min(values):.0f}  max {max(values):.0f}  ")
    # "now" only while samples still come (a sleeping drive's last one is 44 min old, and the
    # line above says stale): over twice their spacing, the last one is named with its age.
    last_t = recent[-1][0]
    if now - last_t > 2 * max(last_t - recent[-2][0], 60.0):
        text.append(f"last {degrees(values[-1], glyphs)} {units.age(now - last_t)}  ")
    else:
        text.append(f"now {degrees(values[-1], glyphs)}  ")
    room = width - text.cell_len
    if room < SPARK_MIN:
        text.append("\n  ")
        room = width - 2
    ramp = chart_glyphs(glyphs).ramp
    text.append(spark(recent, start, now, room, ramp, span=TEMP_RANGE_MIN), style="yellow")
    return text


@dataclass(frozen=True, slots=True)
class CounterTrend:
    """One counter's path through the history: first value kept, last, when it last moved."""

    name: str
    first: int
    last: int
    changed_at: float
    changes: int


def counter_trends(changes: Iterable[CounterChange]) -> list[CounterTrend]:
    """Counters that changed while the history was kept (not just first seen), most recently
    changed first."""
    rows: dict[str, list[CounterChange]] = {}
    for change in sorted(changes, key=lambda c: c.at):
        rows.setdefault(change.counter, []).append(change)
    trends = []
    for kept in rows.values():
        moves = [c for c in kept if c.previous is not None and c.previous != c.value]
        if not moves:
            continue
        head = kept[0]
        first = head.value if head.previous is None else head.previous
        last = kept[-1]
        trends.append(CounterTrend(last.name, first, last.value, moves[-1].at, len(moves)))
    trends.sort(key=lambda t: t.changed_at, reverse=True)
    return trends


def counter_lines(
    changes: Sequence[CounterChange], now: float, width: int, glyphs: Glyphs, limit: int
) -> Text:
    """ "Current_Pending_Sector 2 -> 8  3 days ago (5 changes)", at most `limit` lines (the
    last one saying how many more); one dim line when the history shows no change."""
    trends = counter_trends(changes)
    if not trends:
        since = min((c.at for c in changes), default=None)
        tail = f" since {units.age(now - since)}" if since is not None else " yet"
        return Text(fit(f"SMART counters: no change kept{tail}", width, glyphs), style=DIM)
    shown = trends if len(trends) <= limit else trends[: max(1, limit - 1)]
    name_w = min(24, max(len(t.name) for t in shown))
    text = Text()
    for i, trend in enumerate(shown):
        more = f" ({trend.changes} changes)" if trend.changes > 1 else ""
        line = (
            f"{fit(trend.name, name_w, glyphs):<{name_w}} {trend.first} -> {trend.last}  "
            f"{units.age(now - trend.changed_at)}{more}"
        )
        text.append(("\n" if i else "") + fit(line, width, glyphs), style="yellow")
    if len(shown) < len(trends):
        text.append(f"\n+{len(trends) - len(shown)} more counters changed", style=DIM)
    return text


def drive_trend_text(
    temps: Sequence[Sample],
    changes: Sequence[CounterChange] | None,
    now: float,
    width: int,
    glyphs: Glyphs,
    *,
    tight: bool,
    missing: str = NO_HISTORY,
) -> Text:
    """The drive detail's trend block: the temperature line (from the store, seeded from the
    history), then the counter changes; `changes` None (no history file, or it failed) gives
    one dim line saying `missing`."""
    text = temperature_trend(temps, now, width, glyphs)
    if changes is None:
        tail = Text(fit(missing, width, glyphs), style=DIM)
    else:
        tail = counter_lines(changes, now, width, glyphs, 2 if tight else 6)
    if text.plain:
        text.append("\n")
    text.append_text(tail)
    return text


@dataclass(frozen=True, slots=True)
class PastScan:
    """A finished (or canceled) scan, from the history or the pool's own last scrub."""

    kind: str
    state: str
    started_at: float | None
    ended_at: float | None
    errors: int | None

    @property
    def duration(self) -> float | None:
        """Seconds it ran, when both ends are known."""
        if self.started_at is None or self.ended_at is None:
            return None
        return self.ended_at - self.started_at


def past_scans(
    records: Iterable[ScanRecord], last: ScanProgress | None, limit: int
) -> list[PastScan]:
    """The history's scans and the pool's last scrub, each once, newest first."""
    found: dict[tuple[str, float | None, float | None], PastScan] = {}
    for r in records:
        found[(r.kind, r.started_at, r.ended_at)] = PastScan(
            r.kind, r.state, r.started_at, r.ended_at, r.errors
        )
    if last is not None and last.state in (ScanState.FINISHED, ScanState.CANCELED):
        key = (last.kind.value, last.started_at, last.ended_at)
        found.setdefault(
            key,
            PastScan(
                last.kind.value, last.state.value, last.started_at, last.ended_at, last.errors
            ),
        )
    scans = sorted(found.values(), key=lambda s: s.ended_at or s.started_at or 0.0, reverse=True)
    return scans[:limit]


def _day(when: float | None, fmt: str) -> str:
    return time.strftime(fmt, time.localtime(when)) if when is not None else "?"


def _errors(scan: PastScan) -> str:
    return "?" if scan.errors is None else str(scan.errors)


def scan_history_text(
    scans: Sequence[PastScan], width: int, glyphs: Glyphs, *, tight: bool
) -> Text:
    """Past scans under a pool: one line of "took, date" pairs when space is tight, else a
    small table (kind, started, took, errors). Empty with fewer than two scans: one is
    already the pool's "last completed" line."""
    if len(scans) < 2:
        return Text("")
    if tight:
        return _scan_line(scans, width, glyphs)
    text = Text(f"  {'past scans':<10} {'started':<16}  {'took':>7}  errors", style=DIM)
    for scan in scans:
        verb = " (canceled)" if scan.state == ScanState.CANCELED.value else ""
        line = (
            f"  {scan.kind:<10} {_day(scan.started_at, '%Y-%m-%d %H:%M'):<16}  "
            f"{units.duration(scan.duration):>7}  {_errors(scan)}{verb}"
        )
        text.append("\n")
        text.append(fit(line, width, glyphs), style="yellow" if scan.errors else "")
    return text


def _scan_line(scans: Sequence[PastScan], width: int, glyphs: Glyphs) -> Text:
    """ "  past: scrub 8h22m Feb 13, 7h58m Jan 14, 7h41m Dec 15 (0 errors)" fitted to `width`."""
    text = Text("  past:", style=DIM)
    kind = ""
    all_clean = all(s.errors == 0 for s in scans)
    for i, scan in enumerate(scans):
        piece = f"{units.duration(scan.duration)} {_day(scan.started_at or scan.ended_at, '%b %d')}"
        if scan.kind != kind:
            piece, kind = f"{scan.kind} {piece}", scan.kind
        if not all_clean:
            piece += f" {_errors(scan)} err"
        piece = (", " if i else " ") + piece
        tail = " (0 errors)" if all_clean else ""
        if text.cell_len + len(piece) + len(tail) > width:
            break
        text.append(piece, style="yellow" if scan.errors else "")
    if all_clean and text.cell_len + 11 <= width:
        text.append(" (0 errors)", style=DIM)
    return text
