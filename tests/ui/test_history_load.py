"""The interface loads the history after its first frame, off the event loop (a demo builds a
simulated day of it, which would otherwise delay the first paint by half a second)."""

from __future__ import annotations

from functools import partial

from nastui.session import Source, history_for, open_session
from nastui.ui.app import make_app


async def test_history_arrives_after_start_and_fills_the_store() -> None:
    source = Source(demo=True, scenario="healthy-24-bay", history=False)
    session = open_session(source, {})
    assert session.history is None
    host = session.backend.host
    app = make_app(session, live=False, history_loader=partial(history_for, session))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        history = app.session.history  # the same session, read after the worker ran
        assert history is not None
        temps = [m for m in history.metrics(host) if m.startswith("temp:")]
        assert temps and len(session.store.history(host, temps[0])) > 100


async def test_no_history_is_fine() -> None:
    source = Source(demo=True, history=False)
    session = open_session(source, {})
    app = make_app(session, live=False, history_loader=lambda: None)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert session.history is None
