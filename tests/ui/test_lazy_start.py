"""What loads before the first frame (issue 23 §3): the dashboard's code, the session and the one
backend it uses; nothing of the swap, the bench or the fleet, no other screen. Structural, not
timed: each case runs in a fresh interpreter and reads `sys.modules`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO

FEATURES = (
    "nastui.swap",
    "nastui.bench",
    "nastui.sim.fleet",
    "nastui.core.fleetview",
    "nastui.collectors.fleet",
    "nastui.collectors.snmp",
    "nastui.ui.screens.fleet",
    "nastui.ui.render.fleet",
    "nastui.ui.screens.bench",
    "nastui.ui.screens.swap",
)

# The interface's start as `nastui --demo` makes it (nastui.ui.launch.run_ui, which needs a
# terminal), headless: the first frame drawn, the first snapshot on it.
FIRST_FRAME = """
import asyncio, json, sys
from pathlib import Path
from nastui.session import Source, open_session
from nastui.ui.app import NastuiApp, make_app
from nastui.ui.screens.dashboard import DashboardScreen

# What is loaded when the first frame is painted, before what waits for it (fleet, history).
at_first_paint: list[str] = []
start_background = NastuiApp._background

def background(app: NastuiApp) -> None:
    at_first_paint.extend(sorted(sys.modules))
    start_background(app)

NastuiApp._background = background

async def first_frame() -> list[str]:
    session = open_session(SOURCE, ENV)
    app = make_app(session, initial=await session.poll())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, DashboardScreen) and app.snapshot is not None
        assert at_first_paint, "the first paint was not released"
        app.exit()
    return at_first_paint

print(json.dumps(asyncio.run(first_frame())))
"""
DEMO = "Source(demo=True, live=True, history=False, fleet=False)"
# What only a swap, a self-test or a locate LED needs: on a real machine too, loaded when first
# used (the session makes the swap's hands, the self-test runner and the LED ladder then).
MACHINE_FEATURES = (
    "nastui.selftest.io",
    "nastui.selftest.flow",
    "nastui.selftest.logic.tester",
    "nastui.control.locate_ladder",
    "nastui.control.locate_rungs",
    "nastui.control.locate_empty",
    "nastui.control.blink",
)


def _first_frame(source: str = DEMO, env: str = "{}") -> str:
    return FIRST_FRAME.replace("SOURCE", source).replace("ENV", env)


def loaded_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO
    )
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def features(loaded: set[str]) -> set[str]:
    return {m for m in loaded if any(m == f or m.startswith(f + ".") for f in FEATURES)}


def test_the_first_frame_loads_no_feature_and_no_other_screen() -> None:
    loaded = loaded_after(_first_frame())
    assert "nastui.ui.screens.dashboard" in loaded  # the probe did reach the first frame
    assert features(loaded) == set()
    screens = {m for m in loaded if m.startswith("nastui.ui.screens.")}
    assert screens <= {
        "nastui.ui.screens.base",
        "nastui.ui.screens.dashboard",
        "nastui.ui.screens.gridscreen",
    }
    assert "nastui.collectors.local" not in loaded  # the demo does not load the machine's


def test_a_screen_loads_when_first_shown() -> None:
    code = _first_frame().replace(
        "        app.exit()\n    return at_first_paint",
        "        await pilot.press('n')\n        await pilot.pause()\n"
        "        app.exit()\n    return sorted(sys.modules)",
    )
    assert "nastui.ui.screens.bench" in loaded_after(code)


def test_the_session_loads_only_the_backend_it_opens() -> None:
    probe = "import json, sys\n{}\nprint(json.dumps(sorted(sys.modules)))"
    bare = loaded_after(probe.format("import nastui.session"))
    assert not {"nastui.sim.backend", "nastui.collectors.local"} & bare
    demo = loaded_after(
        probe.format(
            "from nastui.session import Source, open_session\n"
            "open_session(Source(demo=True, history=False, fleet=False), {})"
        )
    )
    assert "nastui.sim.backend" in demo
    assert "nastui.collectors.local" not in demo
    assert features(demo) == set()


def test_on_a_machine_the_first_frame_loads_no_feature(tmp_path: Path) -> None:
    """A machine's tree (`--root`; no drives: the probe is about code, not data)."""
    for directory in ("sys/block", "proc", "dev", "state"):
        (tmp_path / directory).mkdir(parents=True)
    env = f"{{'NASTUI_STATE_DIR': {str(tmp_path / 'state')!r}}}"
    source = f"Source(root=Path({str(tmp_path)!r}), live=True, history=False, fleet=False)"
    loaded = loaded_after(_first_frame(source, env))
    assert "nastui.collectors.local" in loaded  # the probe did open the machine
    assert features(loaded) == set()
    assert not {m for m in loaded if m.startswith(MACHINE_FEATURES)}
