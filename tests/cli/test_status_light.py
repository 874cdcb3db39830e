"""What `nastui status --demo` loads (issue 23 §3): what it shows and nothing more. No history
database (the demo has none to estimate from), no configuration parser (nor a file to parse),
no swap code without a swap file, no benchmark, no UPS reader (nor the fleet's view or
model) without a `[[ups]]`, no log set-up (the secrets' patterns) without -v, never Textual.
Structural, not timed: each case runs the command in a fresh interpreter and reads
`sys.modules` as it exits.

The swap case keeps the other side: with a swap file in the state directory, a fresh `status`
does load the swap's code and shows the swap in progress."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from nastui import exits
from nastui.session import SWAP_FLOW, Source, open_session
from tests.conftest import REPO

# Run `nastui` as its console script does, then print the modules loaded (after its output).
PROBE = """
import json, sys
from nastui.entry import main
code = main(sys.argv[1:])
print("\\nLOADED " + json.dumps(sorted(sys.modules)))
sys.exit(code)
"""

NOT_LOADED = (
    "sqlite3",
    "tomllib",
    "nastui.config.parse",
    "nastui.history.db",
    "nastui.bench",
    "nastui.model.bench",
    "nastui.swap",
    "nastui.collectors.nut",
    "nastui.cli.statusups",
    "nastui.core.fleetview",
    "nastui.model.fleet",
    "nastui.core.redact",
    "nastui.collectors.local",
    "textual",
    "rich",
)


def status(*argv: str, state: Path) -> tuple[int, str, set[str]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NASTUI_")}
    env.update(NO_COLOR="1", NASTUI_STATE_DIR=str(state))
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *argv, "status"],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        check=False,
    )
    text, _, loaded = done.stdout.rpartition("\nLOADED ")
    return done.returncode, text, set(json.loads(loaded))


def under(loaded: set[str], names: tuple[str, ...]) -> set[str]:
    return {m for m in loaded if any(m == n or m.startswith(n + ".") for n in names)}


def test_status_demo_loads_only_what_it_shows(tmp_path: Path) -> None:
    code, text, loaded = status("--demo", state=tmp_path)
    assert text.startswith("NASTUI ") and code in {exits.OK, exits.WARNING, exits.CRITICAL}
    assert "nastui.sim.backend" in loaded  # the probe did reach the demo's snapshot
    assert under(loaded, NOT_LOADED) == set()


def test_status_with_a_swap_kept_loads_the_swap_and_shows_it(tmp_path: Path) -> None:
    env = {**os.environ, "NASTUI_STATE_DIR": str(tmp_path), "NO_COLOR": "1"}
    started = subprocess.run(
        [sys.executable, "-m", "nastui", "--scenario", "failing-drive", "swap", "start", "10"],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        check=False,
    )
    assert started.returncode == exits.OK, started.stderr
    _, text, loaded = status("--scenario", "failing-drive", state=tmp_path)
    assert "swap in progress: bay 10" in text
    assert "nastui.swap.flow.status" in loaded


def test_whether_a_swap_may_be_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, SWAP_FLOW, raising=False)
    env = {"NASTUI_STATE_DIR": str(tmp_path)}
    session = open_session(Source(demo=True, history=False, fleet=False), env)
    assert session.state_dir is not None and not session.may_keep_swap()
    (session.state_dir / "swap.json.bak").write_text("{}")
    assert session.may_keep_swap()  # a backup alone is read too

    def unreadable(self: Path) -> bool:
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "exists", unreadable)
    assert session.may_keep_swap()  # the swap's reader says why
