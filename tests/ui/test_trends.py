"""Trends in the TUI from the history file: the drive detail's temperature line and counter
changes, the pools screen's past scans; at 80x24 and wide, in Unicode and ASCII, and the same
screens still working when there is no history at all."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual.pilot import Pilot

from nastui.core.store import SnapshotStore
from nastui.ui.app import NastuiApp
from nastui.ui.render.trend import NO_HISTORY
from nastui.ui.screens.drive import DriveScreen
from nastui.ui.widgets.textpanel import TextPanel
from tests.ui.helpers import demo_app

Compare = Callable[..., bool]
NARROW, WIDE = (80, 24), (120, 40)


def panel(app: NastuiApp, name: str) -> TextPanel:
    return app.screen.query_one(f"#{name}", TextPanel)


def without_history(app: NastuiApp) -> NastuiApp:
    """The app as on a machine where `nastui daemon` never ran: no file, an empty store."""
    app.session.history = None
    app.session.store = SnapshotStore()
    return app


async def open_bay(app: NastuiApp, pilot: Pilot[int], bay: int) -> None:
    await pilot.pause()
    app.push_screen(DriveScreen(bay))
    await pilot.pause()


async def test_drive_detail_at_80x24_keeps_the_trend_to_three_lines() -> None:
    app = demo_app("failing-drive")
    async with app.run_test(size=NARROW) as pilot:
        await open_bay(app, pilot, 10)
        trend = panel(app, "trend")
        lines = trend.plain.split("\n")
        assert len(lines) == 3
        assert lines[0].startswith("temp 24 h  min 3") and "now 36 °C  " in lines[0]
        assert len(lines[0]) == trend.content_region.width  # the sparkline fills the line
        assert lines[1].startswith("Current_Pending_Sector 2 -> 2")
        assert lines[1].endswith("min ago (13 changes)")
        assert lines[2] == "+3 more counters changed"
        assert trend.region.bottom <= 23  # on screen without scrolling, above the key bar


async def test_drive_detail_wide_lists_every_changed_counter() -> None:
    app = demo_app("failing-drive")
    async with app.run_test(size=WIDE) as pilot:
        await open_bay(app, pilot, 10)
        lines = panel(app, "trend").plain.split("\n")
        names = [line.split()[0] for line in lines[1:]]
        assert names == [
            "Current_Pending_Sector",
            "Offline_Uncorrectable",
            "Reallocated_Event_Count",
            "Reallocated_Sector_Ct",
        ]
        assert "12 -> 43" in lines[4]


async def test_a_healthy_drive_says_its_counters_did_not_move() -> None:
    app = demo_app("healthy-24-bay")
    async with app.run_test(size=NARROW) as pilot:
        await open_bay(app, pilot, 0)
        lines = panel(app, "trend").plain.split("\n")
        assert lines[1] == "SMART counters: no change kept since 24 h ago"


async def test_drive_detail_in_ascii_has_only_ascii() -> None:
    app = demo_app("hot-bay", ascii_only=True)
    async with app.run_test(size=NARROW) as pilot:
        await open_bay(app, pilot, 2)
        text = panel(app, "trend").plain
        assert text.isascii() and "max 49  now 49 C  " in text
        assert set(text.split("\n")[0].split("C  ", 1)[1]) <= set("_.-=+*# ")


async def test_drive_detail_without_history_says_so_in_one_dim_line() -> None:
    app = without_history(demo_app("failing-drive"))
    async with app.run_test(size=NARROW) as pilot:
        await open_bay(app, pilot, 10)
        assert panel(app, "trend").plain == NO_HISTORY
        assert "! Current_Pending_Sector 27" in panel(app, "state").plain
        assert panel(app, "attributes").plain.startswith(" ID ATTRIBUTE")


async def test_pools_at_80x24_put_past_scans_on_one_line_each() -> None:
    app = demo_app("mixed")
    async with app.run_test(size=NARROW) as pilot:
        await pilot.press("p")
        await pilot.pause()
        lines = panel(app, "pool-detail").plain.split("\n")
        past = [line for line in lines if line.startswith("  past:")]
        assert past == [
            "  past: scrub 2h53m Mar 01, 2h46m Feb 01, 2h37m Dec 30, 2h27m Nov 30 (0 errors)",
            "  past: check 21m14s Feb 15, 20m35s Jan 16, 19m15s Dec 15 (0 errors)",
            "  past: scrub 1m09s Mar 05, 1m05s Feb 03, 1m02s Jan 02, 57s Dec 04 (0 errors)",
        ]
        assert all(len(line) <= 79 for line in lines)


async def test_pools_wide_show_a_table_of_past_scans() -> None:
    app = demo_app("mixed")
    async with app.run_test(size=WIDE) as pilot:
        await pilot.press("p")
        await pilot.pause()
        text = panel(app, "pool-detail").plain
        assert text.count("  past scans started              took  errors") == 3
        assert "  scrub      2026-03-01 23:06    2h53m  0" in text
        assert "  check      2025-10-20 05:28   16m47s  0" in text


async def test_pools_without_history_show_what_the_pool_says() -> None:
    app = without_history(demo_app("mixed"))
    async with app.run_test(size=WIDE) as pilot:
        await pilot.press("p")
        await pilot.pause()
        text = panel(app, "pool-detail").plain
        assert "past" not in text
        assert "  scrub finished 12 days ago in 2h53m, 0 errors" in text


@pytest.mark.parametrize(
    ("size", "ascii_only"),
    [pytest.param(NARROW, True, id="ascii-80x24"), pytest.param(WIDE, False, id="unicode-120x40")],
)
def test_hot_drive_trend(snap_compare: Compare, size: tuple[int, int], ascii_only: bool) -> None:
    """Drive detail of sdt in bay 2 of the hot-bay box, a fan dead for twenty minutes: under
    the state block the line "temp 24 h  min 40  max 49  now 49 °C" and a sparkline across the
    rest of the width, flat for the day and jumping to the top in its last cell; then "SMART
    counters: no change kept since 24 h ago". ASCII: the sparkline drawn with _.-=+*#, "49 C"."""

    async def open_bay_2(pilot: Pilot[int]) -> None:
        await pilot.pause()
        await pilot.press("right", "right", "enter")

    app = demo_app("hot-bay", ascii_only=ascii_only)
    assert snap_compare(app, run_before=open_bay_2, terminal_size=size)


@pytest.mark.parametrize(
    "size", [pytest.param(NARROW, id="80x24"), pytest.param(WIDE, id="120x40")]
)
def test_pools_past_scans(snap_compare: Compare, size: tuple[int, int]) -> None:
    """Pools screen of the mixed box: tank (zfs), md0 (mdraid) and fast (btrfs), each with its
    last scan and schedule, then its past scans from the history: at 80x24 one "past:" line
    per pool ("scrub 2h53m Mar 01, 2h46m Feb 01, ..." and "(0 errors)"), at 120x40 a table
    with kind, start date and time, duration and errors, five rows per pool, newest first."""
    assert snap_compare(demo_app("mixed"), press=["p"], terminal_size=size)
