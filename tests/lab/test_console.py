"""Scenario 7: nastui's interface on a real serial line, the guest's second port (ttyS1).

The guest runs `nastui` on /dev/ttyS1 at 115200 baud with TERM=vt100 (stty rows 24 cols 80),
as on an IPMI serial-over-LAN console; the host reads QEMU's end of that port through pyte (a
VT100 emulator) and types: the dashboard, `b` for the bays, `L` to locate the selected bay
(the notice says how: ledctl where ledmon is installed, else the activity blink), `q` to quit.
Every byte nastui sent must be ASCII. Each screen is kept in the results directory (console-*.txt).
"""

from __future__ import annotations

import re
import select
import socket
import time
from collections.abc import Callable

import pyte
import pytest

from tests.lab.guest import Guest

pytestmark = [pytest.mark.integration, pytest.mark.full, pytest.mark.timeout(1800)]
START = """
stty -F /dev/ttyS1 115200 cs8 -parenb -cstopb rows 24 cols 80
export TERM=vt100
setsid -c -w bash -c 'nastui; echo $? >/lab/console.rc' </dev/ttyS1 >/dev/ttyS1 2>&1
"""


class Console:
    """QEMU's end of the guest's ttyS1, read into an 80x24 VT100 screen."""

    def __init__(self, lab: Guest) -> None:
        self.lab = lab
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(str(lab.run_dir / "ttyS1.sock"))
        self.screen = pyte.Screen(80, 24)
        self.stream = pyte.ByteStream(self.screen)
        self.received = bytearray()
        self.shots = 0

    def text(self) -> str:
        return "\n".join(self.screen.display)

    def pump(self, until: Callable[[str], bool], timeout: float, what: str) -> str:
        """Read until `until(screen text)` holds (and output has settled for a second)."""
        deadline = time.monotonic() + timeout
        quiet_since = time.monotonic()
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.sock], [], [], 0.5)
            if ready:
                chunk = self.sock.recv(65536)
                self.received += chunk
                self.stream.feed(chunk)
                quiet_since = time.monotonic()
            elif until(self.text()) and time.monotonic() - quiet_since > 1.0:
                return self.keep(what)
        self.keep(f"{what}-timeout")
        raise AssertionError(
            f"no {what} on the serial console within {timeout:.0f} s:\n{self.text()}"
        )

    def keep(self, what: str) -> str:
        self.shots += 1
        text = self.text()
        (self.lab.share / f"console-{self.shots}-{what}.txt").write_text(text + "\n")
        return text

    def type(self, keys: bytes) -> None:
        self.sock.sendall(keys)


def test_dashboard_bays_locate_quit_on_a_serial_line(lab: Guest) -> None:
    console = Console(lab)
    running = lab.spawn(START)
    dashboard = console.pump(lambda t: "nastui-lab" in t, 900, "dashboard")
    assert "nastui-lab" in dashboard
    console.type(b"b")
    bays = console.pump(lambda t: t != dashboard, 300, "bays")
    assert bays != dashboard
    console.type(b"L")  # the notice: "bay 1 sdg: locate on (...)" or why it could not
    said = re.compile(r"bay 1 \S+: (locate on|could not light)")
    located = console.pump(lambda t: bool(said.search(t)), 300, "locate")
    assert said.search(located), located
    console.type(b"q")
    done = lab.wait(running, timeout=300)
    assert done.rc == 0, done
    assert (lab.share / "console.rc").read_text().strip() == "0"
    wide = sorted({b for b in console.received if b > 0x7F})
    assert not wide, f"non-ASCII bytes on the serial line: {[hex(b) for b in wide][:20]}"
