"""`QuietLinuxDriver`: the input thread sleeps until there is input, a pending escape sequence
times out, or the app stops; keys, a lone Escape and quitting work as with Textual's driver."""

from __future__ import annotations

import contextlib
import os
import pty
import select
import struct
import sys
import termios
import time
from fcntl import ioctl
from pathlib import Path

import pytest
from textual import constants
from textual._xterm_parser import XTermParser

from nastui.ui.quietinput import FALLBACK_TICK_S, WakingEvent, next_wait
from tests.conftest import REPO


def test_an_idle_parser_waits_for_input() -> None:
    assert next_wait(XTermParser()) is None


def test_a_pending_escape_waits_until_its_timeout() -> None:
    parser = XTermParser()
    list(parser.feed("\x1b"))
    wait = next_wait(parser)
    assert wait is not None and 0.0 <= wait <= constants.ESCAPE_DELAY


def test_a_parser_without_a_known_deadline_falls_back_to_polling() -> None:
    class Other:
        pass

    assert next_wait(Other()) == FALLBACK_TICK_S  # type: ignore[arg-type]


def test_setting_the_event_wakes_the_pipe_and_a_detached_one_writes_nothing() -> None:
    read, write = os.pipe2(os.O_NONBLOCK)
    try:
        event = WakingEvent(write)
        event.set()
        assert event.is_set() and os.read(read, 16) == b"x"
        event.clear()
        event.detach()
        event.set()
        with pytest.raises(BlockingIOError):
            os.read(read, 16)
    finally:
        os.close(read)
        os.close(write)


def _read_until(fd: int, log: Path, line: str, timeout: float = 10.0) -> list[str]:
    """Drain the pty until `log` has a line starting with `line`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if select.select([fd], [], [], 0.05)[0]:
            with contextlib.suppress(OSError):
                os.read(fd, 65536)
        lines = log.read_text().splitlines() if log.exists() else []
        if any(x.split()[0] == line for x in lines):
            return lines
    pytest.fail(f"the app never got {line!r}; its log: {log.read_text() if log.exists() else ''}")


def test_keys_a_lone_escape_and_quit_in_a_real_terminal_without_polling(tmp_path: Path) -> None:
    log = tmp_path / "keys.log"
    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover - the child
        os.chdir(REPO)
        env = {**os.environ, "TERM": "vt100", "PYTHONPATH": str(REPO)}
        os.execvpe(sys.executable, [sys.executable, "-m", "tests.ui.quietchild", str(log)], env)
    ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    try:
        os.write(fd, b"a")
        _read_until(fd, log, "a")
        time.sleep(1.5)  # idle: Textual's own driver would wake 15 times here
        os.write(fd, b"\x1b")  # a lone Escape is the Escape key once its wait times out
        lines = _read_until(fd, log, "escape")
        before, after = (int(x.split()[1]) for x in lines[:2])
        assert after - before <= 3, lines  # the key's wake, the timeout's wake; no polling
        os.write(fd, b"z")  # suspended and resumed: the input thread runs again
        _read_until(fd, log, "z")
        time.sleep(0.3)
        os.write(fd, b"b")
        _read_until(fd, log, "b")
        os.write(fd, b"q")
        _read_until(fd, log, "q")
        deadline = time.monotonic() + 5
        while os.waitpid(pid, os.WNOHANG)[0] == 0:
            assert time.monotonic() < deadline, "the app did not stop after q"
            with contextlib.suppress(OSError):
                if select.select([fd], [], [], 0.05)[0]:
                    os.read(fd, 65536)
        pid = 0
    finally:
        if pid:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        os.close(fd)


@pytest.mark.parametrize("ascii_only", [False, True])
def test_the_interface_runs_on_the_quiet_driver(ascii_only: bool) -> None:
    from nastui.ui.quietinput import QuietLinuxDriver
    from tests.ui.helpers import demo_app

    assert issubclass(demo_app(ascii_only=ascii_only).driver_class, QuietLinuxDriver)
