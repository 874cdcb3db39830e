"""`a` in the drive detail acknowledges on the demo too, in the demo's own state directory,
and the next poll shows the findings acknowledged (the TUI, status and the daemon agree)."""

from __future__ import annotations

from pathlib import Path

from nastui.control import acks as ack_file
from nastui.core.assess import overall
from nastui.model import Health
from nastui.session import Source, open_session
from nastui.ui.app import make_app
from nastui.ui.screens.drive import DriveScreen
from nastui.ui.widgets.baygrid import BayGrid


async def test_a_acknowledges_the_demo_drive(tmp_path: Path) -> None:
    session = open_session(
        Source(demo=True, scenario="failing-drive"), {"NASTUI_STATE_DIR": str(tmp_path)}
    )
    app = make_app(session, ascii_only=True, live=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.screen.query_one("#grid", BayGrid).select(10)  # the failing drive
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, DriveScreen)
        await pilot.press("a")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
    drives = ack_file.load(tmp_path)
    assert {a.key for a in drives["PK1331PLPX28B6"]} >= {"attr:5", "attr:197", "attr:198"}
    snapshot = session.store.latest(session.backend.host)
    assert snapshot is not None
    drive = snapshot.drive("PK1331PLPX28B6")
    assert drive is not None and drive.verdict.health is Health.OK
    acked = [a for a in snapshot.alerts if a.key.startswith("drive:PK1331PLPX28B6:")]
    assert acked and all(a.acknowledged for a in acked)
    assert overall(snapshot) is Health.WARNING  # the pool's vdev error still stands
