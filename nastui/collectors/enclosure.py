"""SES enclosure slots from the kernel: /sys/class/enclosure (the `ses` driver).

Each enclosure (a SAS expander backplane, an SGPIO enclosure) lists its components; a drive
slot's `device` link points at the SCSI device of the drive in it, so a drive is found in its
slot by resolving links, never by guessing from names. Reading these files sends nothing to a
drive. The slot's `locate` and `fault` files give the LED states; nastui writes `locate` only
through `nastui.control.locate_rungs.write_locate` (the locate ladder's, and an empty bay's by
its record in `nastui.control.locate_empty`).

Sample (kernel 6.1, LSI SAS3 expander backplane):
    /sys/class/enclosure/0:0:24:0 -> ../../devices/.../0:0:24:0/enclosure/0:0:24:0
    /sys/class/enclosure/0:0:24:0/id                  0x500304801f3ae07f
    /sys/class/enclosure/0:0:24:0/components          24
    /sys/class/enclosure/0:0:24:0/device/scsi_generic/sg24
    /sys/class/enclosure/0:0:24:0/Slot03/slot         3
    /sys/class/enclosure/0:0:24:0/Slot03/locate       0
    /sys/class/enclosure/0:0:24:0/Slot03/fault        0
    /sys/class/enclosure/0:0:24:0/Slot03/device -> ../../../../port-0:0:3/end_device-0:0:3/
                                                     target0:0:3/0:0:3:0
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from nastui.collectors.sysfs import list_names, read_int, read_text, resolved
from nastui.model import EnclosureSlot, LedState

# Sample: 0x500304801f3ae07f
_ID = re.compile(r"^(?:0x)?(?P<hex>[0-9a-fA-F]+)$")
# Sample: Slot03   SLOT 04   Disk001   7
_NUMBER_IN_NAME = re.compile(r"(\d+)\s*$")


@dataclass(frozen=True, slots=True)
class SesSlot:
    """One drive slot of an SES enclosure.

    Attributes:
        slot: where it is, as the model records it (enclosure id, slot number, locate file).
        device: the resolved sysfs path of the SCSI device in the slot, if any.
        locate: the locate LED is lit (None when unreadable).
        fault: the fault LED is lit (None when unreadable).
    """

    slot: EnclosureSlot
    device: Path | None
    locate: bool | None
    fault: bool | None

    @property
    def led(self) -> LedState:
        """The slot's LED as one state: locate wins over fault (it is what an operator set)."""
        if self.locate:
            return LedState.LOCATE
        if self.fault:
            return LedState.FAULT
        if self.locate is None and self.fault is None:
            return LedState.UNKNOWN
        return LedState.OFF


def _flag(path: Path) -> bool | None:
    value = read_int(path)
    return None if value is None else value != 0


def enclosure_id(directory: Path) -> str:
    """An enclosure's logical id ("500304801f3ae07f"), or its directory name without one."""
    match = _ID.match(read_text(directory / "id") or "")
    return match["hex"].lower() if match else directory.name


def _sg_device(root: Path, directory: Path) -> str | None:
    names = list_names(directory / "device/scsi_generic")
    return str(root / "dev" / names[0]) if names else None


def _is_component(path: Path) -> bool:
    return path.is_dir() and not path.is_symlink() and (path / "locate").exists()


def _slot_number(component: Path, index: int) -> int:
    number = read_int(component / "slot")
    if number is not None and number >= 0:
        return number
    match = _NUMBER_IN_NAME.search(component.name)
    return int(match.group(1)) if match else index


def _enclosure_slots(root: Path, directory: Path) -> list[SesSlot]:
    ident = enclosure_id(directory)
    sg = _sg_device(root, directory)
    components = [p for p in (directory / n for n in list_names(directory)) if _is_component(p)]
    slots = []
    for index, component in enumerate(components):
        slot = EnclosureSlot(
            enclosure=ident,
            slot=_slot_number(component, index),
            source="ses",
            name=component.name,
            locate_path=str(component / "locate"),
            sg_device=sg,
        )
        slots.append(
            SesSlot(
                slot,
                resolved(component / "device"),
                _flag(component / "locate"),
                _flag(component / "fault"),
            )
        )
    return slots


def ses_slots(root: Path = Path("/")) -> list[SesSlot]:
    """Every drive slot of every SES enclosure under `root`, enclosure by enclosure."""
    base = root / "sys/class/enclosure"
    enclosures = [base / name for name in list_names(base)]
    return [s for directory in enclosures for s in _enclosure_slots(root, directory)]


def slots_by_dev(root: Path, slots: Iterable[SesSlot], devs: Iterable[str]) -> dict[str, SesSlot]:
    """Device name -> the slot holding it, matched by the resolved SCSI device path."""
    by_device = {s.device: s for s in slots if s.device is not None}
    found = {}
    for dev in devs:
        device = resolved(root / "sys/block" / dev / "device")
        if device is not None and device in by_device:
            found[dev] = by_device[device]
    return found


def single_enclosure(slots: Mapping[str, EnclosureSlot]) -> bool:
    """All located slots are in one enclosure: its slot numbers can stand for bay numbers."""
    return len({(s.source, s.enclosure) for s in slots.values()}) == 1
