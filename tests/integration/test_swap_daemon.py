"""`nastui daemon` as a real process during a swap on the demo: a wrong pull is one CRITICAL
notice naming the bay to put back, sent once through a real exec hook (and not a second one for
the same bay's `bay:N:missing`); a second member failing mid-rebuild is another, sent once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from nastui.sim.swap import new_serial

pytestmark = pytest.mark.integration

HOOK = """#!{python}
import json, sys
doc = json.load(sys.stdin)
with open(sys.argv[1], "a") as log:
    for n in doc["notices"]:
        log.write(json.dumps(n) + "\\n")
"""


def run(state: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NASTUI_STATE_DIR": str(state), "NO_COLOR": "1"}
    env.pop("NASTUI_CONFIG", None)
    argv = [sys.executable, "-m", "nastui", "--scenario", "failing-drive", *args]
    result = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert "Traceback" not in result.stderr, result.stderr
    return result


def daemon(state: Path, config: Path, cycles: int = 2) -> list[dict[str, Any]]:
    """Run the daemon for `cycles` cycles; the notices its hook got (and forget them)."""
    result = run(
        state, "daemon", "--cycles", str(cycles), "--period", "0.1", "--config", str(config)
    )
    assert result.returncode == 0, result.stderr
    log = state / "notices.jsonl"
    sent = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    log.unlink(missing_ok=True)
    return sent


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Path, Path]:
    state = tmp_path / "state"
    state.mkdir()
    script = tmp_path / "hook.py"
    script.write_text(HOOK.format(python=sys.executable))
    script.chmod(0o755)
    config = tmp_path / "config.toml"
    config.write_text(f'[alerts]\nexec = ["{script}", "{state / "notices.jsonl"}"]\n')
    return state, config


def critical(sent: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [n for n in sent if n["health"] == "critical"]


def test_a_wrong_pull_and_a_second_failure_are_each_one_critical_notice(
    setup: tuple[Path, Path],
) -> None:
    state, config = setup
    assert daemon(state, config, cycles=1)  # the failing drive's own alerts, out of the way
    assert run(state, "swap", "start", "10").returncode == 0
    assert critical(daemon(state, config)) == []  # prepared: the pool degraded, a warning
    run(state, "swap", "sim", "pull", "11")
    sent = daemon(state, config, cycles=3)
    (wrong,) = critical(sent)
    assert wrong["kind"] == "firing" and wrong["key"] == "swap:wrong-pull:11"
    assert wrong["name"] == "bay 11"
    assert "WRONG DRIVE PULLED" in wrong["message"]
    assert "put it back in bay 11 now" in wrong["message"]
    assert not [n for n in sent if n["key"] == "bay:11:missing"]
    assert daemon(state, config) == []  # told once
    # the drive goes back; the swap goes on to a rebuild, and a second member fails in it
    run(state, "swap", "sim", "insert", "11", "--variant", "old")
    run(state, "swap", "sim", "pull", "10")
    run(state, "swap", "sim", "insert", "10")
    good = new_serial(10, "new", 1)
    replace = run(state, "swap", "replace", "--confirm", good)
    assert replace.returncode == 0, replace.stdout + replace.stderr
    run(state, "swap", "sim", "wait", "3600")
    daemon(state, config)
    run(state, "swap", "sim", "fail", "3")
    sent = daemon(state, config, cycles=3)
    down = [n for n in sent if n["key"].startswith("swap:member-down:storage:")]
    assert len(down) == 1 and down[0]["health"] == "critical", sent
    assert "ANOTHER MEMBER FAILED" in down[0]["message"] and "(bay 3)" in down[0]["message"]
    assert not [n for n in daemon(state, config) if n["key"].startswith("swap:")]
