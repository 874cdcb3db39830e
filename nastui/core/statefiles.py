"""Where nastui keeps its own small state, and the locate-LED records kept there (pure).

The demo has its own (`demo_state_dir`), per scenario.

The swap in progress is kept there too (`swap.json`, and its backup `swap.json.bak`:
`nastui.swap.io.store`); its names are here so that what only asks whether there is one (the
interface, before it loads the swap's code) need not load the swap.

Two files live in the state directory: `acks.json` (acknowledgements, `nastui.core.ack`) and
`leds.json`, the locate LEDs nastui switched on. Write-only methods (ledctl, sg_ses) cannot be
read back, and an activity blink lives in one process, so the locator records what it lit and
the drive collector reports it as the bay's LED state: in the TUI of another session, in
`nastui bays --json`, and for `nastui locate --off`. Records from before a reboot are dropped.

A record also keeps the enclosure slot the drive sat in (its SES `locate` file, the enclosure's
id, sg device and slot number), so the LED can still be put out once the drive is pulled
(`nastui.control.locate_empty`). Records written before those fields existed read with them
unset; unknown fields are ignored, so an older nastui reads newer records too.

    {"version": 1, "boot_id": "6c0f...", "leds": [{"bay": 3, "drive": "PK1334PBHDJ2SR",
      "dev": "sdc", "method": "ledctl", "since": 1700000000.0, "pid": null, "until": null,
      "target": "ledctl locate=/dev/sdc",
      "slot_path": "/sys/class/enclosure/1:0:24:0/Slot03/locate",
      "enclosure": "500304801f3ae07f", "sg_device": "/dev/sg24", "slot_number": 3}]}
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nastui.safeio import loads_json

ACKS_FILE = "acks.json"
SWAP_FILE = "swap.json"
BACKUP_SUFFIX = ".bak"
LEDS_FILE = "leds.json"
FORMAT_VERSION = 1
BLINK = "activity-blink"


def demo_state_dir(env: Mapping[str, str], scenario: str) -> Path | None:
    """The simulator's state directory (acknowledgements now; the demo's LEDs and scrubs may
    live there too): $NASTUI_STATE_DIR, else $XDG_STATE_HOME/nastui/demo/SCENARIO, else
    $HOME/.local/state/nastui/demo/SCENARIO; None in an environment with none of them (a
    test, the screenshot script: the demo then keeps no state). Never /var/lib/nastui: a demo
    must not touch the real box's state."""
    if env.get("NASTUI_STATE_DIR"):
        return Path(env["NASTUI_STATE_DIR"])
    if env.get("XDG_STATE_HOME"):
        base = Path(env["XDG_STATE_HOME"])
    elif env.get("HOME"):
        base = Path(env["HOME"]) / ".local/state"
    else:
        return None
    return base / "nastui" / "demo" / scenario


def state_dir(env: Mapping[str, str], euid: int) -> Path:
    """The state directory: $NASTUI_STATE_DIR, else /var/lib/nastui for root, else
    $XDG_STATE_HOME/nastui (default ~/.local/state/nastui)."""
    if env.get("NASTUI_STATE_DIR"):
        return Path(env["NASTUI_STATE_DIR"])
    if euid == 0:
        return Path("/var/lib/nastui")
    base = env.get("XDG_STATE_HOME") or str(Path(env.get("HOME", "/")) / ".local/state")
    return Path(base) / "nastui"


@dataclass(frozen=True, slots=True)
class LedRecord:
    """A locate LED nastui switched on.

    Attributes:
        bay: the bay, when the drive is in one.
        drive: the drive's `Drive.key` (serial).
        dev: its kernel name when it was lit.
        method: "ses-sysfs", "ledctl", "sg_ses" or "activity-blink".
        since: Unix time it was switched on.
        pid: the process doing an activity blink (it stops when that process ends).
        until: when an activity blink stops by itself.
        target: what the method addressed (a locate file, /dev/sdc, an sg device and slot).
        slot_path: the SES `locate` file of the enclosure slot the drive sat in, when it sat
            in one (whatever the method): the slot's address without the drive.
        enclosure: that enclosure's id (its SES logical id), to tell it is still the one at
            that address.
        sg_device: that enclosure's SCSI generic device, for `sg_ses` by slot number.
        slot_number: the slot's number as the enclosure numbers it.
    """

    bay: int | None
    drive: str
    dev: str
    method: str
    since: float
    pid: int | None = None
    until: float | None = None
    target: str = ""
    slot_path: str | None = None
    enclosure: str | None = None
    sg_device: str | None = None
    slot_number: int | None = None

    def live(self, now: float, pid_alive: bool) -> bool:
        """Still lit: always for LED methods; for a blink, while its process runs and time is
        left."""
        if self.method != BLINK:
            return True
        return pid_alive and (self.until is None or now < self.until)


def encode_leds(records: Iterable[LedRecord], boot_id: str | None) -> str:
    """The LED file's text."""
    rows = [dataclasses.asdict(r) for r in records]
    return json.dumps({"version": FORMAT_VERSION, "boot_id": boot_id, "leds": rows}, indent=2)


_ADDRESS_TYPES: dict[str, type] = {
    "slot_path": str,
    "enclosure": str,
    "sg_device": str,
    "slot_number": int,
}


def _address(item: dict[str, Any]) -> dict[str, Any]:
    """The slot address fields of a stored record, each of the right type or unset (a damaged
    address degrades to none: the record still shows the LED, it just cannot be addressed)."""
    return {
        name: value
        for name, kind in _ADDRESS_TYPES.items()
        if isinstance(value := item.get(name), kind) and not isinstance(value, bool)
    }


def _record(item: Any) -> LedRecord | None:
    if not isinstance(item, dict):
        return None
    names = {f.name for f in dataclasses.fields(LedRecord)} - _ADDRESS_TYPES.keys()
    try:
        record = LedRecord(**{k: v for k, v in item.items() if k in names}, **_address(item))
    except TypeError:
        return None
    valid = isinstance(record.drive, str) and isinstance(record.method, str)
    return record if valid and (record.bay is None or isinstance(record.bay, int)) else None


def decode_leds(text: str, boot_id: str | None) -> list[LedRecord]:
    """The records in the LED file's text; none when it is unreadable or from another boot."""
    try:
        data = loads_json(text)
    except ValueError:
        return []
    if not isinstance(data, dict) or (boot_id and data.get("boot_id") not in (None, boot_id)):
        return []
    rows = data.get("leds")
    return [r for r in map(_record, rows if isinstance(rows, list) else []) if r is not None]


def replace_record(
    records: Iterable[LedRecord], new: LedRecord | None, drive: str
) -> list[LedRecord]:
    """`records` without the ones for `drive`, plus `new` (None: just removed)."""
    kept = [r for r in records if r.drive != drive]
    return [*kept, new] if new is not None else kept
