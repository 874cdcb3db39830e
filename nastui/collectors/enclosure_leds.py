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

from nastui.collectors.sysfs import read_text
from nastui.core.statefiles import BLINK, LEDS_FILE, LedRecord, decode_leds
from nastui.model import LedState

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


def lit_records(state_dir: Path, now: float) -> list[LedRecord]:
    """The LEDs nastui lit that are still lit."""
    text = read_text(state_dir / LEDS_FILE)
    if not text:
        return []
    records = decode_leds(text, read_text(BOOT_ID))
    return [r for r in records if r.live(now, pid_alive(r.pid))]


def led_states(
    records: list[LedRecord], ses: Mapping[int, LedState], bays: Mapping[str, int]
) -> dict[int, LedState]:
    """Bay -> LED state: SES readback first (it is the hardware's word), then nastui's records
    for bays SES does not cover.

    Args:
        records: lit LEDs from `lit_records`.
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
