"""The interface loads the history after its first frame, off the event loop (a demo builds a
simulated day of it, which would otherwise delay the first paint by half a second); live, after
the fleet's first poll too (or a quarter of a second), whose paint completes the first frame."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import pytest
from textual.pilot import Pilot

import nastui.ui.app as app_module
from nastui.history.db import History
from nastui.session import Session, Source, history_for, open_session
from nastui.ui.app import NastuiApp, make_app
from tests.ui.test_fleet_pilot import HangingFleet


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


def live_app(session: Session, seen: list[bool]) -> NastuiApp:
    """A live app on `session` whose history loader notes whether the fleet had been polled."""
    app: NastuiApp

    def load() -> History | None:
        seen.append(app.fleet is not None)
        return history_for(session)

    app = make_app(session, live=True, poll_interval=3600.0, history_loader=load)
    return app


async def wait_for_history(app: NastuiApp, pilot: Pilot[int]) -> None:
    for _ in range(1000):
        await pilot.pause(0.01)
        if app.session.history is not None:
            return
    raise AssertionError("the history never arrived")


async def test_live_the_history_loads_after_the_fleets_first_poll(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Its load shares the interpreter with the fleet's first poll, which ends the first frame.
    monkeypatch.setattr(app_module, "HISTORY_WAIT_S", 60.0)  # however slow the machine
    session = open_session(Source(demo=True, live=True, history=False, fleet=False), {})
    seen: list[bool] = []
    app = live_app(session, seen)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_history(app, pilot)
    assert seen == [True]


def hang(session: Session) -> None:
    session.fleet = HangingFleet()


def no_fleet(session: Session) -> None:
    session.fleet_opener = lambda: None


@pytest.mark.parametrize("fleet", [hang, no_fleet])
async def test_live_a_fleet_that_never_answers_or_none_holds_the_history_up_briefly(
    fleet: Callable[[Session], None],
) -> None:
    session = open_session(Source(demo=True, live=True, history=False, fleet=False), {})
    fleet(session)
    seen: list[bool] = []
    app = live_app(session, seen)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_history(app, pilot)
    assert seen == [False]
