"""The locate LEDs nastui has lit, kept in the state directory (`leds.json`): the write side.

The drive collector reads the same file (`nastui.collectors.drives`) to show the LEDs; here the
locator adds a record when it lights one and removes it when it switches it off. Records from
an earlier boot are dropped on read (the boot id is the kernel's).
"""

from __future__ import annotations

from pathlib import Path

from nastui import safeio
from nastui.control.statefile import StateError, read_or_empty, write_atomic
from nastui.core.statefiles import LEDS_FILE, LedRecord, decode_leds, encode_leds, replace_record

BOOT_ID = Path("/proc/sys/kernel/random/boot_id")


def boot_id() -> str | None:
    """This boot's id, to tell a record from before a reboot."""
    try:
        return safeio.read_text_bounded(BOOT_ID, safeio.ATTR_LIMIT).strip() or None
    except OSError:
        return None


class LedBook:
    """Read and update `leds.json` in `state_dir`."""

    def __init__(self, state_dir: Path) -> None:
        self._path = state_dir / LEDS_FILE

    def records(self) -> list[LedRecord]:
        """Every LED nastui lit in this boot (none when the file is unreadable)."""
        try:
            return decode_leds(read_or_empty(self._path), boot_id())
        except StateError:
            return []

    def record_for(self, drive: str) -> LedRecord | None:
        """The record of the drive's lit LED, if any."""
        return next((r for r in self.records() if r.drive == drive), None)

    def keep(self, record: LedRecord) -> None:
        """Record a lit LED (a failure to record is not a failure to light: ignored)."""
        self._write(replace_record(self.records(), record, record.drive))

    def forget(self, drive: str) -> None:
        """Drop the drive's record."""
        self._write(replace_record(self.records(), None, drive))

    def _write(self, records: list[LedRecord]) -> None:
        try:
            write_atomic(self._path, encode_leds(records, boot_id()))
        except StateError:
            return
