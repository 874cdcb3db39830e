"""Keeping a swap in the state directory: the one in progress and the log of finished ones.

Every write goes whole through `nastui.control.statefile.write_atomic` (a reader never sees half
a file; a crash leaves the previous state), so a swap survives a dead SSH session and any front
end picks it up where it was. Raises `StateError` with one line naming the file and the fix.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from nastui.control.statefile import StateError, read_or_empty, write_atomic
from nastui.core.swapcodec import (
    LOG_FILE,
    SWAP_FILE,
    decode_log,
    decode_swap,
    encode_log,
    encode_swap,
    log_record,
)
from nastui.core.swapstate import Swap

__all__ = ["StateError", "SwapStore"]


class SwapStore:
    """The swap files of one state directory."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    @property
    def swap_path(self) -> Path:
        """swap.json."""
        return self.directory / SWAP_FILE

    def load(self) -> Swap | None:
        """The swap in progress (or finished and not yet cleared); None when there is none.

        Raises:
            StateError: the file is there but is not a swap (it is left alone for a look).
        """
        text = read_or_empty(self.swap_path)
        if not text:
            return None
        swap = decode_swap(text)
        if swap is None and '"swap": null' not in text:
            raise StateError(
                f"{self.swap_path} is not a swap nastui can read: look at it, then remove it"
            )
        return swap

    def save(self, swap: Swap | None) -> None:
        """Keep `swap` (None: no swap in progress)."""
        write_atomic(self.swap_path, encode_swap(swap), 0o644)

    def log(self) -> list[dict[str, Any]]:
        """Finished swaps, oldest first."""
        return decode_log(read_or_empty(self.directory / LOG_FILE))

    def finish(self, swap: Swap) -> None:
        """Append the swap to the log and clear the swap in progress."""
        records = [*self.log(), log_record(swap)]
        write_atomic(self.directory / LOG_FILE, encode_log(records), 0o644)
        self.save(None)
