"""Writing files other programs read: the daemon's `latest.json`, node_exporter textfiles.

`write_public` replaces a file in one step (a temporary file in the same directory, renamed
over it) with mode 0644 already set before the rename, so snmpd's or node_exporter's
unprivileged user can always read it and never sees half a file. No fsync: these files are
rewritten every poll period. `write_latest` writes a
snapshot with `nastui.core.codec`; `nastui.collectors.latest.read_latest` reads it back.
"""

from __future__ import annotations

from pathlib import Path

from nastui.control.statefile import write_atomic
from nastui.core import codec
from nastui.model import HostSnapshot

PUBLIC_MODE = 0o644


def write_public(path: Path, text: str, mode: int = PUBLIC_MODE) -> None:
    """Replace `path` with `text` atomically, readable by everyone (`mode`, default 0644).

    Raises:
        StateError: the directory or file cannot be written; one line naming it and the fix.
    """
    write_atomic(path, text, mode, durable=False)


def write_latest(path: Path, snapshot: HostSnapshot) -> None:
    """Write `snapshot` (the codec's JSON) to `path` atomically, mode 0644.

    Raises:
        StateError: it cannot be written (permission, read-only disk).
    """
    write_public(path, codec.dumps(snapshot))
