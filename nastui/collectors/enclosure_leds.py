"""Bay LED states: what the SES enclosure says, and what nastui's locator lit by methods that
cannot be read back (ledctl, sg_ses, an activity blink), from the state directory's
`leds.json` (written by `nastui.control.locate_state`; format in `nastui.core.statefiles`).

An activity blink counts only while the process doing it runs and its time is not up; records
from before a reboot are ignored.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from nastui.collectors.sysfs import file_stamp, read_text
from nastui.core.statefiles import BLINK, LEDS_FILE, LedRecord, decode_leds
from nastui.model import LedState
from nastui.safeio import STATE_LIMIT, read_text_bounded

BOOT_ID = Path("/proc/sys/kernel/random/boot_id")
SES_METHOD = "ses-sysfs"


def pid_alive(pid: int | None) -> bool:
    """Whether process `pid` exists (signal 0 probes without touching it)."""
    if pid is None or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _state_text(path: Path) -> str | None:
    """A state file's text: only a regular file, bounded (`nastui.safeio`); None otherwise."""
    try:
        return read_text_bounded(path, STATE_LIMIT)
    except OSError:
        return None


class LedReader:
    """The LEDs nastui lit, from `state_dir/leds.json`: the file is parsed again only when it
    changes, and this boot's id is read once (it cannot change while nastui runs)."""

    def __init__(self, state_dir: Path) -> None:
        self.path = state_dir / LEDS_FILE
        self._boot_id = read_text(BOOT_ID)
        self._stamp: tuple[int, int, int] | None = None
        self._records: list[LedRecord] = []

    def lit(self, now: float) -> list[LedRecord]:
        """The LEDs nastui lit that are still lit."""
        stamp = file_stamp(self.path)
        if stamp != self._stamp:
            self._stamp = stamp
            text = _state_text(self.path) if stamp is not None else None
            self._records = decode_leds(text, self._boot_id) if text else []
        return [r for r in self._records if r.live(now, pid_alive(r.pid))]


def led_states(
    records: list[LedRecord], ses: Mapping[int, LedState], bays: Mapping[str, int]
) -> dict[int, LedState]:
    """Bay -> LED state: SES readback first (it is the hardware's word), then nastui's records
    for bays SES does not cover.

    Args:
        records: lit LEDs from `LedReader.lit`.
        ses: bay -> state read from the enclosure, for bays located by SES.
        bays: drive key -> bay, for records kept without one.
    """
    states = dict(ses)
    for record in records:
        bay = record.bay if record.bay is not None else bays.get(record.drive)
        if bay is None or (record.method == SES_METHOD and bay in ses):
            continue  # the same LED the enclosure reports: its readback is the truth
        if states.get(bay, LedState.UNKNOWN) in (LedState.OFF, LedState.UNKNOWN):
            states[bay] = LedState.BLINK if record.method == BLINK else LedState.LOCATE
    return states
