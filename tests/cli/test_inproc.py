"""The CLI tests' in-process runs (tests/inproc.py) answer what a child answers, and leave this
process as they found it; and the few things only a real process shows: the console script,
an exit code through the interpreter, Ctrl-C."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from nastui.collectors import standin
from tests.conftest import FIXTURES, REPO, STRICT
from tests.inproc import NASTUI, REAL_RUN, nastui_argv, run_nastui
from tests.waiting import wait_for

REPORT = FIXTURES / "smartctl/linuxhw_enterprise/HDD__HGST__HUS726040ALE614__73832C26B317.txt"
SAME_ANSWERS = (
    ["--version"],
    ["bays", "--scenario", "mixed", "--view", "health"],
    ["bays", "--view", "sideways"],  # argparse's usage error: SystemExit(64)
    ["status", "--bogus"],  # a plugin's usage error: UNKNOWN
    ["--config", "/nonexistent/config.toml", "bays"],
    ["--ascii", "--demo", "config", "check", "config.example.toml"],
    ["smart", "explain", str(REPORT)],
)


def child_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "NASTUI_CONFIG"}
    return {**env, "NO_COLOR": "1", "NASTUI_STATE_DIR": str(tmp_path)}


@pytest.mark.subprocess
@pytest.mark.parametrize("argv", SAME_ANSWERS, ids=" ".join)
def test_in_process_answers_as_a_child_does(argv: list[str], tmp_path: Path) -> None:
    env = child_env(tmp_path)
    child = REAL_RUN(
        [*NASTUI, *argv], capture_output=True, text=True, env=env, cwd=REPO, timeout=120
    )
    here = run_nastui(argv, env=env, cwd=REPO)
    assert (here.returncode, here.stdout, here.stderr) == (
        child.returncode,
        child.stdout,
        child.stderr,
    )


def process_state() -> tuple[object, ...]:
    root = logging.getLogger()
    here = (dict(os.environ), Path.cwd(), time.timezone, list(root.handlers), root.level)
    return (*here, signal.getsignal(signal.SIGTERM), standin.current())


def test_in_process_leaves_the_process_as_it_found_it(tmp_path: Path) -> None:
    """`--root` installs the runner's stand-in, `--debug` a log handler; the run's environment,
    working directory and time zone are its own."""
    (tmp_path / "root").mkdir()
    before = process_state()
    env = {**child_env(tmp_path), "TZ": "Asia/Tokyo", "ONLY_HERE": "1"}
    done = run_nastui(["--root", "root", "--debug", "status"], env=env, cwd=tmp_path)
    assert done.returncode in (0, 1, 2, 3), done.stderr
    assert done.stdout.startswith("NASTUI ")
    assert process_state() == before


def test_stdin_and_bytes() -> None:
    text = REPORT.read_text(errors="replace")
    done = run_nastui(["smart", "explain", "-"], input=text, text=False)
    assert done.returncode in (0, 1, 2), done.stderr
    assert isinstance(done.stdout, bytes) and done.stdout


def test_only_a_python_m_nastui_line_is_taken() -> None:
    assert nastui_argv([*NASTUI, "bays"]) == ["bays"]
    assert nastui_argv([sys.executable, "-c", "pass"]) is None
    assert nastui_argv("python -m nastui bays") is None


def console_script() -> Path:
    script = Path(sys.executable).with_name("nastui")
    if not script.exists():
        message = f"no console script at {script} (`make venv` installs it)"
        if STRICT:
            pytest.fail(message)
        pytest.skip(message)
    return script


@pytest.mark.subprocess
def test_the_console_script_and_its_exit_codes(tmp_path: Path) -> None:
    script = str(console_script())
    env = child_env(tmp_path)

    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [script, *argv], capture_output=True, text=True, env=env, timeout=120, check=False
        )

    version = run("--version")
    assert version.returncode == 0 and version.stdout.startswith("nastui "), version.stderr
    hot = run("status", "--scenario", "hot-bay")
    assert hot.returncode == 2 and hot.stdout.startswith("NASTUI CRITICAL"), hot.stderr
    usage = run("bays", "--bogus")
    assert usage.returncode == 64 and "Traceback" not in usage.stderr


@pytest.mark.subprocess
def test_ctrl_c_while_waiting_for_a_scrub(tmp_path: Path) -> None:
    argv = [*NASTUI, "scrub", "start", "storage", "--demo", "--wait", "--interval", "0.5"]
    log = tmp_path / "out"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            argv, stdout=out, stderr=subprocess.PIPE, env=child_env(tmp_path), cwd=REPO
        )
    try:
        wait_for(lambda: "scrub storage " in log.read_text(), what="the progress line")
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert err.decode() == "nastui: stopped waiting; the scrub of storage goes on\n"
