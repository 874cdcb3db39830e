"""The operator's acknowledgements of drive findings, read from the state directory's
`acks.json` (written by `nastui.control.acks`; format in `nastui.core.ack`).

Re-read only when the file changes. A missing file means no acknowledgements; an unreadable or
malformed one is reported once, in one line, and counts as none.
"""

from __future__ import annotations

from pathlib import Path

from nastui.collectors.sysfs import file_stamp
from nastui.core.ack import decode
from nastui.core.statefiles import ACKS_FILE
from nastui.model import Acknowledgement, CollectorError
from nastui.safeio import STATE_LIMIT, read_text_bounded


class AckReader:
    """Acknowledgements per drive serial, from `state_dir/acks.json`."""

    def __init__(self, state_dir: Path) -> None:
        self.path = state_dir / ACKS_FILE
        self._stamp: tuple[int, int, int] | None = None
        self._acks: dict[str, tuple[Acknowledgement, ...]] = {}
        self.error: CollectorError | None = None

    def read(self) -> dict[str, tuple[Acknowledgement, ...]]:
        """Serial -> acknowledgements, as the file says now."""
        stamp = file_stamp(self.path)
        if stamp is None:
            self._stamp, self._acks, self.error = None, {}, None
            return self._acks
        if stamp == self._stamp:
            return self._acks
        self._stamp = stamp
        try:
            text = read_text_bounded(self.path, STATE_LIMIT)  # never a FIFO, never 1 GB
            self._acks = decode(text, str(self.path))
            self.error = None
        except (OSError, ValueError, RecursionError) as exc:  # a FIFO, not UTF-8, nested
            self._acks = {}
            self.error = CollectorError("acks", f"acknowledgements not read: {exc}")
        return self._acks
