"""Keeping a swap in the state directory: the one in progress and the log of finished ones.

Every write goes whole through `nastui.control.statefile.write_atomic` (a reader never sees half
a file; a crash leaves the previous state), so a swap survives a dead SSH session and any front
end picks it up where it was. Raises `StateError` with one line naming the file and the fix.

    swap.json       the swap in progress
    swap.json.bak   the same state, written just before swap.json each time: a swap.json found
                    empty (truncated by a full disk, an editor, a hand) is read from it, and
                    the reader is told so (`SwapStore.notice`)
    swap.lock       held (flock) by whoever is changing the swap; holds "PID<TAB>what it does",
                    so a second `nastui swap start` refuses naming the first one's target
    swaps.json      the log of finished swaps
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from nastui.control.statefile import BadStateFile, StateError, read_or_empty, write_atomic
from nastui.core.statefiles import BACKUP_SUFFIX, SWAP_FILE
from nastui.history.dirs import STATE_DIR_MODE, make_dir
from nastui.swap.logic.codec import (
    LOG_FILE,
    decode_log,
    decode_swap,
    encode_log,
    encode_swap,
    log_record,
)
from nastui.swap.logic.state import Swap

__all__ = ["BadStateFile", "StateError", "SwapBusy", "SwapLock", "SwapStore"]

LOCK_FILE = "swap.lock"
_LOCK_TEXT_LIMIT = 4096


class SwapBusy(StateError):
    """Another nastui is changing the swap; the message names what it does."""


class SwapLock:
    """The held swap lock: `say` tells a waiting process what the holder is doing."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    def release(self) -> None:
        """Let go (closing the file releases the flock; the file stays: removing it would
        race with the next holder)."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def say(self, what: str) -> None:
        """Record what the holder does now ("preparing bay 10 sdk ...")."""
        text = f"{os.getpid()}\t{' '.join(what.split())[: _LOCK_TEXT_LIMIT // 2]}\n".encode()
        with contextlib.suppress(OSError):
            os.ftruncate(self._fd, 0)
            os.pwrite(self._fd, text, 0)


class SwapStore:
    """The swap files of one state directory."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.notice: str | None = None  # set by `load` when the swap came from the backup

    @property
    def swap_path(self) -> Path:
        """swap.json."""
        return self.directory / SWAP_FILE

    @property
    def backup_path(self) -> Path:
        """swap.json.bak."""
        return self.directory / (SWAP_FILE + BACKUP_SUFFIX)

    def load(self) -> Swap | None:
        """The swap in progress (or finished and not yet cleared); None when there is none.

        A swap.json that is there but empty is read from swap.json.bak, and `notice` says so.

        Raises:
            BadStateFile: the file is there but is not a swap (it is left alone for a look), or
                it is empty and the backup holds no swap either.
            StateError: it cannot be read.
        """
        self.notice = None
        text = read_or_empty(self.swap_path)
        if not text.strip():
            return self._from_backup() if self.swap_path.exists() else None
        return self._decoded(text, self.swap_path)

    def _decoded(self, text: str, path: Path) -> Swap | None:
        """The swap of a file's text (None for "no swap").

        Raises:
            BadStateFile: it is empty, or not a swap.
        """
        if not text.strip():
            raise BadStateFile(f"{path} is empty")
        swap = decode_swap(text)
        if swap is None and '"swap": null' not in text:
            kept = path == self.swap_path and self.backup_path.exists()
            before = f" (the state before is in {self.backup_path.name})" if kept else ""
            raise BadStateFile(
                f"{path} is not a swap nastui can read{before}: look at it, then remove it"
            )
        return swap

    def _from_backup(self) -> Swap | None:
        """The swap of swap.json.bak, for a swap.json found empty."""
        try:
            swap = self._decoded(read_or_empty(self.backup_path), self.backup_path)
        except StateError as exc:
            raise BadStateFile(
                f"{self.swap_path} is empty and its backup cannot be used ({exc}): if a swap "
                "was running, check the pool (`nastui pools`) before removing it"
            ) from None
        self.notice = (
            f"{self.swap_path} was empty: the swap was read from {self.backup_path.name}"
            + (f" ({swap.old.label}, {swap.phase.value})" if swap is not None else " (no swap)")
            + "; the next change writes both again"
        )
        return swap

    def save(self, swap: Swap | None) -> None:
        """Keep `swap` (None: no swap in progress): the backup first, then swap.json."""
        text = encode_swap(swap)
        write_atomic(self.backup_path, text, 0o644)
        write_atomic(self.swap_path, text, 0o644)

    def log(self) -> list[dict[str, Any]]:
        """Finished swaps, oldest first."""
        return decode_log(read_or_empty(self.directory / LOG_FILE))

    def finish(self, swap: Swap) -> None:
        """Append the swap to the log and clear the swap in progress."""
        records = [*self.log(), log_record(swap)]
        write_atomic(self.directory / LOG_FILE, encode_log(records), 0o644)
        self.save(None)

    @contextlib.contextmanager
    def lock(self, what: str) -> Iterator[SwapLock]:
        """Hold the swap lock while changing the swap (`what` is shown to anyone refused).

        Raises:
            SwapBusy: another process holds it (the message names its pid and what it does).
            StateError: the lock file cannot be made or opened.
        """
        held = self.acquire(what)
        try:
            yield held
        finally:
            held.release()

    def acquire(self, what: str) -> SwapLock:
        """Take the swap lock now, or fail at once (`lock` as a pair of calls).

        Raises:
            SwapBusy: another process holds it (the message names its pid and what it does).
            StateError: the lock file cannot be made or opened, or is not a regular file.
        """
        path = self.directory / LOCK_FILE
        try:
            make_dir(self.directory, STATE_DIR_MODE)
            flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
            fd = os.open(path, flags, 0o644)
        except OSError as exc:
            raise StateError(f"cannot open {path}: {exc.strerror or exc}") from exc
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise BadStateFile(f"{path} is not a regular file: look at it, then remove it")
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            os.fchmod(fd, 0o644)
        except BlockingIOError:
            why = _busy(path, fd)
            os.close(fd)
            raise SwapBusy(why) from None
        except OSError:
            os.close(fd)
            raise
        held = SwapLock(fd)
        held.say(what)
        return held


def _busy(path: Path, fd: int) -> str:
    """Who holds the lock at `path`, in one line."""
    try:
        raw = os.pread(fd, _LOCK_TEXT_LIMIT, 0)
    except OSError:
        raw = b""
    pid, _, what = raw.decode("utf-8", "replace").strip().partition("\t")
    who = f"another nastui (pid {pid})" if pid.isdigit() else "another nastui"
    doing = f" is {what}" if what else " is changing the swap"
    return f"{who}{doing} ({path.name} is held): wait for it, then `nastui swap`"
