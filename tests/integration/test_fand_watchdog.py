"""The fan daemon's watchdogs, with `nastui fand` as a real process: systemd's notify protocol
received on a real AF_UNIX datagram socket given as NOTIFY_SOCKET (READY once the fans are
taken, WATCHDOG pings while the loop runs, STOPPING on the way out), and the internal watchdog
ending a deliberately stuck loop (`tests/stuckfand.py`) at full speed."""

from __future__ import annotations

import signal
import socket
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fandbox import CONFIG, ORIGINAL, Box, fand_argv, in_control, make_box, running, wait_for

pytestmark = pytest.mark.integration

QUICK = CONFIG + "\n[poll]\ncommand_timeout = 1\n"  # stuck after 2 x 0.5 + 1.5 = 2.5 s
WATCHDOG_USEC = "2000000"


@pytest.fixture
def box(tmp_path: Path) -> Box:
    return make_box(tmp_path, QUICK)


class Systemd:
    """The manager's end of NOTIFY_SOCKET: every datagram received, in order."""

    def __init__(self, sock: socket.socket, address: str) -> None:
        self.sock = sock
        self.address = address
        self.messages: list[str] = []

    def receive(self) -> None:
        """Whatever has arrived so far."""
        while True:
            try:
                self.messages.append(self.sock.recv(4096).decode())
            except BlockingIOError:
                return

    def got(self, field: str) -> bool:
        self.receive()
        return any(field in m.split("\n") for m in self.messages)

    def count(self, field: str) -> int:
        self.receive()
        return sum(field in m.split("\n") for m in self.messages)


@pytest.fixture(params=["path", "abstract"])
def systemd(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Systemd]:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    if request.param == "path":
        address = str(tmp_path / "notify.sock")
        sock.bind(address)
    else:
        name = f"nastui-test-{tmp_path.name}-{time.monotonic_ns()}"
        sock.bind("\0" + name)
        address = "@" + name
    sock.setblocking(False)
    try:
        yield Systemd(sock, address)
    finally:
        sock.close()


def test_sd_notify_ready_watchdog_and_stopping(box: Box, systemd: Systemd) -> None:
    env = {"NOTIFY_SOCKET": systemd.address, "WATCHDOG_USEC": WATCHDOG_USEC}
    with running(box, fand_argv(box, "--period", "5"), env) as daemon:
        wait_for(lambda: systemd.got("READY=1"))
        assert in_control(box)  # READY only once the fans are taken
        first = next(m for m in systemd.messages if "READY=1" in m)
        assert "STATUS=driving 1 fans every 5 s" in first.split("\n")
        # a 5 s period, a 2 s watchdog: the loop pings while it waits
        wait_for(lambda: systemd.count("WATCHDOG=1") >= 3)
        daemon.send_signal(signal.SIGTERM)
        assert daemon.wait(timeout=10) == 0
    assert systemd.got("STOPPING=1")
    assert systemd.count("READY=1") == 1
    assert box.state() == ORIGINAL


def test_a_stuck_loop_ends_at_full_speed(box: Box, systemd: Systemd, tmp_path: Path) -> None:
    stick = tmp_path / "stick"
    argv = [sys.executable, "-m", "tests.stuckfand", str(stick), *fand_argv(box)[3:]]
    env = {"NOTIFY_SOCKET": systemd.address, "WATCHDOG_USEC": WATCHDOG_USEC}
    with running(box, [*argv, "--period", "0.5"], env) as daemon:
        wait_for(lambda: in_control(box) and systemd.got("WATCHDOG=1"))
        stick.touch()  # the next step never returns
        assert daemon.wait(timeout=30) == 70
    assert box.state() == ("1", "255")
    text = box.text()
    assert "watchdog: control loop stuck for " in text
    assert "(limit 2.5 s); setting every fan to full speed and exiting" in text
    assert "hwmon nct6779 pwm2: full speed [" in text
    assert text.endswith("fand: stopped by the watchdog (exit 70)\n")
    systemd.receive()
    assert any(m.startswith("STATUS=watchdog: control loop stuck") for m in systemd.messages)


def test_sigterm_to_a_stuck_loop_still_ends_at_full_speed(box: Box, tmp_path: Path) -> None:
    stick = tmp_path / "stick"
    argv = [sys.executable, "-m", "tests.stuckfand", str(stick), *fand_argv(box)[3:]]
    with running(box, [*argv, "--period", "0.5"]) as daemon:
        wait_for(lambda: in_control(box))
        stick.touch()
        wait_for(stick.with_suffix(".stuck").exists)  # the loop is stuck now
        daemon.send_signal(signal.SIGTERM)  # the loop cannot handle it: the watchdog does
        assert daemon.wait(timeout=30) == 70
    assert box.state() == ("1", "255")
