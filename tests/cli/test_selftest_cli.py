"""`nastui selftest start|status|schedule` and the daemon's self-tests, as commands on
the demo (its state in a demo state directory of the test's own); the simulator's tests
progressing with simulated time."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

from nastui.model import Drive, DriveIdentity, PowerState, SelfTest
from nastui.selftest.logic.book import Run
from nastui.selftest.logic.plan import SelftestKind
from nastui.selftest.logic.text import StartOutcome
from nastui.sim.selftest import SHORT_S, SimTester


def nastui(state: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1", "NASTUI_STATE_DIR": str(state)}
    env.pop("NASTUI_CONFIG", None)
    return subprocess.run(
        [sys.executable, "-m", "nastui", *argv],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def test_schedule_start_status_on_the_demo(tmp_path: Path) -> None:
    plan = nastui(tmp_path, "selftest", "schedule", "--demo", "--json")
    assert plan.returncode == 0, plan.stderr
    drives = json.loads(plan.stdout)
    assert drives["schema"] >= 1
    rows = drives["drives"]
    assert rows and {"dev", "start_now", "reason", "short_due", "long_due"} <= set(rows[0])
    dev = rows[0]["dev"]

    started = nastui(tmp_path, "selftest", "start", dev, "--long", "--demo")
    assert started.returncode == 0, started.stderr
    assert f"{dev} " in started.stdout and "long self-test started" in started.stdout
    assert (tmp_path / "selftests.json").exists()

    status = nastui(tmp_path, "selftest", "status", "--demo", "--json")
    assert status.returncode == 0, status.stderr
    mine = next(d for d in json.loads(status.stdout)["drives"] if d["dev"] == dev)
    assert mine["running"]["kind"] == "long"
    assert 0 < mine["running"]["remaining_percent"] <= 100

    text = nastui(tmp_path, "selftest", "status", "--demo")
    assert f"{dev}" in text.stdout and "long test running" in text.stdout

    twice = nastui(tmp_path, "selftest", "start", dev, "--demo")
    assert twice.returncode == 69 and "long test running" in twice.stderr

    after = nastui(tmp_path, "selftest", "schedule", "--demo")
    line = next(ln for ln in after.stdout.splitlines() if ln.startswith(f"{dev} "))
    assert "a self-test is running" in line


def test_start_names_a_missing_drive(tmp_path: Path) -> None:
    result = nastui(tmp_path, "selftest", "start", "sdzz", "--demo")
    assert result.returncode == 64
    assert "no drive 'sdzz'" in result.stderr and "Traceback" not in result.stderr


def test_the_demo_daemon_starts_a_due_test_and_records_it(tmp_path: Path) -> None:
    result = nastui(tmp_path, "daemon", "--demo", "--once", "--no-notify")
    assert result.returncode == 0, result.stderr
    assert "self-test started" in result.stdout + result.stderr
    book = json.loads((tmp_path / "selftests.json").read_text())
    assert any(page["running"] for page in book["drives"].values())
    log = nastui(tmp_path, "alert", "log")
    assert "self-test started" in log.stdout


def drive(power: PowerState = PowerState.ACTIVE, failed: bool = False) -> Drive:
    tests = (SelfTest("Extended offline", "Completed: read failure", False, 10),) if failed else ()
    return Drive("sda", DriveIdentity(serial="S", rotational=True), power=power, self_tests=tests)


def test_a_simulated_test_progresses_with_simulated_time() -> None:
    tester = SimTester()
    asleep = asyncio.run(tester.start(drive(PowerState.STANDBY), SelftestKind.SHORT))
    assert asleep.outcome is StartOutcome.ASLEEP
    run = Run(SelftestKind.SHORT, 1000.0)
    early = asyncio.run(tester.progress(drive(), run, 1000.0 + SHORT_S * 0.3))
    assert early.running and early.remaining_percent == 70
    done = asyncio.run(tester.progress(drive(), run, 1000.0 + SHORT_S))
    assert done.running is False and done.line == "Completed without error"
    failed = asyncio.run(tester.progress(drive(failed=True), run, 1000.0 + SHORT_S))
    assert failed.line == "Completed: read failure"
