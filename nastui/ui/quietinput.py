"""`QuietLinuxDriver`: Textual's Linux driver with an input thread that sleeps until there is
something to do.

Textual's input thread wakes ten times a second (a 0.1 s `select`) to see whether the app is
stopping and whether a lone Escape has waited long enough to be the Escape key. Measured at
80x24, those wakes are most of an idle interface's CPU (0.2 % of a core for an empty Textual
app; nastui's whole budget on a console is 0.5 %). Here the thread waits on the terminal and
a wake pipe with no timeout, or exactly until the parser's pending Escape times out; stopping
the driver writes to the pipe, so quitting is as quick as before.

The parser's deadline is a private attribute of Textual's `Parser` (8.2, where nastui is
pinned, see `redraw`); if a later Textual renames it, the thread falls back to Textual's own
0.1 s polling rather than missing a timeout.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import threading
import weakref
from codecs import getincrementaldecoder
from typing import Any

from textual._time import get_time
from textual._xterm_parser import XTermParser
from textual.drivers.linux_driver import LinuxDriver

FALLBACK_TICK_S = 0.1  # Textual's own polling period, if the parser's deadline cannot be read
_UNKNOWN = object()


class WakingEvent(threading.Event):
    """A `threading.Event` that also writes a byte to a pipe when set, to wake a `select`."""

    def __init__(self, wake_fd: int) -> None:
        super().__init__()
        self._wake_fd = wake_fd

    def set(self) -> None:
        """Set the event and wake whoever waits on the pipe."""
        super().set()
        if self._wake_fd >= 0:
            with contextlib.suppress(OSError):  # a full pipe is awake already
                os.write(self._wake_fd, b"x")

    def detach(self) -> None:
        """Stop writing to the pipe (it is about to be closed, and its number reused)."""
        self._wake_fd = -1


def next_wait(parser: XTermParser) -> float | None:
    """Seconds the input thread may sleep: None (until input) unless the parser waits for the
    rest of an escape sequence, then until that wait times out."""
    deadline = getattr(parser, "_timeout_time", _UNKNOWN)
    if deadline is _UNKNOWN or not (deadline is None or isinstance(deadline, float | int)):
        return FALLBACK_TICK_S
    return None if deadline is None else max(0.0, deadline - get_time())


def _close_pipe(waking: WakingEvent, *fds: int) -> None:
    """Stop `waking` writing, then close the pipe (its numbers may be reused at once)."""
    waking.detach()
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)


class QuietLinuxDriver(LinuxDriver):
    """Textual's Linux driver, whose input thread sleeps until input, a timeout, or a stop."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._wake_read, self._wake_write = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        self._waking = WakingEvent(self._wake_write)
        self.exit_event = self._waking
        # The pipe lives as long as the driver: a suspend (Ctrl+Z, SIGTSTP) closes the driver
        # and a resume starts its input thread again on the same pipe.
        weakref.finalize(self, _close_pipe, self._waking, self._wake_read, self._wake_write)

    def run_input_thread(self) -> None:
        """Read the terminal and pass what the parser makes of it to the app, until stopped."""
        parser = XTermParser(self._debug)
        decode = getincrementaldecoder("utf-8")().decode
        with selectors.SelectSelector() as selector:
            selector.register(self.fileno, selectors.EVENT_READ)
            selector.register(self._wake_read, selectors.EVENT_READ)
            try:
                while not self.exit_event.is_set():
                    ready = selector.select(next_wait(parser))
                    self._take_input(parser, decode, ready)
                self._take_input(parser, decode, selector.select(0), final=True)
            finally:
                with contextlib.suppress(Exception):
                    for _ in parser.feed(""):
                        pass

    def _take_input(
        self,
        parser: XTermParser,
        decode: Any,
        ready: list[tuple[selectors.SelectorKey, int]],
        final: bool = False,
    ) -> None:
        """Feed what is ready on the terminal to the parser (and empty the wake pipe), then
        let the parser time out a pending escape sequence."""
        for key, _mask in ready:
            if key.fd == self._wake_read:
                with contextlib.suppress(OSError):
                    os.read(self._wake_read, 512)
                continue
            data = decode(os.read(self.fileno, 4096), final=final)
            for event in parser.feed(data) if data else ():
                self.process_message(event)
        for event in parser.tick():
            self.process_message(event)
