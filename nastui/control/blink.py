"""The last rung of the locate ladder: blink a drive's activity LED by reading from it.

A bounded read loop on that one drive: opened read-only (`O_RDONLY`, never for writing), read
in bursts of `on_s` seconds with `off_s` pauses, at offsets spread over the whole disk and past
the page cache (`O_DIRECT` where the device allows it, else dropping the pages after each read),
so the reads reach the disk and its LED flickers. It stops after `seconds`, when `stop` is
called, and at interpreter exit; the thread is a daemon, so a signal that ends the process ends
the reads with it. Reading never changes a byte on the drive.
"""

from __future__ import annotations

import atexit
import contextlib
import mmap
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

CHUNK = 1 << 20  # 1 MiB per read
ALIGN = 4096
STRIDE_PRIME = 7919  # steps across the disk in an order that never repeats a short cycle
Opener = Callable[[str, int], int]


@dataclass(frozen=True, slots=True)
class BlinkPlan:
    """What a blink does: bursts of reads on one path until a deadline."""

    path: Path
    seconds: float
    on_s: float = 0.5
    off_s: float = 0.5


def offsets(size: int, count: int, chunk: int = CHUNK) -> list[int]:
    """`count` read offsets spread over a device of `size` bytes, aligned for O_DIRECT."""
    slots = max(1, (size - chunk) // ALIGN) if size > chunk else 1
    return [((i * STRIDE_PRIME * 257) % slots) * ALIGN for i in range(count)]


def read_flags(direct: bool) -> int:
    """The open flags: read-only, never create, never write; O_DIRECT when asked and known."""
    flags = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
    return flags | (getattr(os, "O_DIRECT", 0) if direct else 0)


class Blinker:
    """Blinks one drive at a time in a background thread."""

    def __init__(self, opener: Opener = os.open, chunk: int = CHUNK) -> None:
        self._open = opener
        self._chunk = chunk
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._key: str | None = None
        self.bytes_read = 0
        self.error: str | None = None
        atexit.register(self.stop)

    @property
    def active(self) -> str | None:
        """The key of the drive blinking now, if any."""
        thread = self._thread
        return self._key if thread is not None and thread.is_alive() else None

    def start(self, plan: BlinkPlan, key: str) -> None:
        """Blink `plan.path` (stopping any other blink first)."""
        self.stop()
        self._stop = threading.Event()
        self._key = key
        self.bytes_read = 0
        self.error = None
        self._thread = threading.Thread(
            target=self._run, args=(plan, self._stop), name=f"nastui-blink-{key}", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        """Stop blinking and wait (briefly) for the last read to end."""
        self._stop.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=5.0)
        self._thread = None
        self._key = None

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the blink to end by itself; True when it has."""
        thread = self._thread
        if thread is None:
            return True
        thread.join(timeout)
        return not thread.is_alive()

    def _open_fd(self, path: Path) -> tuple[int, bool]:
        try:
            return self._open(str(path), read_flags(direct=True)), True
        except OSError:
            return self._open(str(path), read_flags(direct=False)), False

    def _run(self, plan: BlinkPlan, stop: threading.Event) -> None:
        try:
            fd, direct = self._open_fd(plan.path)
        except OSError as exc:
            self.error = f"cannot open {plan.path} for reading: {exc.strerror or exc}"
            return
        try:
            self._loop(fd, direct, plan, stop)
        except OSError as exc:
            self.error = f"reading {plan.path} failed: {exc.strerror or exc}"
        finally:
            os.close(fd)

    def _loop(self, fd: int, direct: bool, plan: BlinkPlan, stop: threading.Event) -> None:
        size = os.lseek(fd, 0, os.SEEK_END)
        buffer = mmap.mmap(-1, self._chunk)  # page-aligned, as O_DIRECT needs
        deadline = time.monotonic() + plan.seconds
        spots = offsets(size, 4096, self._chunk)
        step = 0
        with contextlib.closing(buffer):
            while not stop.is_set() and time.monotonic() < deadline:
                burst_end = time.monotonic() + plan.on_s
                while time.monotonic() < burst_end and not stop.is_set():
                    offset = spots[step % len(spots)]
                    step += 1
                    self.bytes_read += os.preadv(fd, [buffer], offset)
                    if not direct:
                        os.posix_fadvise(fd, offset, self._chunk, os.POSIX_FADV_DONTNEED)
                stop.wait(plan.off_s)
