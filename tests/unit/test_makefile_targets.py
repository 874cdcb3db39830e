"""The Makefile's own logic, run through make: the Python matrix finds each interpreter and says
what it cannot do, and `make demo` installs nastui alone (no extras, no development tools)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO, require_tool


def make(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    binary = require_tool("make", "make")
    return subprocess.run(
        [binary, "-s", "--no-print-directory", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
        check=False,
    )


def evaluate(expression: str) -> str:
    done = make("--eval", f"probe: ; @echo {expression}", "probe")
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_extras_capped_below_a_python_are_left_out_there() -> None:
    assert evaluate("$(call extras_for,3.13)") == "apprise,snmp"
    assert evaluate("$(call extras_for,3.14)") == "apprise"  # pynetsnmp-2: < 3.14


@pytest.mark.parametrize("version", ["3.12", "3.13"])
def test_the_matrix_finds_the_pythons_the_distributions_ship(version: str) -> None:
    found = evaluate(f"$(call find_python,{version})")
    if not found and shutil.which(f"python{version}") is None:
        pytest.skip(f"no Python {version} here (pyenv install {version})")
    done = subprocess.run(
        [found, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == version


def test_a_missing_python_is_said_and_fails_only_when_required() -> None:
    args = ["matrix-3.99", "MATRIX_OPTIONAL=3.99", "MATRIX_REQUIRED="]
    optional = make(*args, env={"NASTUI_REQUIRE_INTEGRATION": "1"})
    assert optional.returncode == 0, optional.stderr
    assert optional.stdout.startswith("matrix 3.99: no Python 3.99 here")
    args = ["matrix-3.99", "MATRIX_OPTIONAL=", "MATRIX_REQUIRED=3.99"]
    required = make(*args, env={"NASTUI_REQUIRE_INTEGRATION": "1"})
    assert required.returncode != 0
    assert "matrix 3.99: no Python 3.99 (pyenv install 3.99" in required.stdout
    assert make(*args, env={"NASTUI_REQUIRE_INTEGRATION": "0"}).returncode == 0


def test_make_demo_installs_nastui_alone(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    done = make("-n", "demo", f"VENV={venv}")
    assert done.returncode == 0, done.stderr
    installs = [line for line in done.stdout.splitlines() if "pip install" in line]
    assert installs and all("-e ." in line for line in installs)
    assert not [line for line in installs if "--group" in line or "[" in line], installs
    assert "pip>=" not in done.stdout  # no pip upgrade either: any pip >= 22.3 will do
    assert "--no-compile" in done.stdout  # only what the demo imports is ever compiled
