"""The fan daemon's watchdogs: systemd's (sd_notify) and its own thread.

- `Notifier` speaks systemd's notify protocol on `$NOTIFY_SOCKET` (a datagram per message,
  "@" for the abstract namespace): READY=1 once the fans are taken, WATCHDOG=1 while the loop
  runs (at least twice per `$WATCHDOG_USEC`), STOPPING=1, STATUS=. With `WatchdogSec=` in the
  unit, a loop that stops pinging is killed by systemd and the unit's ExecStopPost sets full
  speed. Without `$NOTIFY_SOCKET` every call does nothing.
- `Watchdog` is a thread that needs no systemd: the loop beats after every period and while it
  waits; when no beat came for `limit` seconds (the loop is stuck in a call that never
  returns, or in a bug), it calls `on_stuck` from its own thread, which sets every fan to full
  speed and ends the process.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Callable, Mapping


class Notifier:
    """sd_notify: one datagram per message to `$NOTIFY_SOCKET`; silent when it is not set."""

    def __init__(self, env: Mapping[str, str]) -> None:
        """Read `$NOTIFY_SOCKET`, `$WATCHDOG_USEC` and `$WATCHDOG_PID` from `env`."""
        path = env.get("NOTIFY_SOCKET", "")
        self._address = "\0" + path[1:] if path.startswith("@") else path
        self.interval = _watchdog_seconds(env)
        self.trouble: str | None = None

    @property
    def active(self) -> bool:
        """Whether there is a socket to notify."""
        return bool(self._address)

    def send(self, *fields: str) -> None:
        """Send `fields` ("READY=1", ...) as one message; a failure is kept in `trouble`."""
        if not self._address:
            return
        message = "\n".join(fields).encode("utf-8", errors="replace")
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
                sock.sendto(message, self._address)
        except OSError as exc:
            self.trouble = f"cannot notify systemd at {self._address!r}: {exc.strerror or exc}"

    def ready(self, status: str) -> None:
        """The daemon has started and holds its fans."""
        self.send("READY=1", f"STATUS={status}")

    def ping(self) -> None:
        """The loop is alive."""
        if self.interval is not None:
            self.send("WATCHDOG=1")

    def status(self, status: str) -> None:
        """A one-line status for `systemctl status`."""
        self.send(f"STATUS={status}")

    def stopping(self) -> None:
        """The daemon is giving the fans back and ending."""
        self.send("STOPPING=1")


def _watchdog_seconds(env: Mapping[str, str]) -> float | None:
    """systemd's watchdog interval, when it is meant for this process."""
    usec, pid = env.get("WATCHDOG_USEC", ""), env.get("WATCHDOG_PID", "")
    if not usec.isdigit() or int(usec) == 0:
        return None
    if pid and pid != str(os.getpid()):
        return None
    return int(usec) / 1e6


class Watchdog:
    """A thread that calls `on_stuck(why)` when `beat()` has not been called for `limit` s."""

    def __init__(self, limit: float, on_stuck: Callable[[str], None]) -> None:
        """Set up; `start()` starts the thread."""
        self.limit = limit
        self._on_stuck = on_stuck
        self._last = time.monotonic()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="fand-watchdog", daemon=True)

    def start(self) -> None:
        """Start watching (the first beat is now)."""
        self._last = time.monotonic()
        self._thread.start()

    def beat(self) -> None:
        """The loop made progress."""
        self._last = time.monotonic()

    def stop(self) -> None:
        """Stop watching (the daemon is ending by itself)."""
        self._done.set()

    def _watch(self) -> None:
        tick = min(1.0, self.limit / 4)
        while not self._done.wait(tick):
            silent = time.monotonic() - self._last
            if silent > self.limit:
                self._on_stuck(f"control loop stuck for {silent:.0f} s (limit {self.limit:g} s)")
                return
