"""Writing nastui's own state files (acknowledgements, lit locate LEDs) safely.

A file is written whole to a temporary file beside it and renamed over the old one, so a reader
never sees half a file and a crash never leaves one behind. The directory is created (mode 0755)
when missing. Failures raise `StateError` with one line naming the file and the fix.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


class StateError(OSError):
    """A state file could not be read or written; the message names it and the fix."""


def read_or_empty(path: Path) -> str:
    """The file's text, or "" when it does not exist yet."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""
    except OSError as exc:
        raise StateError(f"cannot read {path}: {exc.strerror or exc}") from exc


def write_atomic(path: Path, text: str, mode: int | None = None) -> None:
    """Replace `path` with `text` in one step; `mode` (e.g. 0o644) is set before the rename,
    so a reader never finds the file unreadable (default: the temporary file's 0600).

    Raises:
        StateError: the directory or file cannot be written (permission, read-only disk).
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    except OSError as exc:
        raise StateError(_why(path, exc)) from exc
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            if mode is not None:
                os.fchmod(handle.fileno(), mode)
            handle.write(text)
        Path(tmp).replace(path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            Path(tmp).unlink()
        raise StateError(_why(path, exc)) from exc


def _why(path: Path, exc: OSError) -> str:
    hint = " (run as root, or set NASTUI_STATE_DIR)" if isinstance(exc, PermissionError) else ""
    return f"cannot write {path}: {exc.strerror or exc}{hint}"
