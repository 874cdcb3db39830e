"""End to end in real terminals: `nastui --demo` inside tmux at 80x24 as a serial console would
see it (TERM=vt100, TERM=linux), driven by keys; and in a raw pseudo-terminal, where every byte
the program writes is checked."""

from __future__ import annotations

import contextlib
import os
import pty
import select
import signal
import struct
import subprocess
import sys
import termios
import time
import uuid
from collections.abc import Iterator
from fcntl import ioctl

import pytest

from tests.conftest import REPO, require_tool
from tests.waiting import DEADLINE_S, wait_for

pytestmark = pytest.mark.integration

# The source NAS's lsidrivemap table, row by row.
DEVICES = " ".join(
    (
        "sdr sds sdt sdq",
        "sdu sdv sdx sdw",
        "sdi sdl sdp sdm",
        "sdj sdk sdn sdo",
        "sdb sdc sde sdf",
        "sda sdd sdh sdg",
    )
)


class Tmux:
    """One tmux server of our own with one 80x24 pane running a command."""

    def __init__(self, command: str, term: str) -> None:
        self.binary = require_tool("tmux", "tmux")
        self.socket = f"nastui-test-{uuid.uuid4().hex[:8]}"
        env = f"env TERM={term} LANG=C.UTF-8 NASTUI_CONFIG=/nonexistent"
        self._run("new-session", "-d", "-x", "80", "-y", "24", f"{env} {command}; sleep 5")
        # Deliver Esc at once instead of holding it 500 ms to merge with the next key as Meta.
        self._run("set-option", "-s", "escape-time", "0")

    def _run(self, *args: str) -> str:
        result = subprocess.run(
            [self.binary, "-L", self.socket, *args],
            capture_output=True,
            text=True,
            check=False,
            cwd=REPO,
            timeout=20,
        )
        return result.stdout

    def capture(self) -> str:
        return self._run("capture-pane", "-p")

    def keys(self, *keys: str) -> None:
        """Typed one at a time (Escape and p sent together would read as Alt+p)."""
        for key in keys:
            self._run("send-keys", key)
            time.sleep(0.15)

    def wait_for(self, needle: str, timeout: float = DEADLINE_S) -> str:
        """The screen once `needle` is on it."""
        screen = [""]

        def shows() -> bool:
            screen[0] = self.capture()
            return needle in screen[0]

        wait_for(
            shows, timeout=timeout, step=0.2, what=f"{needle!r} on screen", shown=lambda: screen[0]
        )
        return screen[0]

    def close(self) -> None:
        self._run("kill-server")


@pytest.fixture(params=["vt100", "linux"])
def console(request: pytest.FixtureRequest) -> Iterator[Tmux]:
    tmux = Tmux(f"{sys.executable} -m nastui --demo", request.param)
    try:
        yield tmux
    finally:
        tmux.close()


def test_serial_console_session(console: Tmux) -> None:
    screen = console.wait_for("dashboard")
    assert screen.isascii(), [c for c in screen if not c.isascii()]
    lines = screen.splitlines()
    assert len(lines) <= 24 and all(len(line) <= 80 for line in lines)
    assert "nano" in lines[0] and "OK" in lines[0]
    for dev in DEVICES.split():
        assert dev in screen, dev
    for bay in range(24):
        assert f"{bay:>2} sd" in screen, bay  # "+ 0 sdr", "+23 sdg": mark, number, device
    assert "[+ 0 sdr" in screen  # the selected bay is bracketed: visible without attributes
    assert "bays: device----" in screen  # panel rules drawn with ASCII dashes

    console.keys("v")
    screen = console.wait_for("bays: temperature")
    assert screen.isascii()

    console.keys("b", "j", "l")
    screen = console.wait_for("bay 5:")
    assert "[+ 5 " in screen

    console.keys("Enter")
    screen = console.wait_for("(bay 5, storage/raidz3-0)")
    assert "SMART" in screen or "ATTRIBUTE" in screen
    assert screen.isascii()

    console.keys("Escape", "p")
    screen = console.wait_for("READ WRITE CKSUM")
    assert "raidz3-0" in screen
    assert screen.isascii()

    console.keys("?")
    screen = console.wait_for("Screens")
    assert screen.isascii()
    console.keys("End")  # the key map is longer than 24 lines: the marks are at its end
    screen = console.wait_for("Bay marks")
    assert screen.isascii()

    console.keys("q")
    wait_for(lambda: "Bay marks" not in console.capture(), what="the help closed by q")


class Pty:
    """`argv` in an 80x24 pseudo-terminal of its own, and every byte it has written so far."""

    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # pragma: no cover - the child
            os.execve(argv[0], argv, env)
        ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        self.output = bytearray()
        self.last_byte = time.monotonic()
        self.open = True

    def pump(self) -> None:
        """Take what it wrote in the next 0.1 s."""
        if self.open and select.select([self.fd], [], [], 0.1)[0]:
            try:
                chunk = os.read(self.fd, 65536)
            except OSError:  # EIO: the child is gone and the pty closed
                chunk = b""
            self.open = bool(chunk)
            self.output += chunk
            self.last_byte = time.monotonic() if chunk else self.last_byte

    def drawn(self, needle: bytes, quiet: float = 0.5) -> bool:
        """`needle` was written and nothing since for `quiet` s: the frame is complete."""
        self.pump()
        return needle in self.output and time.monotonic() - self.last_byte >= quiet

    def ended(self) -> bool:
        self.pump()
        return not self.open

    def close(self) -> None:
        if not self.open:
            os.waitpid(self.pid, 0)
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)


def _pty_run(argv: list[str], env: dict[str, str], until: bytes) -> bytes:
    """Everything `argv` writes in an 80x24 pty: once it has drawn `until` (and its frame is
    complete) it is sent q, and read until it exits."""
    term = Pty(argv, env)
    try:
        wait_for(lambda: term.drawn(until), what=f"{until!r} drawn", shown=lambda: term.output)
        os.write(term.fd, b"q")
        wait_for(term.ended, what="the exit after q", shown=lambda: term.output[-500:])
    finally:
        term.close()
    return bytes(term.output)


def pty_env(term: str) -> dict[str, str]:
    """A clean environment for the pty: no configuration, the tree under test first."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.environ.get("HOME", "/root"),
        "TERM": term,
        "LANG": "C.UTF-8",
        "NASTUI_CONFIG": "/nonexistent",
    }
    return {**env, "PYTHONPATH": os.environ["PYTHONPATH"]} if "PYTHONPATH" in os.environ else env


@pytest.mark.parametrize("term", ["vt100", "vt220", "linux"])
def test_every_byte_written_is_ascii_on_a_console(term: str) -> None:
    argv = [sys.executable, "-m", "nastui", "--scenario", "hot-bay"]
    output = _pty_run(argv, pty_env(term), until=b"fan-wall-2")
    assert b"fan-wall-2" in output
    bad = sorted({b for b in output if b >= 0x80})
    assert not bad, f"non-ASCII bytes {bad[:10]} in {len(output)} bytes written"


def test_ascii_flag_forces_ascii_in_a_utf8_terminal() -> None:
    env = pty_env("xterm-256color")
    unicode = _pty_run([sys.executable, "-m", "nastui", "--demo"], env, until=b"storage")
    assert any(b >= 0x80 for b in unicode)  # box drawing and degree signs by default
    forced = _pty_run([sys.executable, "-m", "nastui", "--demo", "--ascii"], env, until=b"storage")
    assert b"storage" in forced
    assert all(b < 0x80 for b in forced)
