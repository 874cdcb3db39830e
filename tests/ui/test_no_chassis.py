"""A box without a [chassis] table: the bay grid says how to describe one and where the drives
are meanwhile (it was blank), on the dashboard and the bays screen; `nastui bays` says the same
in one line."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from nastui.cli.args import parse_args
from nastui.cli.main import run_headless
from nastui.core.layout import NO_CHASSIS
from nastui.session import Source, open_session
from nastui.ui.app import make_app
from nastui.ui.widgets.baygrid import BayGrid


@pytest.fixture
def machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty machine's tree: no drives, no configuration, so no chassis."""
    for directory in ("sys/block", "proc", "dev", "state"):
        (tmp_path / directory).mkdir(parents=True)
    monkeypatch.setenv("NASTUI_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("NASTUI_CONFIG", raising=False)
    return tmp_path


def grid_text(grid: BayGrid) -> str:
    lines = (grid.render_line(y).text for y in range(grid.size.height))
    return " ".join(" ".join(lines).split())


@pytest.mark.parametrize("screen", ["d", "b"])
async def test_the_grid_says_how_to_describe_the_chassis(machine: Path, screen: str) -> None:
    session = open_session(Source(root=machine, history=False, fleet=False), dict(os.environ))
    app = make_app(session, live=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press(screen)
        await pilot.pause()
        text = grid_text(app.screen.query_one(BayGrid))
    assert text.startswith("no chassis configured: add a [chassis] table")
    assert "`nastui config init`" in text and text.endswith("D lists the drives")


def test_nastui_bays_says_it_in_one_line(machine: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = io.StringIO()
    assert run_headless(parse_args(["--root", str(machine), "bays"]), out) == 0
    assert capsys.readouterr().err == f"nastui: {NO_CHASSIS}\n"
