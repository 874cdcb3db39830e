"""The pools screen's scrub actions, from the keyboard: choose a pool, ask, act, say what
happened; refuse at once what makes no sense; the question box in ASCII at 80x24."""

from __future__ import annotations

from collections.abc import Callable

from nastui.model import ScanKind, ScanState
from nastui.ui.app import NastuiApp
from nastui.ui.screens.confirm import ConfirmScreen
from nastui.ui.screens.pools import PoolsScreen
from nastui.ui.widgets.textpanel import TextPanel
from tests.ui.helpers import demo_app

SIZE = (80, 24)
Compare = Callable[..., bool]


def messages(app: NastuiApp) -> list[str]:
    return [n.message for n in app._notifications]


def pools_screen(app: NastuiApp) -> PoolsScreen:
    screen = app.screen
    assert isinstance(screen, PoolsScreen)
    return screen


async def test_choose_a_pool_ask_and_start_a_check() -> None:
    app = demo_app("mixed")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("p")
        await pilot.pause()
        detail = app.screen.query_one("#pool-detail", TextPanel).plain
        assert detail.startswith("> tank zfs ONLINE")
        await pilot.press("tab")
        await pilot.pause()
        assert (pools_screen(app).selected_pool() or object()).__getattribute__("name") == "md0"
        assert "\n> md0 mdraid ONLINE" in app.screen.query_one("#pool-detail", TextPanel).plain
        await pilot.press("x")  # nothing runs: said at once, nothing asked
        await pilot.pause()
        assert isinstance(app.screen, PoolsScreen)
        assert messages(app)[-1] == "md0: no check is running"
        await pilot.press("s")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert app.screen.question.startswith("Start a check of md0 (mdraid)?")
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, PoolsScreen)
        await pilot.press("s", "y")
        await pilot.pause(0.3)
        assert messages(app)[-1] == "md0: check started (simulated)"
        md0 = next(p for p in (app.snapshot.pools if app.snapshot else ()) if p.name == "md0")
        assert md0.scan is not None
        assert (md0.scan.kind, md0.scan.state) == (ScanKind.CHECK, ScanState.RUNNING)
        await pilot.press("shift+tab", "shift+tab")
        assert (pools_screen(app).selected_pool() or object()).__getattribute__("name") == "fast"


async def test_pause_a_zfs_scrub_with_enter_and_no_pause_on_md() -> None:
    app = demo_app("scrubbing")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("p", "z")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert (
            app.screen.question == "Pause the scrub of storage? Start resumes it where it stopped."
        )
        await pilot.press("enter")
        await pilot.pause(0.3)
        assert messages(app)[-1] == "storage: scrub paused (simulated)"
        scan = app.snapshot.pools[0].scan if app.snapshot else None
        assert scan is not None and scan.state is ScanState.PAUSED
        detail = app.screen.query_one("#pool-detail", TextPanel).plain
        assert "paused" in detail and not detail.startswith(">")  # one pool: no marker
    mixed = demo_app("mixed")
    async with mixed.run_test(size=SIZE) as pilot:
        await pilot.press("p", "tab", "z")
        await pilot.pause()
        assert isinstance(mixed.screen, PoolsScreen)
        assert messages(mixed)[-1] == "mdraid has no check pause: x stops it"


async def test_escape_cancels() -> None:
    app = demo_app("scrubbing")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("p", "x", "escape")
        await pilot.pause()
        assert isinstance(app.screen, PoolsScreen) and messages(app) == []
        scan = app.snapshot.pools[0].scan if app.snapshot else None
        assert scan is not None and scan.state is ScanState.RUNNING


def test_confirm_box_ascii(snap_compare: Compare) -> None:
    """The stop question over the scrubbing pool at 80x24 in ASCII: a "+- stop scrub -+" box
    drawn with + - | only, "Stop the scrub of storage at 40.1%? A new one starts from the
    beginning.", then "y or Enter: yes    n or Esc: no"."""
    assert snap_compare(
        demo_app("scrubbing", ascii_only=True), press=["p", "x"], terminal_size=SIZE
    )
