"""Bytes on the line: what is redrawn when nothing visible changed (refresh calls counted, never
timed). Unchanged titles, unchanged fleet rows, unchanged drawn cells and fan RPM jitter inside
the deadband must not ask Textual to repaint."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.segment import Segment
from rich.text import Text
from textual._compositor import ChopsUpdate
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

from nastui.fans.logic.deadband import FanHold, within
from nastui.model import Drive, Fan, HostSnapshot, IoRate, Temperature
from nastui.ui.cells import View
from nastui.ui.redraw import (
    changed_cells,
    render_changed_cells,
    set_border_subtitle,
    set_border_title,
    set_display,
)
from nastui.ui.screens.dashboard import DashboardScreen
from nastui.ui.screens.drive import DriveScreen
from nastui.ui.screens.fleet import FleetScreen
from nastui.ui.widgets.baygrid import BayGrid
from nastui.ui.widgets.textpanel import TextPanel
from tests.ui.helpers import demo_app

SIZE = (80, 24)


@contextmanager
def counting_refreshes(
    widgets: list[Widget], calls: list[tuple[Any, ...]] | None = None
) -> Iterator[dict[str, int]]:
    """Count `refresh` calls on each of `widgets` (by id) while the block runs; `calls` gets
    each call's positional arguments (the regions)."""
    counts = {w.id or repr(w): 0 for w in widgets}
    originals: list[tuple[Widget, Callable[..., Any]]] = []
    for widget in widgets:
        original = widget.refresh
        key = widget.id or repr(widget)

        def counted(
            *args: Any, _orig: Callable[..., Any] = original, _key: str = key, **kwargs: Any
        ) -> Any:
            counts[_key] += 1
            if calls is not None:
                calls.append(args)
            return _orig(*args, **kwargs)

        originals.append((widget, original))
        widget.refresh = counted  # type: ignore[method-assign]
    try:
        yield counts
    finally:
        for widget, original in originals:
            widget.refresh = original  # type: ignore[method-assign]


async def test_setters_assign_only_a_change() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        panel = app.screen.query_one("#grid-panel")
        set_border_title(panel, "bays: somewhere")
        set_border_subtitle(panel, "v view")
        set_display(panel, True)
        with counting_refreshes([panel]) as counts:
            assert not set_border_title(panel, "bays: somewhere")
            assert not set_border_subtitle(panel, "v view")
            assert not set_display(panel, True)
        assert counts == {"grid-panel": 0}
        assert set_border_title(panel, "bays: elsewhere")
        assert panel.border_title == "bays: elsewhere"


async def test_an_unchanged_fleet_redraws_nothing() -> None:
    app = demo_app("failing-drive")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("H")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, FleetScreen)
        ids = ("fleet-panel", "fleet-head", "fleet-scroll", "fleet-rows", "fleet-selected")
        widgets = [screen.query_one(f"#{i}") for i in ids]
        with counting_refreshes(widgets) as counts:
            screen.render_fleet()  # the same fleet at the same moment: a new local snapshot
            assert app.snapshot is not None
            screen.show(app.snapshot)
        assert counts == dict.fromkeys(ids, 0)


def _with_drive(snapshot: HostSnapshot, dev: str, **changes: Any) -> HostSnapshot:
    drives = tuple(
        dataclasses.replace(d, **changes) if d.dev == dev else d for d in snapshot.drives
    )
    return dataclasses.replace(snapshot, drives=drives)


def _warmer(drive: Drive) -> Temperature:
    assert drive.temperature is not None
    return dataclasses.replace(drive.temperature, celsius=drive.temperature.celsius + 3)


async def test_a_value_a_narrow_cell_does_not_draw_repaints_nothing() -> None:
    app = demo_app("datacenter-102")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("b")
        await pilot.pause()
        grid = app.screen.query_one("#grid", BayGrid)
        assert app.snapshot is not None and grid.view is View.DEV
        snapshot, limits = app.snapshot, app.limits
        drive = snapshot.drives[5]
        warmer = _with_drive(snapshot, drive.dev, temperature=_warmer(drive))
        with counting_refreshes([grid]) as counts:
            grid.show(warmer, limits, degree=app.glyphs.degree)  # one-line cells: device only
        assert counts == {"grid": 0}


async def test_the_io_view_repaints_only_the_line_that_changed() -> None:
    app = demo_app("scrubbing")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("b")
        await pilot.pause()
        grid = app.screen.query_one("#grid", BayGrid)
        grid.set_view(View.IO)
        await pilot.pause()
        assert app.snapshot is not None
        snapshot = app.snapshot
        drive = snapshot.drives[3]
        busier = _with_drive(snapshot, drive.dev, io=IoRate(123e6, 4e6))
        calls: list[tuple[Any, ...]] = []
        with counting_refreshes([grid], calls):
            grid.show(busier, app.limits, degree=app.glyphs.degree)
        assert len(calls) == 1
        (region,) = calls[0]
        assert isinstance(region, Region) and region.height == 1


def test_fan_jitter_inside_the_deadband_keeps_the_shown_rpm() -> None:
    hold = FanHold()
    first = hold.apply([Fan("fan1", 1100, 40.0), Fan("fan2", 2000, 60.0)])
    assert [f.rpm for f in first] == [1100, 2000]
    jitter = hold.apply([Fan("fan1", 1117, 40.0), Fan("fan2", 1975, 60.0)])
    assert [f.rpm for f in jitter] == [1100, 2000]
    assert within(1150, 1100) and not within(1300, 1100)
    moved = hold.apply([Fan("fan1", 1400, 40.0), Fan("fan2", 0, 60.0)])  # faster; stalled
    assert [f.rpm for f in moved] == [1400, 0]
    assert moved[1].stalled


async def test_fan_jitter_does_not_change_the_dashboard_text() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert app.snapshot is not None and app.snapshot.fans
        thermal = screen.query_one("#thermal", TextPanel)
        before = thermal.plain
        fans = tuple(
            dataclasses.replace(f, rpm=f.rpm + 15) if f.rpm else f for f in app.snapshot.fans
        )
        jittered = dataclasses.replace(app.snapshot, fans=fans)
        with counting_refreshes([thermal]) as counts:
            screen.show(jittered)  # type: ignore[attr-defined]
        assert thermal.plain == before
        assert counts == {"thermal": 0}


async def test_a_covered_screen_draws_nothing_and_catches_up_when_shown() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        dashboard = app.screen
        assert isinstance(dashboard, DashboardScreen) and app.snapshot is not None
        await pilot.press("enter")  # drive detail over the dashboard
        await pilot.pause()
        assert isinstance(app.screen, DriveScreen)
        thermal = dashboard.query_one("#thermal", TextPanel)
        fans = tuple(dataclasses.replace(f, rpm=(f.rpm or 0) + 900) for f in app.snapshot.fans)
        with counting_refreshes([thermal]) as counts:
            app.snapshot = dataclasses.replace(app.snapshot, fans=fans)
            await pilot.pause()
        assert counts == {"thermal": 0}
        assert str(fans[0].rpm) not in thermal.plain
        await pilot.press("escape")
        await pilot.pause()
        shown: object = app.screen
        assert shown is dashboard
        assert str(fans[0].rpm) in thermal.plain


def test_changed_cells_spans_the_difference_as_drawn() -> None:
    assert changed_cells(Text("fan1  1100 rpm"), Text("fan1  1160 rpm"), 80) == (8, 9)
    assert changed_cells(Text("read 40 164kB"), Text("read 4"), 80) == (6, 13)  # blanked
    assert changed_cells(Text("same"), Text("same "), 80) == (0, 0)
    styled = Text("a b")
    styled.stylize("bold", 0, 1)
    assert changed_cells(Text("a b"), styled, 80) == (0, 80)  # another style: the whole line
    assert changed_cells(Text("37°C x"), Text("38°C x"), 80) == (0, 80)  # not ASCII: all


def _update(strip: Strip, x1: int, x2: int) -> str:
    update = ChopsUpdate([{0: strip}], [(0, x1, x2)], [[strip.cell_length]])
    return render_changed_cells(update, Console(color_system=None, width=80))


def test_a_partial_update_starts_at_the_first_changed_cell() -> None:
    strip = Strip([Segment("   100|"), Segment("abcdefghij")])
    assert _update(strip, 12, 13) == "\x1b[1;13Hf"  # one cell, not the 13 before it
    wide = Strip([Segment("ab"), Segment("漢字cd")])  # 漢 is two cells: 2-3, 字 4-5
    assert _update(wide, 5, 7) == "\x1b[1;5H字c"  # never half a character
    assert _update(strip, 0, 17) == "\x1b[1;1H   100|abcdefghij"
