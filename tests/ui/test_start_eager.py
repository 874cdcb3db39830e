"""The interface starts as `App.run` starts it: with asyncio's eager task factory (Python 3.12+).

`App.run_test` keeps the loop's default task factory, so the pilot tests never saw the start-up
crash of Python 3.12 and 3.13 (`ScreenStackError: No screens on stack`, Textual issue 6444: an
`Input` in the first screen of the default mode, mounted before that screen is on its stack).
Here every mode is made the first screen in turn and started under the factory `App.run` uses.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from textual.widgets import Input

from nastui.ui.app import NastuiApp
from tests.ui.helpers import demo_app

SIZE = (80, 24)
EAGER = getattr(asyncio, "eager_task_factory", None)


@contextmanager
def eager_tasks() -> Iterator[None]:
    """The running loop with the task factory `App.run` installs (none before Python 3.12)."""
    loop = asyncio.get_running_loop()
    before = loop.get_task_factory()
    if EAGER is not None:
        loop.set_task_factory(EAGER)
    try:
        yield
    finally:
        loop.set_task_factory(before)


def test_the_factory_is_there_on_every_python_that_has_it() -> None:
    # A silent no-op on 3.12+ would make every test below pass for the wrong reason.
    assert (EAGER is not None) == (sys.version_info >= (3, 12))


@pytest.mark.parametrize("mode", sorted(NastuiApp.MODES))
async def test_every_mode_can_be_the_first_screen(
    mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(NastuiApp, "DEFAULT_MODE", mode)
    app = demo_app()
    with eager_tasks():
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert app.current_mode == mode
            assert app.screen is app.screen_stack[-1]
            await pilot.press("d")
            await pilot.pause()
            assert app.current_mode == "dashboard"
    assert app.return_code in (None, 0)


async def test_the_dashboard_filter_input_is_mounted_and_works() -> None:
    # The Input that crashed the start: mounted with the first screen, and usable.
    app = demo_app()
    with eager_tasks():
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert app.current_mode == "dashboard"
            box = app.screen.query_one("#filter", Input)
            await pilot.press("slash", "s", "d", "r")
            await pilot.pause()
            assert box.value == "sdr"
    assert app.return_code in (None, 0)
