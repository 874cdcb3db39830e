"""Every screen, dialog and key of the help, in every scenario, in a real terminal as a serial
console sees it: tmux at 80x24, TERM=vt100, NO_COLOR=1. Nothing but ASCII reaches the screen,
no value is cut without a mark, no number is cut; Ctrl+C quits and gives the terminal back."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from nastui.session import Source, open_session
from nastui.sim import SCENARIOS
from tests.integration.test_terminal import Tmux
from tests.ui.cutcheck import find_cuts, known_values
from tests.waiting import settled, tree_asleep

pytestmark = pytest.mark.integration

# The before-stop hook's walk first, then every key the help lists, screen by screen. Keys
# that write (fans `s`, bench `x`) or start a scrub are left out; `s` `z` `x` on pools only
# ask first, and are answered no.
WALK_LINES = (
    "d b v p f n o Escape t Escape e Escape H ?",
    "d 1 v v v v v v L L / P K Enter Escape D Down Enter ] [ Escape Escape",
    "b 2 j l Enter a Escape w Escape",
    "p 3 Tab Tab s n z n x n",
    "f 4 > < Up Right a x ] [ M m z u U",
    "n 5 o Down Right Escape t Escape e Escape r s c Escape",
    "H 6 Down Enter Escape ? End F1",
)
WALK = [key for line in WALK_LINES for key in line.split(" ")]


class Console(Tmux):
    """nastui in tmux at 80x24 under TERM=vt100 and NO_COLOR, driven by keys one at a time."""

    def __init__(self, scenario: str, state: Path) -> None:
        env = f"NO_COLOR=1 NASTUI_STATE_DIR={state} NASTUI_BENCH_DIR={state}/bench"
        nastui = f"{sys.executable} -m nastui --scenario {scenario}"
        super().__init__(f"{env} {nastui}; echo EXITED $?", "vt100")

    def alternate_screen(self) -> bool:
        return self._run("display-message", "-p", "#{alternate_on}").strip() == "1"

    def pane_pid(self) -> int:
        return int(self._run("display-message", "-p", "#{pane_pid}").strip())

    def settled(self) -> str:
        """The screen once it stayed the same for 0.3 s with nastui asleep: done with the key
        (a loaded machine may take seconds to start on it)."""
        pid = self.pane_pid()
        return settled(self.capture, quiet=0.3, step=0.1, ready=lambda: tree_asleep(pid))

    def key(self, key: str) -> str:
        self._run("send-keys", key)
        return self.settled()


@pytest.fixture
def console(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Console]:
    tmux = Console(request.param, tmp_path)
    try:
        yield tmux
    finally:
        tmux.close()


# ~110 keys, each waited for: 50 s on a quiet machine, several times that on a loaded one
@pytest.mark.timeout(900)
@pytest.mark.parametrize("console", list(SCENARIOS), indirect=True)
def test_every_screen_on_a_serial_console(console: Console, request: pytest.FixtureRequest) -> None:
    scenario = request.node.callspec.params["console"]
    snapshot = asyncio.run(open_session(Source(demo=True, scenario=scenario), {}).poll())
    strings, numbers = known_values(snapshot)
    first = console.wait_for("[demo ")
    problems: list[str] = []
    for key, screen in [("start", first), *((k, console.key(k)) for k in WALK)]:
        lines = screen.splitlines()
        assert len(lines) <= 24 and all(len(line) <= 80 for line in lines), key
        assert "[demo " in lines[0], f"the demo tag left the top line after {key}"
        problems += [f"{key}: non-ASCII {line!r}" for line in lines if not line.isascii()]
        problems += [f"{key}: {cut}" for cut in find_cuts(lines, strings, numbers)]
    assert not problems, "\n".join(problems[:30])

    console.key("C-c")  # quits at once: on a serial line Ctrl+Q is XON, never asked for
    screen = console.wait_for("EXITED 0")
    assert not console.alternate_screen()  # the terminal is given back
    assert "ctrl+q" not in screen.lower()
