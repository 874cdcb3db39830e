"""Putting out the locate LED of an empty bay, from the record of what lit it.

The ladder finds a bay's LED through the drive in it. Once that drive is out (a swap aborted
after the pull, a drive pulled with its LED lit) the bay would go on blinking "pull me" with
nothing in it, and the next operator may pull a neighbour. The record nastui kept when it lit
the LED (`leds.json`, `nastui.core.statefiles.LedRecord`) names the method and the enclosure
slot the drive sat in; the LED is put out there, and nowhere else:

- ses-sysfs, and ledctl for a drive that sat in an SES slot (ledctl's locate is that slot's
  ident bit, the one the kernel's `locate` file sets; ledctl itself only addresses a slot
  through its drive): 0 written to the recorded slot's `locate` file and read back.
- sg_ses: `sg_ses --dev-slot-num=N --clear=ident /dev/sgM`, the recorded device and slot.
- an activity blink: it lights nothing once its drive is gone; its record is dropped.

A record is data, never a licence to write elsewhere: the slot file must still be a slot's
`locate` under the tree's /sys/class/enclosure, and the enclosure there (or behind the sg
device) must still carry the recorded id; it must be a regular file (`safeio`). A record that
lacks the address (written before nastui kept it; sg_ses lit by SAS address; ledctl on a port
with no enclosure slot) is said in one line naming the fix by hand, as is an address that no
longer holds.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from nastui import safeio
from nastui.control.locate_rungs import (
    LEDCTL,
    SES,
    SG_SES,
    Attempt,
    RunFn,
    run_tool,
    sg_ses_argv,
    write_locate,
)
from nastui.core.statefiles import BLINK, LedRecord

_SG_NAME = re.compile(r"^sg\d+$")
ADDRESSED = (SES, LEDCTL, SG_SES)  # the methods whose LED a slot address reaches
CHECK = (
    "check the enclosure's slot (`cat /sys/class/enclosure/*/SLOT/locate`, "
    "or `sg_ses --page=aes /dev/sgN`)"
)


def nothing_recorded(bay: int) -> str:
    """The line for an empty bay whose LED nastui has no record of lighting."""
    return (
        f"bay {bay}: no drive in it and no locate LED lit by nastui on record: nothing to turn "
        f"off as far as nastui knows; {CHECK}"
    )


def _enclosure_is(directory: Path, ident: str) -> bool:
    """The enclosure at `directory` carries the id `ident` (as the collector spells ids)."""
    try:
        text = safeio.read_text_bounded(directory / "id", safeio.ATTR_LIMIT).strip().lower()
    except OSError:
        return directory.name == ident
    return text.removeprefix("0x") == ident


def slot_file(root: Path, record: LedRecord) -> Path | str | None:
    """The recorded slot's `locate` file, checked to still be that slot's, else why not; None
    when the record keeps no slot file."""
    if record.slot_path is None or record.enclosure is None:
        return None
    path = Path(record.slot_path)
    base = root / "sys/class/enclosure"
    parts = path.relative_to(base).parts if path.is_relative_to(base) else ()
    if len(parts) != 3 or parts[2] != "locate" or ".." in parts:
        return f"{path} is not an enclosure slot's locate file: not written"
    if not _enclosure_is(base / parts[0], record.enclosure):
        return f"{base / parts[0]} is no longer enclosure {record.enclosure}: not written"
    try:
        safeio.read_text_bounded(path, safeio.ATTR_LIMIT, follow=False)
    except safeio.UnsafeFileError as exc:
        return f"{exc}: not written"
    except OSError as exc:
        return f"{path}: {exc.strerror or exc}: not written"
    return path


def sg_device(root: Path, record: LedRecord) -> str | None:
    """Why the recorded sg device cannot be used, "" when it is still the recorded enclosure's,
    None when the record keeps no sg device and slot number."""
    if record.sg_device is None or record.slot_number is None or record.enclosure is None:
        return None
    path = Path(record.sg_device)
    if path.parent != root / "dev" or not _SG_NAME.match(path.name):
        return f"{path} is not a SCSI generic device: not addressed"
    holder = root / "sys/class/scsi_generic" / path.name / "device/enclosure"
    try:
        names = safeio.names(holder)
    except OSError:
        names = []
    if not any(_enclosure_is(holder / name, record.enclosure) for name in names):
        return f"{path} is no longer enclosure {record.enclosure}'s: not addressed"
    return ""


def unaddressed(record: LedRecord) -> str:
    """Why a record gives no address to put its LED out without the drive."""
    if record.method == LEDCTL:
        return (
            f"ledctl reaches an LED only through its drive ({record.dev}), and no enclosure "
            "slot of it is on record"
        )
    if record.method in ADDRESSED:
        return "its record keeps no slot address (written by an older nastui)"
    return f"nastui does not know the method {record.method!r}"


def hand_fix(record: LedRecord) -> str:
    """How to put the LED out by hand, from what the record says lit it."""
    if record.method == SES:
        old = record.target.rpartition(": ")[2] if record.slot_path is None else ""
        if old.endswith("/locate"):
            return f"write 0 to its slot file by hand: `echo 0 > {old}`"
        return "write 0 to the bay's slot file by hand (/sys/class/enclosure/*/SLOT/locate)"
    if record.method == SG_SES:
        if record.sg_device is None and record.target.startswith("sg_ses --dev-slot-num="):
            return f"run `{record.target.replace('--set=ident', '--clear=ident')}`"
        slot = "N" if record.slot_number is None else record.slot_number
        which = f"enclosure {record.enclosure}" if record.enclosure else "the bay's enclosure"
        return (
            f"run `sg_ses --dev-slot-num={slot} --clear=ident /dev/sgM` on {which} "
            "(`sg_ses --page=aes /dev/sgM` lists its slots)"
        )
    if record.method != LEDCTL:
        return CHECK
    return (
        "put a drive in the bay and run `nastui locate BAY --off`, or with ledmon 1.0 or later "
        "`ledctl --set-slot --controller-type=TYPE --slot=SLOT --state=locate_off` "
        "(`ledctl --list-slots --controller-type=TYPE` names the slot)"
    )


class EmptyBay:
    """Puts out the LEDs the records say were lit in a bay that no drive is in now."""

    def __init__(self, root: Path, run: RunFn, stop_blink: Callable[[str], None]) -> None:
        self._root = root
        self._run = run
        self._stop_blink = stop_blink  # stops this process's blink of a drive, if it blinks it

    async def put_out(self, record: LedRecord) -> Attempt:
        """Put out the LED `record` says was lit: what was done, or why not and the fix."""
        if record.method == BLINK:
            self._stop_blink(record.drive)
            return Attempt(True, "an activity blink needs its drive to read from: nothing lit")
        route = self._sg if record.method == SG_SES else self._file
        attempt = await route(record) if record.method in ADDRESSED else None
        if attempt is not None and attempt.ok:
            return attempt
        why = attempt.detail if attempt is not None else unaddressed(record)
        return Attempt(False, f"{record.method} lit its LED; {why}; {hand_fix(record)}")

    async def _file(self, record: LedRecord) -> Attempt | None:
        path = slot_file(self._root, record)
        if path is None or isinstance(path, str):
            return None if path is None else Attempt(False, path)
        if (why := write_locate(path, False)) is not None:
            return Attempt(False, why)
        return Attempt(True, f"SES slot of enclosure {record.enclosure}: {path}")

    async def _sg(self, record: LedRecord) -> Attempt | None:
        why = sg_device(self._root, record)
        if why is None or why:
            return None if why is None else Attempt(False, why)
        assert record.sg_device is not None and record.slot_number is not None
        argv = sg_ses_argv(record.sg_device, False, slot=record.slot_number, sas_address=None)
        return await run_tool(self._run, argv, "sg3-utils")
