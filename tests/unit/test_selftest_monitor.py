"""The daemon's cycle with self-tests, on the simulator: a test that newly failed is sent once,
starts and results go to the alert log, and the book is kept in the demo's state directory."""

from __future__ import annotations

import io
from pathlib import Path

from nastui.daemon.monitor import Monitor
from nastui.daemonlog import Log
from nastui.history.db import History
from nastui.model import NoticeKind
from nastui.selftest.flow.cycle import EVENT_KEY
from nastui.selftest.io.tester import load_book, save_book
from nastui.selftest.logic.book import DriveTests, Run
from nastui.selftest.logic.plan import SelftestKind
from nastui.session import Source, open_session
from tests.unit.test_monitor import Recorder

FAILING = "PK1331PLPX28B6"  # the failing-drive scenario's drive in bay 10: its log shows a failure


def monitor(tmp_path: Path, notifier: Recorder) -> Monitor:
    state = tmp_path / "state"
    session = open_session(
        Source(demo=True, scenario="failing-drive"), {"NASTUI_STATE_DIR": str(state)}
    )
    history = History.open(tmp_path / "history.sqlite")
    return Monitor(session, history, [notifier], Log(io.StringIO()), latest_path=None)


async def test_a_failed_test_is_sent_once_and_kept(tmp_path: Path) -> None:
    notifier = Recorder()
    watch = monitor(tmp_path, notifier)
    state = watch.session.state_dir
    assert state is not None
    now = watch.session.clock.now()
    started = Run(SelftestKind.LONG, now - 12 * 3600)  # longer than the simulated long test
    save_book(state, {FAILING: DriveTests(FAILING, "sdj", running=started)})
    await watch.step()
    failed = [
        n for _, batch in notifier.batches for n in batch if n.alert.key == f"{EVENT_KEY}:{FAILING}"
    ]
    assert len(failed) == 1 and failed[0].kind is NoticeKind.EVENT
    assert "long self-test failed" in failed[0].alert.message
    page = load_book(state)[FAILING]
    assert page.running is None and page.result is not None and page.result.passed is False
    before = len(notifier.batches)
    await watch.step()
    again = [
        n
        for _, batch in notifier.batches[before:]
        for n in batch
        if n.alert.key.startswith(EVENT_KEY)
    ]
    assert again == [], "a failure is sent once"
    logged = watch.history.notices(0)
    assert any("self-test ended" in n.message for n in logged)
    assert any("self-test started" in n.message for n in logged)
