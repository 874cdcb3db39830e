"""The alert book's own file beside the history, and its spare for a full disk.

`alert-book.json` is written whole to a new file, fsync'd and renamed over the old one
(`nastui.control.statefile.write_atomic`): after a crash it is the old book or the new one. A
new file needs free space, though, and a daemon restarted on a full disk with an old book would
send again what it sent since. So beside it lives `alert-book.spare`, made (`SPARE_SIZE` bytes
of spaces) whenever there is room; when the new file cannot be written, the book is written
into the spare's own pages instead (overwritten in place, padded with spaces, fsync'd: no new
block is needed on tmpfs, ext4 or XFS; copy-on-write file systems may still refuse). On reading,
whichever of the two that holds a book was written last wins (by modification time).

Both are read only if they are regular files of at most `BOOK_LIMIT` bytes in UTF-8
(`nastui.safeio`): a FIFO, a device, a directory or a huge file in their place is reported
by `texts` as unreadable, for the keeper to move aside (`set_aside`) and say once.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

from nastui.control.statefile import write_atomic
from nastui.history.salvage import move_aside
from nastui.safeio import STATE_LIMIT, UnsafeFileError, read_bounded

BOOK_FILE = "alert-book.json"
SPARE_FILE = "alert-book.spare"
BOOK_MODE = 0o644
SPARE_SIZE = 256 * 1024
BOOK_LIMIT = STATE_LIMIT


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

    def texts(self) -> tuple[list[tuple[str, Path]], list[tuple[Path, str, bool]]]:
        """(text, file) of each file that holds something, the last written first; and
        (file, why, bad) of each that is there but cannot be read: `bad` when no reader ever
        could (not a regular file, too large, not UTF-8), not for a permission refused."""
        found: list[tuple[float, str, Path]] = []
        unreadable: list[tuple[Path, str, bool]] = []
        for path in (self.path, self.spare):
            try:
                data = read_bounded(path, BOOK_LIMIT)
                mtime = path.stat().st_mtime
                text = data.decode("utf-8").strip()
            except (FileNotFoundError, NotADirectoryError):
                continue
            except UnsafeFileError as exc:
                unreadable.append((path, str(exc), True))
                continue
            except OSError as exc:
                unreadable.append((path, f"cannot read {path}: {exc.strerror or exc}", False))
                continue
            except UnicodeDecodeError as exc:
                unreadable.append((path, f"{path} is not UTF-8 ({exc.reason})", True))
                continue
            if text:
                found.append((mtime, text, path))
        found.sort(key=lambda item: item[0], reverse=True)
        return [(text, path) for _, text, path in found], unreadable

    @staticmethod
    def set_aside(path: Path) -> Path:
        """Rename a file that cannot be used to `<name>.damaged-<time>` (nothing is deleted).

        Raises:
            OSError: the rename failed.
        """
        return move_aside(path)

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
