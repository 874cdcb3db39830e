"""The drive detail shows the self-test nastui runs on the drive (its progress) and the last
result it saw, above the drive's own log, from the demo's state directory."""

from __future__ import annotations

from pathlib import Path

from nastui.selftest.io.tester import save_book
from nastui.selftest.logic.book import DriveTests, Result, Run
from nastui.selftest.logic.plan import SelftestKind
from nastui.session import Source, open_session
from nastui.ui.app import make_app
from nastui.ui.screens.drive import DriveScreen
from nastui.ui.widgets.textpanel import TextPanel

FAILING = "PK1331PLPX28B6"  # the failing-drive scenario's drive in bay 10


async def test_drive_detail_shows_progress_and_the_last_result(tmp_path: Path) -> None:
    session = open_session(
        Source(demo=True, scenario="failing-drive"), {"NASTUI_STATE_DIR": str(tmp_path)}
    )
    now = session.clock.now()
    failed = Result(SelftestKind.SHORT, "Completed: read failure", False, now - 86400)
    running = Run(SelftestKind.LONG, now - 1800, 40, now - 60)
    save_book(tmp_path, {FAILING: DriveTests(FAILING, "sdj", running=running, result=failed)})
    app = make_app(session, ascii_only=True, live=False)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        app.push_screen(DriveScreen(10))
        await pilot.pause()
        text = app.screen.query_one("#selftests", TextPanel).plain
    assert "long test running, 40% left (started 30 min ago)" in text
    assert "last short test FAILED: Completed: read failure" in text
    assert "Extended offline" in text  # the drive's own log stays below


async def test_drive_detail_without_a_book_shows_the_log_alone(tmp_path: Path) -> None:
    session = open_session(
        Source(demo=True, scenario="failing-drive"), {"NASTUI_STATE_DIR": str(tmp_path)}
    )
    app = make_app(session, ascii_only=True, live=False)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        app.push_screen(DriveScreen(10))
        await pilot.pause()
        text = app.screen.query_one("#selftests", TextPanel).plain
    assert "test running" not in text and "self-test log" in text
