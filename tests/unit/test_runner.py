"""The subprocess runner against real processes: slow, failing, noisy, hung, and worse."""

from __future__ import annotations

import asyncio
import gc
import os
import sys
import time
from pathlib import Path

import pytest

from nastui.collectors.runner import CommandResult, command_env, run, run_sync

PY = sys.executable


async def test_success_captures_stdout_and_stderr() -> None:
    result = await run(
        [PY, "-c", "import sys; print('out'); print('err', file=sys.stderr)"], timeout=10
    )
    assert result.ok
    assert result.returncode == 0
    assert result.stdout == "out\n"
    assert result.stderr == "err\n"
    assert result.argv[0] == PY
    assert result.duration > 0


async def test_nonzero_exit_is_data_not_an_exception() -> None:
    # smartctl's exit status is a bitmask: bit 2 (value 4) and bit 6 (64) are findings.
    result = await run([PY, "-c", "import sys; print('report'); sys.exit(4 | 64)"], timeout=10)
    assert result.returncode == 68
    assert not result.ok
    assert not result.timed_out
    assert result.stdout == "report\n"
    assert "exited 68" in result.describe()


async def test_slow_command_within_timeout_completes() -> None:
    result = await run([PY, "-c", "import time; time.sleep(0.3); print('done')"], timeout=10)
    assert result.ok
    assert result.stdout == "done\n"
    assert 0.3 <= result.duration < 5


async def test_hung_command_is_killed_at_timeout() -> None:
    started = time.monotonic()
    result = await run(
        [PY, "-c", "import time; print('start', flush=True); time.sleep(60)"], timeout=0.5
    )
    elapsed = time.monotonic() - started
    assert result.timed_out
    assert not result.ok
    # Killed by a signal: negative; asyncio reports 255 when the child was reaped elsewhere
    # first (seen once under load in CI): either way not a success.
    assert result.returncode != 0
    assert result.stdout == "start\n"  # what it wrote before hanging is kept
    assert 0.5 <= elapsed < 3
    assert "timed out" in result.describe()


async def test_timeout_kills_grandchildren_holding_the_pipe(tmp_path: Path) -> None:
    # A shell that starts a background sleeper which inherits stdout: without killing the
    # whole process group, reading stdout would wait for the sleeper.
    pidfile = tmp_path / "child.pid"
    script = f"sleep 60 & echo $! > {pidfile}; wait"
    started = time.monotonic()
    result = await run(["sh", "-c", script], timeout=0.5)
    assert result.timed_out
    assert time.monotonic() - started < 3
    child = int(pidfile.read_text())
    for _ in range(50):  # the group was SIGKILLed; give the kernel a moment to reap
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        await asyncio.sleep(0.05)
    else:
        pytest.fail(f"grandchild {child} survived the timeout")


async def test_ignored_sigterm_does_not_matter() -> None:
    code = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(60)"
    result = await run([PY, "-c", code], timeout=0.3)
    assert result.timed_out
    assert result.duration < 3


async def test_noisy_command_does_not_deadlock() -> None:
    # 8 MiB on stdout and 8 MiB on stderr at once: more than any pipe buffer.
    code = (
        "import sys\n"
        "chunk = 'x' * 1023 + '\\n'\n"
        "for _ in range(8192):\n"
        "    sys.stdout.write(chunk); sys.stderr.write(chunk)\n"
    )
    result = await run([PY, "-c", code], timeout=30)
    assert result.ok
    assert len(result.stdout) == 8 * 1024 * 1024
    assert len(result.stderr) == 8 * 1024 * 1024
    assert not result.truncated


async def test_output_beyond_the_cap_is_discarded_and_flagged() -> None:
    code = "import sys; sys.stdout.write('y' * 300000)"
    result = await run([PY, "-c", code], timeout=10, max_output=1000)
    assert result.ok
    assert result.stdout == "y" * 1000
    assert result.truncated


async def test_runs_in_the_c_locale() -> None:
    result = await run(["sh", "-c", 'echo "$LC_ALL/$LANG"'], timeout=10)
    assert result.stdout.strip() == "C/C"


async def test_extra_environment_and_stdin() -> None:
    result = await run(
        [PY, "-c", "import os, sys; print(os.environ['NASTUI_X'], sys.stdin.read())"],
        timeout=10,
        env={"NASTUI_X": "42"},
        stdin=b"fed",
    )
    assert result.stdout.strip() == "42 fed"


async def test_missing_program_is_a_result() -> None:
    result = await run(["nastui-no-such-tool-xyz", "--version"], timeout=5)
    assert result.returncode == 127
    assert result.not_found
    assert result.error is not None
    assert "nastui-no-such-tool-xyz not found" in result.describe()


async def test_non_executable_program_is_a_result(tmp_path: Path) -> None:
    script = tmp_path / "tool"
    script.write_text("#!/bin/sh\necho hi\n")
    script.chmod(0o644)
    result = await run([str(script)], timeout=5)
    assert result.returncode == 126
    assert result.error is not None and "not executable" in result.error


async def test_invalid_utf8_is_replaced_not_raised() -> None:
    result = await run(
        [PY, "-c", "import sys; sys.stdout.buffer.write(b'ok \\xff\\xfe')"], timeout=5
    )
    assert result.stdout.startswith("ok ")
    assert "\ufffd" in result.stdout


async def test_timeout_is_required_and_positive() -> None:
    with pytest.raises(ValueError, match="timeout"):
        await run(["true"], timeout=0)
    with pytest.raises(ValueError, match="argv"):
        await run([], timeout=1)


async def test_cancellation_kills_the_process(tmp_path: Path) -> None:
    marker = tmp_path / "pid"
    task = asyncio.ensure_future(
        run(["sh", "-c", f"echo $$ > {marker}; exec sleep 60"], timeout=30)
    )
    for _ in range(100):
        if marker.exists() and marker.read_text().strip():
            break
        await asyncio.sleep(0.02)
    pid = int(marker.read_text())
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    for _ in range(50):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        await asyncio.sleep(0.05)
    pytest.fail("the cancelled command is still running")


async def test_many_concurrent_commands() -> None:
    results = await asyncio.gather(*(run([PY, "-c", f"print({i})"], timeout=20) for i in range(16)))
    assert [r.stdout.strip() for r in results] == [str(i) for i in range(16)]


def test_run_sync_for_the_cli() -> None:
    result = run_sync(["sh", "-c", "echo sync; exit 3"], timeout=5)
    assert isinstance(result, CommandResult)
    assert result.returncode == 3
    assert result.stdout == "sync\n"


def test_command_env_overrides_locale(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LANG", "de_DE.UTF-8")
    monkeypatch.setenv("LANGUAGE", "de")
    env = command_env({"FOO": "bar"})
    assert env["LC_ALL"] == "C"
    assert env["LANG"] == "C"
    assert "LANGUAGE" not in env
    assert env["FOO"] == "bar"


async def test_a_tool_that_leaves_a_child_holding_its_output(tmp_path: Path) -> None:
    # Like `btrfs scrub start`: print, fork a worker that keeps stdout open, exit.
    pidfile = tmp_path / "worker.pid"
    script = f"echo started; sleep 30 & echo $! > {pidfile}; echo warn >&2; exit 3"
    started = time.monotonic()
    result = await run(["sh", "-c", script], timeout=10, leaves_child=True)
    assert time.monotonic() - started < 5  # not held up by the worker's open output
    assert (result.returncode, result.stdout, result.stderr) == (3, "started\n", "warn\n")
    worker = int(pidfile.read_text())
    os.kill(worker, 0)  # the worker is left running, as the tool intends
    os.kill(worker, 9)


async def test_cancelled_run_leaves_nothing_behind(recwarn: pytest.WarningsRecorder) -> None:
    task = asyncio.ensure_future(run(["sleep", "30"], timeout=30))
    await asyncio.sleep(0.2)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    gc.collect()
    assert not [w for w in recwarn if "unclosed" in str(w.message).lower()]
