"""The alert book's own file beside the history, and its spare for a full disk.

`alert-book.json` is written whole to a new file, fsync'd and renamed over the old one
(`nastui.control.statefile.write_atomic`): after a crash it is the old book or the new one. A
new file needs free space, though, and a daemon restarted on a full disk with an old book would
send again what it sent since. So beside it lives `alert-book.spare`, made (`SPARE_SIZE` bytes
of spaces) whenever there is room; when the new file cannot be written, the book is written
into the spare's own pages instead (overwritten in place, padded with spaces, fsync'd: no new
block is needed on tmpfs, ext4 or XFS; copy-on-write file systems may still refuse). On reading,
whichever of the two that holds a book was written last wins (by modification time).
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

from nastui.control.statefile import write_atomic

BOOK_FILE = "alert-book.json"
SPARE_FILE = "alert-book.spare"
BOOK_MODE = 0o644
SPARE_SIZE = 256 * 1024


@dataclass(frozen=True, slots=True)
class BookFile:
    """`alert-book.json` and its spare in one directory."""

    directory: Path

    @property
    def path(self) -> Path:
        """The book's file."""
        return self.directory / BOOK_FILE

    @property
    def spare(self) -> Path:
        """The spare, overwritten in place when the disk is full."""
        return self.directory / SPARE_FILE

    def texts(self) -> list[tuple[str, Path]]:
        """(text, file) of each file that holds something, the last written first.

        Raises:
            OSError: a file exists but cannot be read.
        """
        found: list[tuple[float, str, Path]] = []
        for path in (self.path, self.spare):
            try:
                with path.open(encoding="utf-8", errors="replace") as handle:
                    mtime = os.fstat(handle.fileno()).st_mtime
                    text = handle.read().strip()
            except FileNotFoundError:
                continue
            if text:
                found.append((mtime, text, path))
        found.sort(key=lambda item: item[0], reverse=True)
        return [(text, path) for _, text, path in found]

    def write(self, text: str) -> bool:
        """Keep `text`: in the book's file, else (no room for a new file) in the spare.
        True when it went into the spare.

        Raises:
            OSError: neither could be written (`StateError` of the book's file).
        """
        try:
            write_atomic(self.path, text, BOOK_MODE)
        except OSError:
            if not self._into_spare(text):
                raise
            return True
        self._make_spare()
        return False

    def _into_spare(self, text: str) -> bool:
        data = text.encode("utf-8")
        try:
            if len(data) > SPARE_SIZE or self.spare.stat().st_size != SPARE_SIZE:
                return False
            fd = os.open(self.spare, os.O_WRONLY)  # no O_TRUNC: its pages are reused
        except OSError:
            return False
        try:
            os.pwrite(fd, data.ljust(SPARE_SIZE, b" "), 0)
            os.fsync(fd)
        except OSError:
            return False
        finally:
            os.close(fd)
        return True

    def _make_spare(self) -> None:
        """Make the spare while there is room (once; a failure is tried again next time)."""
        with contextlib.suppress(OSError):
            if self.spare.stat().st_size == SPARE_SIZE:
                return
        with contextlib.suppress(OSError):
            write_atomic(self.spare, " " * SPARE_SIZE, BOOK_MODE)
