"""Shared fixtures and the strict-integration rule.

With NASTUI_REQUIRE_INTEGRATION=1 (as `.ci/run` sets it) a test that would skip, for a missing
tool or anything else, fails instead: in CI, skipped is not passed.
"""

from __future__ import annotations

import gc
import os
import shutil
import sys
import time
from collections.abc import Generator
from pathlib import Path

import pytest

from nastui.collectors import standin

REPO = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
STRICT = os.environ.get("NASTUI_REQUIRE_INTEGRATION") == "1"
# The NAS lab boots a QEMU guest (minutes): only `make lab` (NASTUI_LAB=1) collects it.
collect_ignore = [] if os.environ.get("NASTUI_LAB") == "1" else ["lab"]

# Screens show local time: pin the zone so snapshots match on every machine.
os.environ["TZ"] = "UTC"
time.tzset()


def require_tool(name: str, package: str) -> str:
    """The path of `name`, or skip (fail under NASTUI_REQUIRE_INTEGRATION=1) naming the package."""
    path = shutil.which(name)
    if path is None:
        message = (
            f"{name} not installed (Debian package {package}; `make test` installs it as root)"
        )
        if STRICT:
            pytest.fail(message)
        pytest.skip(message)
    return path


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, None]:
    outcome = yield
    report = outcome.get_result()
    if STRICT and report.skipped and not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.longrepr = (
            f"skipped under NASTUI_REQUIRE_INTEGRATION=1 (skipped is not passed): {reason}"
        )


@pytest.fixture(autouse=True)
def private_demo_state(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The demo keeps its acknowledgements per user ($XDG_STATE_HOME/nastui/demo/SCENARIO):
    give every test (and the commands it runs) its own, so an operator's demo acknowledgements
    never change a test's outcome. Tests that set NASTUI_STATE_DIR themselves are unaffected."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path_factory.mktemp("xdg-state")))
    monkeypatch.delenv("NASTUI_STATE_DIR", raising=False)


@pytest.fixture(autouse=True)
def no_stand_in_left() -> Generator[None, None, None]:
    """A session opened in-process under `--root` puts a stand-in in front of the runner for
    the process (`nastui.collectors.standin`): take it away after each test."""
    yield
    standin.use(None)


@pytest.fixture(autouse=True)
def nothing_frozen_left() -> Generator[None, None, None]:
    """`nastui.entry.main` freezes the code it loaded for the garbage collector (`gc.freeze`),
    as a process that ends with the command can: a test's process gives it back after each
    test, so the garbage of one test is not kept for the rest of the session."""
    yield
    gc.unfreeze()


@pytest.fixture
def nastui_cmd() -> list[str]:
    """The argv prefix that runs the installed CLI in a subprocess."""
    return [sys.executable, "-m", "nastui"]


@pytest.fixture
def fixtures() -> Path:
    """The directory of captured real outputs (see tests/fixtures/PROVENANCE.md)."""
    return FIXTURES
