"""The TUI on a real-machine session (a fake /sys tree, the fake smartctl replaying real
reports): the drive detail shows SMART findings, `a` acknowledges them, `l` lights the SES LED
through the locate ladder, and the grid then shows the LED lit."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from nastui.model import LedState
from nastui.session import Source, open_session
from nastui.ui.app import make_app
from nastui.ui.screens.drive import DriveScreen
from nastui.ui.widgets.textpanel import TextPanel
from tests.smartbox import fake_box


@pytest.fixture
def session_source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Source:
    box = fake_box(tmp_path)
    for key, value in box.env.items():
        monkeypatch.setenv(key, value)
    return Source(root=box.root, config=box.config)


async def test_drive_detail_acknowledge_and_locate(session_source: Source, tmp_path: Path) -> None:
    session = open_session(session_source, os.environ)
    app = make_app(session, live=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause(1.0)
        app.push_screen(DriveScreen(2))
        await pilot.pause(0.3)
        state = app.screen.query_one("#state", TextPanel).plain
        assert "! Current_Pending_Sector 16" in state and "wake-ups by nastui 0" in state
        await pilot.press("a")
        await pilot.pause(1.0)
        assert (tmp_path / "state/acks.json").exists()
        state = app.screen.query_one("#state", TextPanel).plain
        assert "= Current_Pending_Sector 16 (acknowledged at 16)" in state
        app.pop_screen()
        app.push_screen(DriveScreen(1))
        await pilot.pause(0.3)
        assert "slot 500304801f3ae07f:1 (ses)" in app.screen.query_one("#identity", TextPanel).plain
        await pilot.press("l")
        await pilot.pause(1.0)
        locate = session_source.root / "sys/class/enclosure/2:0:24:0/Slot01/locate"  # type: ignore[operator]
        assert locate.read_text() == "1\n"
        slot = app.snapshot.slot(1) if app.snapshot else None
        assert slot is not None and slot.led is LedState.LOCATE
        await pilot.press("l")
        await pilot.pause(1.0)
        assert locate.read_text() == "0\n"
