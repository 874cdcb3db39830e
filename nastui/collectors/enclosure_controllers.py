"""Enclosure:slot tables from RAID/HBA controller tools, where they are installed: Broadcom's
`storcli`/`storcli64` (JSON) and LSI's `sas2ircu`/`sas3ircu` (text). Each names the slot of
every drive it sees by serial number, which is how nastui matches them to drives.

Tools that are not installed cost nothing (the runner answers "not found" without starting a
process) and say nothing: they are optional. Parsers are pure and raise `ParseError`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

from nastui.collectors.runner import CommandResult
from nastui.collectors.smart.reading import clean
from nastui.model import EnclosureSlot
from nastui.model.errors import ParseError

RunFn = Callable[..., Awaitable[CommandResult]]
STORCLI = ("storcli64", "storcli")
IRCU = ("sas3ircu", "sas2ircu")

# Sample: Drive /c0/e252/s3 Device attributes          (or "Drive /c0/s3 ..." without enclosure)
_STORCLI_DRIVE = re.compile(r"^Drive /c(?P<c>\d+)(?:/e(?P<e>\d+))?/s(?P<s>\d+) Device attributes$")
# Sample:    0     SAS2008     1000h    72h   00h:05h:00h:00h      1028h   1f1eh
_IRCU_ADAPTER = re.compile(r"^\s*(?P<index>\d+)\s+SAS\w+\s")
# Sample: Device is a Hard disk        ("Device is a Enclosure services device" is not a drive)
_IRCU_DEVICE = re.compile(r"^Device is a (?P<kind>.+?)\s*$")
# Sample:   Enclosure #                             : 1
_IRCU_FIELD = re.compile(r"^\s+(?P<key>[^:]+?)\s*:\s*(?P<value>.*?)\s*$")


def storcli_argv(tool: str) -> tuple[str, ...]:
    """Every drive on every controller, with serial numbers, as JSON."""
    return (tool, "/call/eall/sall", "show", "all", "J")


def parse_storcli(text: str, tool: str = "storcli") -> dict[str, EnclosureSlot]:
    """Serial -> slot from `storcli /call/eall/sall show all J`.

    Raises:
        ParseError: not storcli JSON.
    """
    source = f"{tool} /call/eall/sall show all J"
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ParseError(source, f"not valid JSON ({exc})") from exc
    controllers = data.get("Controllers") if isinstance(data, dict) else None
    if not isinstance(controllers, list):
        raise ParseError(source, 'no "Controllers" list')
    found: dict[str, EnclosureSlot] = {}
    for controller in controllers:
        response = controller.get("Response Data") if isinstance(controller, dict) else None
        for key, attrs in _storcli_drives(response):
            serial = clean(attrs.get("SN"))
            if serial:
                enclosure = f"{key['e']}" if key["e"] is not None else f"c{key['c']}"
                found[serial] = EnclosureSlot(enclosure, int(key["s"]), "storcli")
    return found


def _storcli_drives(response: Any) -> Iterator[tuple[re.Match[str], dict[str, Any]]]:
    if not isinstance(response, dict):
        return
    for name, section in response.items():
        if not isinstance(section, dict):
            continue
        for inner, attrs in section.items():
            match = _STORCLI_DRIVE.match(str(inner))
            if match and isinstance(attrs, dict):
                yield match, attrs
        match = _STORCLI_DRIVE.match(str(name))
        if match:
            yield match, section


def parse_ircu_list(text: str) -> list[int]:
    """Controller indexes from `sas2ircu LIST` / `sas3ircu LIST`."""
    return [int(m["index"]) for m in map(_IRCU_ADAPTER.match, text.splitlines()) if m]


def parse_ircu_display(
    text: str, tool: str = "sas3ircu", index: int = 0
) -> dict[str, EnclosureSlot]:
    """Serial -> slot from `sas2ircu N DISPLAY` / `sas3ircu N DISPLAY` (drives only).

    Raises:
        ParseError: no "Physical device information" section.
    """
    if "Physical device information" not in text:
        raise ParseError(f"{tool} {index} DISPLAY", 'no "Physical device information" section')
    found: dict[str, EnclosureSlot] = {}
    for block in _ircu_blocks(text):
        serial = clean(block.get("Serial No")) or clean(block.get("Unit Serial No(VPD)"))
        enclosure, slot = block.get("Enclosure #"), block.get("Slot #")
        if serial and enclosure and slot and slot.isdigit():
            name = enclosure if index == 0 else f"c{index}.{enclosure}"
            found[serial] = EnclosureSlot(name, int(slot), tool)
    return found


def _ircu_blocks(text: str) -> Iterator[dict[str, str]]:
    block: dict[str, str] | None = None
    for line in text.splitlines():
        device = _IRCU_DEVICE.match(line)
        if device:
            if block is not None:
                yield block
            block = {} if "hard disk" in device["kind"].lower() else None
            continue
        field = _IRCU_FIELD.match(line)
        if field and block is not None:
            block[field["key"]] = field["value"]
        elif line.startswith("---") and block is not None:
            yield block
            block = None
    if block is not None:
        yield block


async def _storcli_slots(run: RunFn, timeout: float) -> dict[str, EnclosureSlot]:
    for tool in STORCLI:
        result = await run(storcli_argv(tool), timeout=timeout)
        if result.not_found:
            continue
        try:
            return parse_storcli(result.stdout, tool)
        except ParseError:
            return {}
    return {}


async def _ircu_slots(run: RunFn, timeout: float) -> dict[str, EnclosureSlot]:
    found: dict[str, EnclosureSlot] = {}
    for tool in IRCU:
        listing = await run((tool, "LIST"), timeout=timeout)
        if listing.not_found:
            continue
        for index in parse_ircu_list(listing.stdout):
            shown = await run((tool, str(index), "DISPLAY"), timeout=timeout)
            try:
                found.update(parse_ircu_display(shown.stdout, tool, index))
            except ParseError:
                continue
    return found


async def controller_slots(run: RunFn, timeout: float) -> dict[str, EnclosureSlot]:
    """Serial -> slot from whichever controller tools are installed (none: empty)."""
    return {**await _ircu_slots(run, timeout), **await _storcli_slots(run, timeout)}
