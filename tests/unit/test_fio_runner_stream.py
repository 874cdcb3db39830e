"""`runner.stream` against real processes: lines as they come (\\n, \\r), stop = SIGINT then
SIGKILL, timeouts, cancellation killing the whole group, and the parent-death signal: a program
started by nastui dies when nastui does."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from nastui.collectors import runner
from nastui.collectors.runner import stream

PY = sys.executable


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is dead for our purposes
        state = Path(f"/proc/{pid}/stat").read_text().split()[2]
    except OSError:
        return False
    return state != "Z"


async def test_lines_arrive_while_the_program_runs() -> None:
    arrivals: list[tuple[float, str]] = []
    started = time.monotonic()
    code = "import time\nfor i in range(3):\n    print(i, flush=True); time.sleep(0.3)\n"
    result = await stream(
        [PY, "-c", code],
        timeout=10,
        on_stdout=lambda line: arrivals.append((time.monotonic() - started, line)),
    )
    assert result.ok
    assert [line for _, line in arrivals] == ["0", "1", "2"]
    assert arrivals[0][0] < result.duration - 0.4  # the first line came long before the end
    assert result.stdout == ""  # handed over, not collected


async def test_carriage_returns_end_lines_and_unhandled_streams_are_collected() -> None:
    err: list[str] = []
    code = "import sys\nsys.stderr.write('a\\rb\\r\\nc'); print('out')\n"
    result = await stream([PY, "-c", code], timeout=10, on_stderr=err.append)
    assert err == ["a", "b", "c"]
    assert result.stdout == "out\n"


async def test_stop_sends_sigint_and_keeps_the_final_output() -> None:
    code = textwrap.dedent(
        """
        import os, signal, time
        def final(*_):  # os.write: a print here could meet the main code's print mid-flush
            os.write(1, b"final result\\n")
            os._exit(0)
        signal.signal(signal.SIGINT, final)
        os.write(1, b"ready\\n")
        time.sleep(30)
        """
    )
    stop = asyncio.Event()
    lines: list[str] = []

    def on_line(line: str) -> None:
        lines.append(line)
        if line == "ready":
            stop.set()

    result = await stream([PY, "-c", code], timeout=20, on_stdout=on_line, stop=stop)
    assert lines == ["ready", "final result"]
    assert result.returncode == 0 and result.duration < 10


async def test_stop_kills_a_program_that_ignores_sigint() -> None:
    code = (
        "import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\n"
        "print('x', flush=True)\ntime.sleep(30)\n"
    )
    stop = asyncio.Event()
    result = await stream(
        [PY, "-c", code], timeout=20, on_stdout=lambda _: stop.set(), stop=stop, stop_grace=0.3
    )
    assert result.returncode == -signal.SIGKILL
    assert result.duration < 5


async def test_timeout_kills_and_says_so() -> None:
    result = await stream([PY, "-c", "import time; time.sleep(30)"], timeout=0.3)
    assert result.timed_out and not result.ok


async def test_missing_program_is_a_result() -> None:
    result = await stream(["nastui-no-such-program"], timeout=5)
    assert result.not_found and result.returncode == 127


async def test_cancel_kills_the_whole_group() -> None:
    pids: list[int] = []
    code = textwrap.dedent(
        """
        import subprocess, sys, time
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        print(child.pid, flush=True)
        time.sleep(60)
        """
    )
    task = asyncio.ensure_future(
        stream([PY, "-c", code], timeout=30, on_stdout=lambda line: pids.append(int(line)))
    )
    for _ in range(100):
        if pids:
            break
        await asyncio.sleep(0.05)
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    for _ in range(40):
        if not alive(pids[0]):
            break
        await asyncio.sleep(0.05)
    assert not alive(pids[0])


def test_the_program_dies_with_nastui(tmp_path: Path) -> None:
    """A parent that starts a program through `stream` and then vanishes (no cleanup at all):
    the program, in its own session, still gets SIGKILL from the kernel."""
    pid_file = tmp_path / "child.pid"
    parent = textwrap.dedent(
        f"""
        import asyncio, os, sys
        from nastui.collectors.runner import stream
        def got(line):
            open({str(pid_file)!r}, "w").write(line)
            os._exit(0)  # the parent dies abruptly, mid-run
        asyncio.run(stream([sys.executable, "-c",
            "import os, time; print(os.getpid(), flush=True); time.sleep(60)"],
            timeout=60, on_stdout=got))
        """
    )
    done = subprocess.run([PY, "-c", parent], timeout=30, check=False)
    assert done.returncode == 0
    child = int(pid_file.read_text())
    for _ in range(60):
        if not alive(child):
            break
        time.sleep(0.05)
    assert not alive(child)


async def test_a_killed_program_is_reaped_by_asyncio_alone() -> None:
    """`Popen.send_signal` polls before it signals, and that `waitpid` could reap the child
    before asyncio's watcher did: the watcher then said exit 255 instead of -9 (1 run in 40).
    The group is killed with `killpg` only, never through the `Process` object."""

    class Watched:
        def __init__(self, real: asyncio.subprocess.Process) -> None:
            self.pid = real.pid

        def kill(self) -> None:
            raise AssertionError("proc.kill() polls the child: it must not be called")

    proc = await asyncio.create_subprocess_exec(
        PY, "-c", "import time; time.sleep(30)", start_new_session=True
    )
    runner._kill_group(Watched(proc))  # type: ignore[arg-type]
    assert await asyncio.wait_for(proc.wait(), 10) == -signal.SIGKILL
