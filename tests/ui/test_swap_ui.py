"""The swap screen on the simulator, keyboard only at 80x24: opened with `w` from a bay and
from drive detail, the plan shown, the swap started after a y/n question, a wrong pull shown
as CRITICAL, the new drive's serial typed to replace, the rebuild followed with the bay marked
"R"."""

from __future__ import annotations

import asyncio
import io
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from nastui.core.statefiles import state_dir
from nastui.session import Source, open_session
from nastui.sim.hands import HANDS_FILE, Hand, Hands, encode_hands
from nastui.sim.swap import new_serial
from nastui.ui.app import NastuiApp, make_app
from nastui.ui.cells import rebuilding_drives
from nastui.ui.screens.swap import SwapScreen
from nastui.ui.widgets.baygrid import BayGrid
from nastui.ui.widgets.textpanel import TextPanel
from tests.ui.helpers import demo_app

SIZE = (80, 24)


@pytest.fixture(autouse=True)
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("NASTUI_STATE_DIR", str(tmp_path))
    return tmp_path


def app_on(scenario: str = "failing-drive") -> NastuiApp:
    session = open_session(Source(demo=True, scenario=scenario), dict(os.environ))
    return make_app(session, live=False)


def hands(*done: Hand) -> None:
    """What the operator did, kept where the demo reads it (as `nastui --demo swap sim` does)."""
    directory = state_dir(dict(os.environ), 0)  # NASTUI_STATE_DIR: the demo state directory
    directory.mkdir(parents=True, exist_ok=True)
    (directory / HANDS_FILE).write_text(encode_hands(Hands(done)))


def swap_text(app: NastuiApp) -> str:
    return app.screen.query_one("#swap-text", TextPanel).plain


async def test_w_on_a_bay_shows_the_plan_and_start_asks_first() -> None:
    app = app_on()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        app.screen.query_one("#grid", BayGrid).select(10)
        await pilot.press("w")
        await pilot.pause()
        assert isinstance(app.screen, SwapScreen)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "raidz3 of 24; can lose 2 more once it is out" in swap_text(app)
        await pilot.press("s")
        await pilot.pause()
        await pilot.press("y")
        await app.workers.wait_for_complete()
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "swap prepared" in swap_text(app)


async def test_drive_detail_w_then_a_whole_swap_with_a_wrong_pull() -> None:
    app = app_on()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        app.screen.query_one("#grid", BayGrid).select(10)
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("w")
        await pilot.pause()
        assert isinstance(app.screen, SwapScreen)
        await pilot.press("s", "y")
        await app.workers.wait_for_complete()
        now = app.session.clock.now()
        hands(Hand("pull", now, 11))
        app.poll_now()
        await app.workers.wait_for_complete()
        await pilot.pause()
        await app.workers.wait_for_complete()
        assert "CRITICAL: WRONG DRIVE PULLED: bay 11" in swap_text(app)
        hands(Hand("pull", now, 10), Hand("insert", now, 10))
        app.poll_now()
        await app.workers.wait_for_complete()
        await pilot.pause()
        await app.workers.wait_for_complete()
        serial = new_serial(10, "new", 0)
        assert f"new drive: bay 10 HGST HUS724040ALA640 {serial}" in swap_text(app)
        await pilot.press("r")
        await pilot.press(*serial, "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        app.poll_now()
        await app.workers.wait_for_complete()
        await pilot.pause()
        await app.workers.wait_for_complete()
        assert "swap rebuilding" in swap_text(app)
        snapshot = app.snapshot
        assert snapshot is not None
        assert rebuilding_drives(snapshot) == {serial}


def test_swap_plan_snapshot(snap_compare: Callable[..., bool]) -> None:
    """The swap screen for bay 10 of the failing-drive demo at 80x24: title "swap", the drive
    (sdp HGST HUS724040ALA640), pool storage raidz3-0 with 2 more it can lose, no free bay so
    pull first, the rebuild estimate (about 7h10m), what the new drive must be (3.6 TiB,
    512/4096 B sectors, not SMR), the zpool offline and zpool replace commands by by-id name
    folded to the width, and the key bar "s start  r replace  a abort  Esc back"."""

    async def open_swap(pilot: object) -> None:
        from textual.pilot import Pilot

        assert isinstance(pilot, Pilot)
        await pilot.pause()
        await pilot.press("down", "down", "right", "right", "w")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()

    # the frozen demo (no state directory): the title's clock stands still
    assert snap_compare(demo_app("failing-drive"), run_before=open_swap, terminal_size=SIZE)


async def test_the_interface_picks_up_a_swap_on_start(state: Path) -> None:
    """A swap started from the command line shows when the interface starts, and a wrong
    pull is a CRITICAL notification whatever screen is up."""
    from nastui.cli.args import parse_args
    from nastui.cli.main import run_headless

    args = parse_args(["--scenario", "failing-drive", "swap", "start", "10"])
    await asyncio.to_thread(run_headless, args, io.StringIO())
    hands(Hand("offline", 0.0), Hand("pull", 0.0, 11))
    app = app_on()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        shown = [n.message for n in app._notifications]
        assert any("CRITICAL WRONG DRIVE PULLED: bay 11" in m for m in shown)
        assert any(m.startswith("swap in progress: bay 10") for m in shown)
        assert any(m.endswith(", prepared (w on its bay)") for m in shown), shown
        assert not any("nastui swap" in m for m in shown)  # the interface names its own keys


async def test_drive_detail_shows_the_swaps_of_its_bay(state: Path) -> None:
    """A swap finished from the command line is in the drive detail of its bay: the date, the
    old and the new model and serial, the rebuild time; `drives --json` has it too."""
    import json

    from nastui.cli.args import parse_args
    from nastui.cli.main import run_headless

    def nastui(*argv: str) -> str:
        out = io.StringIO()
        run_headless(parse_args(["--scenario", "failing-drive", *argv]), out)
        return out.getvalue()

    await asyncio.to_thread(nastui, "swap", "start", "10")
    await asyncio.to_thread(nastui, "swap", "sim", "pull", "10")
    await asyncio.to_thread(nastui, "swap", "sim", "insert", "10")
    serial = new_serial(10, "new", 0)  # the first drive inserted
    await asyncio.to_thread(nastui, "swap", "replace", "--confirm", serial)
    await asyncio.to_thread(nastui, "swap", "sim", "wait", "40000")
    assert "swap done" in await asyncio.to_thread(nastui, "swap")
    app = app_on()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("down", "down", "right", "right", "enter")
        await pilot.pause()
        text = app.screen.query_one("#swaps", TextPanel).plain
    assert text.startswith("swaps\n")
    assert "bay 10  storage  done: HGST HUS724040ALA640 PK1331PLPX28B6 -> " in text
    words = " ".join(text.split())  # the panel folds a long line at its width
    assert f"HGST HUS724040ALA640 {serial} rebuild 7h10m" in words
    drives = json.loads(await asyncio.to_thread(nastui, "drives", "--json"))["drives"]
    (mine,) = [d for d in drives if d["swaps"]]
    assert mine["serial"] == serial
    (record,) = mine["swaps"]
    assert record["old"] == {"model": "HGST HUS724040ALA640", "serial": "PK1331PLPX28B6"}
    assert record["new"]["serial"] == serial and record["rebuild_s"] > 25000


async def test_a_start_killed_while_preparing_is_shown_interrupted_and_aborted_from_the_screen(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`swap start` dies after the simulator's `zpool offline`: the interface says at start that
    the swap was interrupted, the swap screen names the offline as maybe run and what the abort
    runs, `s` refuses naming the abort, and `a` (after its question) onlines the member."""
    from nastui.cli.args import parse_args
    from nastui.cli.main import run_headless
    from nastui.sim.swap import SimSwap
    from tests.cli.test_swap_cli import Killed

    played = SimSwap.write

    async def dies(self: SimSwap, *args: Any, **kw: Any) -> Any:
        await played(self, *args, **kw)
        raise Killed

    monkeypatch.setattr(SimSwap, "write", dies)
    start = parse_args(["--scenario", "failing-drive", "swap", "start", "10"])
    with pytest.raises(Killed):
        await asyncio.to_thread(run_headless, start, io.StringIO())
    monkeypatch.setattr(SimSwap, "write", played)
    app = app_on()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        shown = [n.message for n in app._notifications]
        assert any(m.startswith("swap INTERRUPTED while preparing: bay 10") for m in shown), shown
        assert any(
            m.endswith(": w on its bay says what may have run, a on its screen undoes it")
            for m in shown
        ), shown
        app.screen.query_one("#grid", BayGrid).select(10)
        await pilot.press("w")
        await app.workers.wait_for_complete()
        await pilot.pause()
        text = " ".join(swap_text(app).split())
        assert "INTERRUPTED while preparing" in text
        assert "may or may not have run: zpool offline storage" in text
        assert "abort runs: zpool online storage" in text
        await pilot.press("s")
        await pilot.pause()
        shown = [n.message for n in app._notifications]
        assert any("a aborts it, undoing what may have run" in m for m in shown), shown
        await pilot.press("a")
        await pilot.pause()
        await pilot.press("y")
        await app.workers.wait_for_complete()
        await pilot.pause()
        shown = [n.message for n in app._notifications]
        assert any(m.startswith("swap aborted") for m in shown), shown
    out = io.StringIO()
    await asyncio.to_thread(run_headless, parse_args(["--scenario", "failing-drive", "pools"]), out)
    assert "storage" in out.getvalue() and "OFFLINE" not in out.getvalue()


async def test_abort_before_the_pull_asks_and_puts_the_member_back() -> None:
    """Started from the screen, then `a`: the question says the member goes back in service
    (the drive is still in), and after `y` the pool shows no member offline."""
    from nastui.cli.args import parse_args
    from nastui.cli.main import run_headless
    from nastui.ui.screens.confirm import ConfirmScreen

    app = app_on()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        app.screen.query_one("#grid", BayGrid).select(10)
        await pilot.press("w")
        await app.workers.wait_for_complete()
        await pilot.press("s")
        await pilot.pause()
        await pilot.press("y")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "swap prepared" in swap_text(app)
        await pilot.press("a")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert "put back in service first" in " ".join(str(app.screen.question).split())
        await pilot.press("y")
        await app.workers.wait_for_complete()
        await pilot.pause()
    out = io.StringIO()
    await asyncio.to_thread(run_headless, parse_args(["--scenario", "failing-drive", "pools"]), out)
    assert "storage zfs ONLINE" in out.getvalue() and "OFFLINE" not in out.getvalue()


async def test_an_empty_bay_asks_nothing_it_would_refuse() -> None:
    """On an empty bay ("bay 101 is empty: nothing to swap") `s` asked "Start replacing the
    drive in bay 101? Its member is taken offline." and only then refused; `a` asked to abort
    a swap that did not exist and `r` opened the serial box for one."""
    app = app_on("datacenter-102")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        app.push_screen(SwapScreen(101))
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SwapScreen)
        assert "bay 101 is empty: nothing to swap" in swap_text(app)
        for key, said in (
            ("s", "refused: bay 101 is empty: nothing to swap"),
            ("a", "no swap in progress"),
            ("r", "no swap in progress"),
        ):
            await pilot.press(key)
            await pilot.pause()
            assert app.screen is screen, key  # no question, no serial box over it
            assert screen.query_one("#swap-serial").has_class("-hidden")
            notes = [n.message for n in app._notifications]
            assert notes[-1] == said, (key, notes)
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, SwapScreen)
