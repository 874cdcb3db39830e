"""Driving the interface with the keyboard, as an operator would, through Textual's Pilot."""

from __future__ import annotations

from textual.widgets import Input

from nastui.model import LedState
from nastui.ui.app import NastuiApp
from nastui.ui.cells import View
from nastui.ui.screens.bays import BaysScreen
from nastui.ui.screens.dashboard import DashboardScreen
from nastui.ui.screens.drive import DriveScreen
from nastui.ui.screens.help import HelpScreen
from nastui.ui.screens.pools import PoolsScreen
from nastui.ui.widgets.baygrid import BayGrid
from nastui.ui.widgets.textpanel import TextPanel
from tests.ui.helpers import demo_app

SIZE = (80, 24)


def grid(app: NastuiApp) -> BayGrid:
    return app.screen.query_one("#grid", BayGrid)


async def test_dashboard_first_with_bay_zero_selected() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, DashboardScreen)
        assert grid(app).selected == 0
        assert app.focused is grid(app)
        selected = app.screen.query_one("#selected", TextPanel).plain
        assert selected.startswith("bay 0: sdr")


async def test_arrows_and_hjkl_move_between_bays() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        # RV-4324: 6 rows of 4, numbered along the rows from the top left.
        await pilot.press("right", "right")
        assert grid(app).selected == 2
        await pilot.press("down")
        assert grid(app).selected == 6
        await pilot.press("l")
        assert grid(app).selected == 7
        await pilot.press("l")  # the right edge: stays
        assert grid(app).selected == 7
        await pilot.press("j", "j", "h")
        assert grid(app).selected == 14
        await pilot.press("k", "up", "up", "up", "up")  # past the top edge: stays on row 0
        assert grid(app).selected == 2
        await pilot.press("left", "left", "left")
        assert grid(app).selected == 0
        assert "bay 0:" in app.screen.query_one("#selected", TextPanel).plain


async def test_enter_opens_drive_detail_and_escape_returns() -> None:
    app = demo_app("failing-drive")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        grid(app).select(10)  # the failing drive
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, DriveScreen)
        identity = app.screen.query_one("#identity", TextPanel).plain
        state = app.screen.query_one("#state", TextPanel).plain
        attributes = app.screen.query_one("#attributes", TextPanel).plain
        assert identity.startswith("sdp  HGST HUS724040ALA640")
        assert "bay 10" in identity
        assert "health CRITICAL" in state
        assert "Current_Pending_Sector" in state
        assert "Reallocated_Sector_Ct" in attributes
        assert "THRESH" in attributes
        selftests = app.screen.query_one("#selftests", TextPanel).plain
        assert "read failure" in selftests
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, DashboardScreen)


async def test_v_cycles_every_view() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        seen = [grid(app).view]
        for _ in View:
            await pilot.press("v")
            seen.append(grid(app).view)
        assert seen == [*View, View.DEV]
        assert app.screen.query_one("#grid-panel").border_title == "bays: device"


async def test_locate_key_lights_the_led_through_the_control_layer() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("right", "L")
        await pilot.pause(0.3)
        snapshot = app.snapshot
        assert snapshot is not None
        slot = snapshot.slot(1)
        assert slot is not None and slot.led is LedState.LOCATE
        assert "*" in app.screen.query_one("#selected", TextPanel).plain or slot.led
        await pilot.press("i")  # the second locate key toggles it off again
        await pilot.pause(0.3)
        slot = app.snapshot.slot(1) if app.snapshot else None
        assert slot is not None and slot.led is LedState.OFF


async def test_l_in_drive_detail_toggles_locate() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("l")
        await pilot.pause(0.3)
        slot = app.snapshot.slot(0) if app.snapshot else None
        assert slot is not None and slot.led is LedState.LOCATE
        assert "LED locate" in app.screen.query_one("#state", TextPanel).plain


async def test_slash_filters_by_serial_model_or_device() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("b")
        await pilot.pause()
        assert isinstance(app.screen, BaysScreen)
        await pilot.press("slash")
        focused: object = app.focused
        assert isinstance(focused, Input)
        await pilot.press(*"sdk")
        assert grid(app).matches() == [13]
        await pilot.press("enter")
        await pilot.pause()
        assert grid(app).selected == 13
        assert app.focused is grid(app)
        await pilot.press("escape")
        assert len(grid(app).matches()) == 24


async def test_every_screen_is_reachable_by_keyboard() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        for key, screen in (
            ("b", BaysScreen),
            ("p", PoolsScreen),
            ("question_mark", HelpScreen),
            ("d", DashboardScreen),
            ("2", BaysScreen),
            ("3", PoolsScreen),
            ("f1", HelpScreen),
            ("1", DashboardScreen),
        ):
            await pilot.press(key)
            await pilot.pause()
            assert isinstance(app.screen, screen), key
        await pilot.press("q")
    assert app.return_code == 0


async def test_pools_screen_shows_resilver_progress() -> None:
    app = demo_app("resilvering")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("p")
        await pilot.pause()
        text = app.screen.query_one("#pool-detail", TextPanel).plain
        assert "storage zfs DEGRADED" in text
        assert "resilver" in text and "ETA" in text
        assert "replacing-0" in text
        assert "(resilvering)" in text
        assert "READ WRITE CKSUM" in text


async def test_empty_and_missing_bays_in_detail() -> None:
    app = demo_app("mixed")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        grid(app).select(11)
        await pilot.press("enter")
        await pilot.pause()
        identity = app.screen.query_one("#identity", TextPanel).plain
        assert identity.startswith("bay 11 is empty; expected serial")
        await pilot.press("a")  # the footer offers it: it said nothing at all
        await pilot.pause()
        notes = [n.message for n in app._notifications]
        assert notes == ["bay 11: no drive here, nothing to acknowledge"]


async def test_mouse_click_selects_a_bay() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        region = grid(app).content_region
        # Second row of cells (bays 4-7): two lines per cell; the second column is 10 wide.
        await pilot.click("#grid", offset=(region.x - grid(app).region.x + 12, 2))
        await pilot.pause()
        assert grid(app).selected == 5


async def test_huge_chassis_scrolls_and_compacts() -> None:
    app = demo_app("datacenter-102")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.screen.has_class("-wide")
        await pilot.press("b")
        await pilot.pause()
        bay_grid = grid(app)
        assert bay_grid.selected == 0
        for _ in range(7):
            await pilot.press("j")
        assert bay_grid.selected == 90  # eighth row starts at 14*3 + 12*4 = 90


async def test_escape_leaves_help_for_the_screen_it_was_opened_from() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        for key, before in (("b", BaysScreen), ("p", PoolsScreen), ("d", DashboardScreen)):
            await pilot.press(key, "question_mark")
            assert isinstance(app.screen, HelpScreen)
            await pilot.press("escape")
            await pilot.pause()
            assert isinstance(app.screen, before)


def test_help_names_the_swap_screens_and_the_drive_lists_keys() -> None:
    """The swap screen's footer offers s, r and a, and the drive list's up/down and Enter;
    help, which says it lists every key, had neither screen."""
    from nastui.core.glyphs import glyphs_for
    from nastui.ui.render.panels import help_text

    text = help_text(glyphs_for(True)).plain
    swap = text.split("Swap (w)\n", 1)[1].split("\n\n", 1)[0]
    assert [line.split()[0] for line in swap.splitlines()] == ["s", "r", "a"]
    drives = text.split("Drive list (D)\n", 1)[1].split("\n\n", 1)[0]
    assert "Enter" in drives and "up/down" in drives


async def test_the_alerts_strip_says_where_the_alerts_it_leaves_out_are() -> None:
    """failing-drive in 8 lines leaves out archive's two pool alerts, a fleet host's: the strip
    sent the operator to "p pools, Enter on a bay", where this box's screens never show them."""
    from nastui.core.glyphs import glyphs_for
    from nastui.ui.render.panels import alerts_text

    app = demo_app("failing-drive")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        strip = alerts_text(app.snapshot, 8, 80, glyphs_for(True)).plain.splitlines()
        assert strip[-1] == "... 2 more (H fleet)", strip
        strip = alerts_text(app.snapshot, 4, 80, glyphs_for(True)).plain.splitlines()
        assert strip[-1] == "... 6 more (p pools, Enter on a bay; H fleet)", strip


async def test_the_thermal_panel_never_cuts_the_sleepers_count() -> None:
    """sleeping at 80 columns: "hottest 40 C bay 1 sds  avg 36 C  ~", the count of drives
    asleep cut to a mark that reads as a stale one (and to "2~" a little wider)."""
    from nastui.core.glyphs import glyphs_for
    from nastui.ui.render.panels import thermal_text

    app = demo_app("sleeping")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.snapshot is not None
        limits = app.session.config.thresholds
        for width in range(30, 60):
            first = thermal_text(app.snapshot, limits, width, glyphs_for(True)).plain
            line = first.splitlines()[0]
            assert len(line) <= width, (width, line)
        # the hottest is asleep: its reading marked old, as its bay's is
        first = thermal_text(app.snapshot, limits, 35, glyphs_for(True)).plain.splitlines()[0]
        assert first == "hottest 40 C~ bay 1 sds  23 asleep"
        wide = thermal_text(app.snapshot, limits, 60, glyphs_for(True)).plain.splitlines()[0]
        assert wide == "hottest 40 C~ bay 1 sds  23 asleep  avg 36 C"
