"""The simulator stays behind its seam (issue 23 §1): the box's own capabilities, the swap's
hands and the self-test runner, are the machine's or the simulator's, and production code never
asks which one it is talking to."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from nastui.selftest.io.tester import SmartctlTester
from nastui.session import Source, open_session, run_async
from nastui.sim.selftest import SimTester
from nastui.sim.swap import SimSwap
from nastui.swap.io.machine import MachineSwap
from tests.conftest import REPO

# The one place that decides between the simulator and the machine, and the simulator itself.
DECIDES = ("nastui/session.py", "nastui/sim/")


def test_no_production_module_asks_whether_it_is_the_simulator() -> None:
    asking = re.compile(r"\bSimBackend\b")
    found = [
        path.relative_to(REPO).as_posix()
        for path in sorted((REPO / "nastui").rglob("*.py"))
        if not path.relative_to(REPO).as_posix().startswith(DECIDES)
        and asking.search(path.read_text(encoding="utf-8"))
    ]
    assert found == []


def test_the_demo_offers_the_simulators_hands_and_tester(tmp_path: Path) -> None:
    session = open_session(Source(demo=True), {"NASTUI_STATE_DIR": str(tmp_path)})
    assert isinstance(session.backend.swap, SimSwap)
    assert isinstance(session.backend.tester, SimTester)


def test_the_machine_offers_its_own_under_its_root(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text("")
    session = open_session(Source(root=tmp_path, config=config), {})
    assert isinstance(session.backend.swap, MachineSwap)
    assert session.backend.swap.root == tmp_path
    assert isinstance(session.backend.tester, SmartctlTester)


def test_poll_now_is_one_poll_run_to_its_end() -> None:
    """A one-shot command's poll (`Session.poll_now`) gives what `poll` gives, published in the
    store as the latest."""
    source = Source(demo=True, scenario="failing-drive")
    session, other = open_session(source, {}), open_session(source, {})
    snapshot = session.poll_now()
    assert snapshot == asyncio.run(other.poll())
    assert session.store.latest(snapshot.host) == snapshot


def test_run_async_hands_back_the_result_or_raises_what_main_raised() -> None:
    async def answer() -> int:
        return 42

    async def fails() -> int:
        raise ValueError("no answer")

    assert run_async(answer()) == 42
    with pytest.raises(ValueError, match="no answer"):
        run_async(fails())
