"""The first frame in a real terminal is painted once, in full, with the first snapshot on it.

A full frame costs most of a second on a 115200-baud serial console: Textual would paint the
screen three times on start-up (empty, laid out, filled) if the interface did not hold its first
paint until the first snapshot is laid out. Here `nastui --demo` runs in an 80x24 pseudo-terminal
and every byte it writes is read: nothing is drawn before the full paint (which starts at the top
left), the lines that never change are written (a cursor move to their first column) once, and
what follows only rewrites the cells that changed. Structural, not timed.
"""

from __future__ import annotations

import re
import sys

import pytest
from textual.css.stylesheet import Stylesheet

import nastui.ui.app as app_module
from nastui.collectors.base import FleetSource
from nastui.session import Source, open_session
from nastui.sim import SimBackend
from nastui.sim.clock import FakeClock
from nastui.sim.locate import SimLocator
from nastui.ui.app import make_app
from nastui.ui.screens.dashboard import DashboardScreen
from nastui.ui.widgets.textpanel import TextPanel
from tests.integration.test_terminal import _pty_run, pty_env
from tests.ui.helpers import demo_app
from tests.ui.test_fleet_pilot import CountingBackend

ROWS = 24
# A cursor move to the first column of a line: how Textual starts each line of a full paint.
LINE_START = re.compile(rb"\x1b\[(\d+);1H")
CURSOR_MOVE = re.compile(rb"\x1b\[(\d+);(\d+)H")


def full_lines(output: bytes) -> dict[int, int]:
    """How many times each screen line was started at its first column."""
    counts: dict[int, int] = {}
    for match in LINE_START.finditer(output):
        row = int(match.group(1))
        counts[row] = counts.get(row, 0) + 1
    return counts


@pytest.mark.parametrize(
    ("term", "extra"), [("xterm-256color", []), ("vt100", ["--ascii"]), ("linux", [])]
)
def test_the_screen_is_painted_in_full_once(term: str, extra: list[str]) -> None:
    argv = [sys.executable, "-m", "nastui", "--demo", *extra]
    output = _pty_run(argv, pty_env(term), until=b"fan-wall-2")
    counts = full_lines(output)
    # The first thing drawn is the full paint, from the top left: no part of the screen before it.
    first = CURSOR_MOVE.search(output)
    assert first is not None and first.group(0) == b"\x1b[1;1H", output[:300]
    assert set(counts) >= set(range(1, ROWS + 1)), counts  # the whole screen was drawn
    # The key bar and the rule under the title line never change (a poll may rewrite a bay
    # cell from its first column): each drawn once means the screen was painted in full once.
    assert counts[ROWS] == 1, counts
    assert counts[2] == 1, counts


async def test_the_snapshot_taken_before_the_start_is_the_first_frame(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # `nastui` polls once before the interface starts (`ui.launch`): that snapshot is laid out
    # and painted, with no poll of the interface's own held up in between; the next poll is an
    # interval later, or when an action asks for one.
    monkeypatch.setattr(app_module, "STARTUP_HOLD_MAX_S", 3600.0)  # only the snapshot can end it
    clock = FakeClock()
    sim = SimBackend(clock=clock)
    session = open_session(Source(demo=True, live=True, history=False, fleet=False), {})
    counting = CountingBackend(sim)
    session.backend, session.clock, session.locator = counting, clock, SimLocator(sim)
    initial = await session.poll()
    opened: list[bool] = []  # the fleet is set up once the first frame has been painted
    opener = session.fleet_opener

    def open_fleet() -> FleetSource | None:
        opened.append(True)
        return opener()

    session.fleet_opener = open_fleet
    app = make_app(session, initial=initial, poll_interval=3600.0)
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(500):
            await pilot.pause(0.01)
            if opened:
                break
        assert opened, "the first paint was not released"
        assert counting.collected == 1  # the snapshot before the start, no other
        assert isinstance(app.screen, DashboardScreen)
        assert "bay 0:" in app.screen.query_one("#selected", TextPanel).plain
        app.poll_now()
        for _ in range(500):
            await pilot.pause(0.01)
            if counting.collected > 1:
                break
        assert counting.collected == 2


def count_reparses(monkeypatch: pytest.MonkeyPatch) -> list[None]:
    """A list that grows by one each time any stylesheet is parsed again in full."""
    reparsed: list[None] = []
    real = Stylesheet.reparse

    def reparse(self: Stylesheet) -> None:
        reparsed.append(None)
        real(self)

    monkeypatch.setattr(Stylesheet, "reparse", reparse)
    return reparsed


async def test_the_stylesheets_are_not_parsed_again_at_the_start(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    reparsed = count_reparses(monkeypatch)
    app = demo_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, DashboardScreen)
        assert reparsed == []
        app.theme = "textual-light"  # a change of theme later does restyle
        await pilot.pause()
        assert reparsed
        assert app.theme_variables["background"] == "#E0E0E0"


async def test_a_theme_set_before_the_start_is_the_first_frames(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    reparsed = count_reparses(monkeypatch)
    app = demo_app()
    app.theme = "textual-light"
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert reparsed
        assert app.theme_variables == app.get_css_variables()
        assert app.theme_variables["background"] == "#E0E0E0"
