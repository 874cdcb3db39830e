"""The whole swap keyboard-only in a real terminal: `nastui --demo --scenario failing-drive`
in tmux at 80x24 with TERM=vt100. The operator's hands (a wrong pull, the right pull, the
insert) come from `nastui --demo swap sim` in another process, as a second terminal would give
them; the interface picks them up at its next poll."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from nastui.sim.swap import new_serial
from tests.conftest import REPO
from tests.integration.test_terminal import Tmux

pytestmark = pytest.mark.integration

SCENARIO = ("--scenario", "failing-drive")


@pytest.fixture
def state(tmp_path: Path) -> Path:
    return tmp_path


@pytest.fixture
def console(state: Path) -> Iterator[Tmux]:
    command = f"env NASTUI_STATE_DIR={state} {sys.executable} -m nastui {' '.join(SCENARIO)}"
    tmux = Tmux(command, "vt100")
    try:
        yield tmux
    finally:
        tmux.close()


def hands(state: Path, *argv: str) -> None:
    env = {**os.environ, "NASTUI_STATE_DIR": str(state)}
    env.pop("NASTUI_CONFIG", None)
    subprocess.run(
        [sys.executable, "-m", "nastui", *SCENARIO, "swap", "sim", *argv],
        check=True,
        capture_output=True,
        env=env,
        cwd=REPO,
        timeout=60,
    )


def test_a_swap_walked_with_the_keyboard(console: Tmux, state: Path) -> None:
    console.wait_for("dashboard")
    console.keys("Down", "Down", "Right", "Right", "w")
    screen = console.wait_for("can lose 2 more once it is out")
    assert "swap: bay 10" in screen and "zpool offline storage" in screen
    assert all(len(line) <= 80 for line in screen.splitlines())
    console.keys("s")
    console.wait_for("Start replacing the drive in bay 10?")
    console.keys("y")
    console.wait_for("swap prepared")
    hands(state, "pull", "11")
    console.wait_for("WRONG DRIVE PULLED: bay 11")
    hands(state, "insert", "11", "--variant", "old")
    hands(state, "pull", "10")
    hands(state, "insert", "10")
    serial = new_serial(10, "new", 1)
    screen = console.wait_for(f"new drive: bay 10 HGST HUS724040ALA640 {serial}")
    assert "CRITICAL: WRONG DRIVE PULLED" not in screen  # bay 11 is back
    console.keys("r", serial, "Enter")
    console.wait_for("swap rebuilding")
