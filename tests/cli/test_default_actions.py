"""Commands with actions run their read-only one when none is named (`nastui swap` is
`swap status`, `selftest` is `selftest status`, `alert` is `alert list`), `--json` included,
whether it comes before or after the action; `--json` with an action that prints no data is a
usage error (64) that names the actions it goes with, before anything is read."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from nastui import exits

DEFAULTS = [
    (["swap"], ["swap", "status"]),
    (["selftest"], ["selftest", "status"]),
    (["alert"], ["alert", "list"]),
]


def nastui(state: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1", "NASTUI_STATE_DIR": str(state)}
    env.pop("NASTUI_CONFIG", None)
    return subprocess.run(
        [sys.executable, "-m", "nastui", *argv, "--demo", "--scenario", "failing-drive"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize(("bare", "named"), DEFAULTS)
@pytest.mark.parametrize("json", [[], ["--json"]])
def test_no_action_is_the_read_only_one(
    tmp_path: Path, bare: list[str], named: list[str], json: list[str]
) -> None:
    alone = nastui(tmp_path, *bare, *json)
    assert alone.returncode in (exits.OK, exits.WARNING, exits.CRITICAL), alone.stderr
    assert alone.stdout == nastui(tmp_path, *named, *json).stdout
    if json:  # before the action as after it
        assert alone.stdout == nastui(tmp_path, bare[0], "--json", *named[1:]).stdout
        assert alone.stdout.startswith('{\n  "schema"')


@pytest.mark.parametrize(
    ("argv", "goes_with"),
    [
        (["swap", "--json", "abort"], "log, plan, status"),
        (["selftest", "start", "0", "--json"], None),  # the action has no --json at all
        (["selftest", "--json", "start", "0"], "schedule, status"),
        (["alert", "--json", "test"], "list"),
    ],
)
def test_json_with_an_action_that_prints_no_data_is_refused(
    tmp_path: Path, argv: list[str], goes_with: str | None
) -> None:
    done = nastui(tmp_path, *argv)
    assert done.returncode == exits.EX_USAGE
    assert not done.stdout
    if goes_with is not None:
        action = " ".join(a for a in argv[:3] if a != "--json")
        assert done.stderr == (
            f"nastui: `nastui {action}` prints no data: --json goes with {goes_with}\n"
        )
    assert not (tmp_path / "swap.json").exists() and not (tmp_path / "selftests.json").exists()
