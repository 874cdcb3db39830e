"""Writing nastui's own state files (acknowledgements, lit locate LEDs) safely.

A file is written whole to a temporary file beside it, flushed to the disk (fsync) and renamed
over the old one, and the directory is flushed too: a reader never sees half a file, and after a
crash or a power cut the file is the old one or the new one, never empty. The directory is
created when missing with mode 0750 whatever the umask (`nastui.history.dirs`). Failures raise
`StateError` with one line naming the file and the fix.

A state file is read through `nastui.safeio`: a regular file of at most `STATE_LIMIT` bytes, in
UTF-8. One that is a FIFO, a device, larger, or not UTF-8 is a `BadStateFile` (a `StateError`)
naming it, never a hang or a traceback.
"""

from __future__ import annotations

from pathlib import Path

from nastui import safeio
from nastui.history.dirs import STATE_DIR_MODE, make_dir
from nastui.safeio import STATE_LIMIT, UnsafeFileError, read_bounded


class StateError(OSError):
    """A state file could not be read or written; the message names it and the fix."""


class BadStateFile(StateError):
    """A state file that is there but is not what nastui writes (not a regular file, too
    large, not UTF-8, not its format); it is left alone for a look."""


def read_or_empty(path: Path, limit: int = STATE_LIMIT) -> str:
    """The file's text, or "" when it does not exist yet. Only a regular file of at most
    `limit` bytes is read (`nastui.safeio`): a FIFO, a device or a directory in its place is
    refused at once, never waited on or read forever.

    Raises:
        BadStateFile: it is not a regular file, is too large, or is not UTF-8.
        StateError: it cannot be read (permission).
    """
    try:
        data = read_bounded(path, limit)
    except FileNotFoundError:
        return ""
    except UnsafeFileError as exc:
        raise BadStateFile(f"{exc}: look at it, then remove it") from exc
    except OSError as exc:
        raise StateError(f"cannot read {path}: {exc.strerror or exc}") from exc
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadStateFile(
            f"{path} is not UTF-8 text ({exc.reason} at byte {exc.start}): look at it, "
            "then remove it"
        ) from None


def write_atomic(path: Path, text: str, mode: int | None = None, *, durable: bool = True) -> None:
    """Replace the state file `path` with `text` in one step (`nastui.safeio.write_atomic`),
    its directory made first when missing; `mode` (e.g. 0o644) is set before the rename
    (default: 0600). `durable=False` skips the fsyncs, for files rewritten every few seconds.

    Raises:
        StateError: the directory or file cannot be written (permission, read-only disk).
    """
    try:
        make_dir(path.parent, STATE_DIR_MODE)
        safeio.write_atomic(path, text, mode, durable=durable)
    except OSError as exc:
        raise StateError(_why(path, exc)) from exc


def _why(path: Path, exc: OSError) -> str:
    hint = " (run as root, or set NASTUI_STATE_DIR)" if isinstance(exc, PermissionError) else ""
    return f"cannot write {path}: {exc.strerror or exc}{hint}"
