"""One update of the 102-bay grid, timed in process: new snapshot in, changed cells painted.

Each sample hands the bays screen a snapshot in which every drive's temperature differs from
the one before (the worst case), then waits for Textual to finish the refresh, and counts the
CPU time spent (process time: Textual's frame pacing sleeps are not work). The baseline,
measured the same way in the same run, is the naive approach: 102 `Static` widgets, each
updated with new text.
"""

from __future__ import annotations

import asyncio
import dataclasses
import statistics
import time

from textual.app import App, ComposeResult
from textual.containers import Grid
from textual.widgets import Static

from nastui.model import HostSnapshot, Temperature
from nastui.session import Source, open_session
from nastui.ui.app import make_app
from nastui.ui.widgets.baygrid import BayGrid

SAMPLES = 40


def _shifted(snapshot: HostSnapshot, step: int) -> HostSnapshot:
    drives = tuple(
        dataclasses.replace(
            d,
            temperature=Temperature(30 + (step + i) % 15, snapshot.taken_at, d.temperature.source),
        )
        if d.temperature is not None
        else d
        for i, d in enumerate(snapshot.drives)
    )
    return dataclasses.replace(snapshot, drives=drives)


async def nastui_update_ms() -> list[float]:
    """Milliseconds per full-grid update in nastui's bays screen (120x40, temperature view)."""
    session = open_session(Source(demo=True, scenario="datacenter-102"), {})
    app = make_app(session, live=False)
    times: list[float] = []
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("b", "v")
        await pilot.pause()
        grid = app.screen.query_one("#grid", BayGrid)
        base = app.snapshot
        assert base is not None
        for step in range(SAMPLES):
            snapshot = _shifted(base, step + 1)
            started = time.process_time()
            grid.show(snapshot, app.limits)
            await pilot.pause()
            times.append(1000 * (time.process_time() - started))
    return times


class _NaiveGrid(App[None]):
    CSS = "Grid { grid-size: 14 8; } Static { height: 1; }"

    def compose(self) -> ComposeResult:
        with Grid():
            for bay in range(102):
                yield Static("--", id=f"b{bay}")


async def naive_update_ms() -> list[float]:
    """Milliseconds per update of 102 `Static` cells, the naive way."""
    app = _NaiveGrid()
    times: list[float] = []
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        cells = [app.query_one(f"#b{bay}", Static) for bay in range(102)]
        for step in range(SAMPLES):
            started = time.process_time()
            for i, cell in enumerate(cells):
                cell.update(f"+{30 + (step + i) % 15}")
            await pilot.pause()
            times.append(1000 * (time.process_time() - started))
    return times


def summary(times: list[float]) -> tuple[float, float, float]:
    """Median, 90th percentile and maximum."""
    ordered = sorted(times)
    return statistics.median(ordered), ordered[int(0.9 * (len(ordered) - 1))], ordered[-1]


def measure() -> tuple[list[float], list[float]]:
    """Both series: nastui's and the naive baseline's."""
    return asyncio.run(nastui_update_ms()), asyncio.run(naive_update_ms())
