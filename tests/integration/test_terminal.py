"""End to end in real terminals: `nastui --demo` inside tmux at 80x24 as a serial console would
see it (TERM=vt100, TERM=linux), driven by keys; and in a raw pseudo-terminal, where every byte
the program writes is checked."""

from __future__ import annotations

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
        for key in keys:
            self._run("send-keys", key)
            time.sleep(0.15)

    def wait_for(self, needle: str, timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.capture()
            if needle in screen:
                return screen
            time.sleep(0.2)
        pytest.fail(f"{needle!r} never appeared on screen:\n{screen}")

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
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and "Bay marks" in console.capture():
        time.sleep(0.2)
    assert "Bay marks" not in console.capture()


def _pty_run(
    argv: list[str], env: dict[str, str], seconds: float, until: bytes | None = None
) -> bytes:
    """Run `argv` in an 80x24 pty, send q, return everything it wrote: q after `seconds`, or,
    with `until`, once those bytes were written and `seconds` more passed (60 s at most: a
    loaded machine or a slower Python may take longer than `seconds` to draw anything)."""
    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover - the child
        os.execve(argv[0], argv, env)
    ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    output = bytearray()
    deadline = time.monotonic() + (seconds if until is None else 60.0)
    sent_quit = False
    while True:
        now = time.monotonic()
        if until is not None and until in output and not sent_quit:
            deadline, until = min(deadline, now + seconds), None
        if now > deadline and not sent_quit:
            os.write(fd, b"q")
            sent_quit = True
            deadline = now + 5
        elif now > deadline:
            os.kill(pid, signal.SIGKILL)
            break
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            output += chunk
    os.waitpid(pid, 0)
    return bytes(output)


@pytest.mark.parametrize("term", ["vt100", "vt220", "linux"])
def test_every_byte_written_is_ascii_on_a_console(term: str) -> None:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.environ.get("HOME", "/root"),
        "TERM": term,
        "LANG": "C.UTF-8",
        "NASTUI_CONFIG": "/nonexistent",
    }
    output = _pty_run(
        [sys.executable, "-m", "nastui", "--scenario", "hot-bay"], env, 1.0, until=b"fan-wall-2"
    )
    assert b"fan-wall-2" in output
    bad = sorted({b for b in output if b >= 0x80})
    assert not bad, f"non-ASCII bytes {bad[:10]} in {len(output)} bytes written"


def test_ascii_flag_forces_ascii_in_a_utf8_terminal() -> None:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.environ.get("HOME", "/root"),
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "NASTUI_CONFIG": "/nonexistent",
    }
    unicode = _pty_run([sys.executable, "-m", "nastui", "--demo"], env, 1.0, until=b"storage")
    assert any(b >= 0x80 for b in unicode)  # box drawing and degree signs by default
    forced = _pty_run(
        [sys.executable, "-m", "nastui", "--demo", "--ascii"], env, 1.0, until=b"storage"
    )
    assert b"storage" in forced
    assert all(b < 0x80 for b in forced)
