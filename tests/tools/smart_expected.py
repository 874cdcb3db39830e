"""The identity a `smartctl -x`/`-a` text report states, read independently of nastui.

A deliberately plain reader for scoring (`tests/tools/smart_score.py`): it takes each field
straight from the line smartctl labels it with, and shares no code with `nastui.collectors`.

    model        `Device Model:` (ATA), `Model Number:` (NVMe), `Product:` (SCSI)
    serial       `Serial Number:` / `Serial number:`; a linuxhw redaction (`--`, dots) is None
    temperature  attribute 194, else 190 (raw value's first number, 1-127, smartctl's own
                 order), else SCT `Current Temperature:`, else NVMe `Temperature:`, else SCSI
                 `Current Drive Temperature:`
    hours        attribute 9 (first number of the raw value), else NVMe `Power On Hours:`,
                 else SCSI `Accumulated power on time, hours:minutes H:M`, else Seagate's
                 `number of hours powered up = H.hh`
    health       `SMART overall-health self-assessment test result: PASSED` (ATA, NVMe) or
                 `SMART Health Status: OK` (SCSI) is True, any other value False, no line None
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Sample: Device Model:     FUJITSU MHW2120BH
_LABEL = re.compile(r"^(Device Model|Model Number|Product|Serial [Nn]umber|Vendor):\s*(.*?)\s*$")
# Sample:   9 Power_On_Hours          -O--CK   055   055   000    -    22705
_ROW = re.compile(r"^\s*(\d{1,3})\s+(\S+)\s+(\S+)\s+(\d+|---)\s+(\d+|---)\s+(\d+|---)\s+(.*)$")
_INT = re.compile(r"\d+")


@dataclass(frozen=True)
class Expected:
    """What the report states, field by field (None: not stated)."""

    model: str | None
    serial: str | None
    temperature: int | None
    hours: int | None
    health: bool | None
    transport: str


def _raw(rest: str, flags: str) -> str:
    # -a layout: TYPE UPDATED WHEN_FAILED RAW; -x layout: FAIL RAW
    parts = rest.split()
    skip = 3 if flags.startswith("0x") else 1
    return " ".join(parts[skip:])


def _attributes(lines: list[str]) -> dict[int, tuple[str, str]]:
    table: dict[int, tuple[str, str]] = {}
    inside = False
    for line in lines:
        if line.startswith("ID#") and "ATTRIBUTE_NAME" in line:
            inside = True
            continue
        if inside:
            match = _ROW.match(line)
            if not match:
                break
            table[int(match.group(1))] = (match.group(2), _raw(match.group(7), match.group(3)))
    return table


def _first(text: str) -> int | None:
    # "1,315" and a localized "1 315" are both 1315
    match = _INT.search(re.sub(r"(?<=\d)[ ,\u00a0\u202f](?=\d{3}\b)", "", text))
    return int(match.group()) if match else None


def _after(lines: list[str], label: str) -> str | None:
    for line in lines:
        if line.startswith(label):
            return line[len(label) :].strip()
    return None


def _serial(value: str | None) -> str | None:
    if value is None or not value.strip() or set(value.strip()) <= {".", "-", " "}:
        return None
    return value.strip()


def _temperature(lines: list[str], attrs: dict[int, tuple[str, str]]) -> int | None:
    for attr_id in (194, 190):
        if attr_id in attrs and "Temp" in attrs[attr_id][0]:
            value = _first(attrs[attr_id][1])
            if value is not None and 0 < value < 128:
                return value
    for label in ("Current Temperature:", "Temperature:", "Current Drive Temperature:"):
        text = _after(lines, label)
        value = _first(text) if text else None
        if value:
            return value
    return None


def _hours(lines: list[str], attrs: dict[int, tuple[str, str]]) -> int | None:
    if 9 in attrs:
        return _first(attrs[9][1])
    for label in ("Power On Hours:", "Accumulated power on time, hours:minutes"):
        text = _after(lines, label)
        if text:
            return _first(text)
    for line in lines:
        if "number of hours powered up =" in line:
            return _first(line.split("=", 1)[1])
    return None


def _health(lines: list[str]) -> bool | None:
    for label, good in (
        ("SMART overall-health self-assessment test result:", "PASSED"),
        ("SMART Health Status:", "OK"),
    ):
        text = _after(lines, label)
        if text is not None:
            return text.split()[0] == good if text else False
    return None


def expected(text: str) -> Expected:
    """Read the five fields by their exact smartctl labels."""
    lines = text.splitlines()
    found: dict[str, str] = {}
    for line in lines:
        match = _LABEL.match(line)
        if match and match.group(1).lower() not in found:
            found[match.group(1).lower()] = match.group(2)
    model = found.get("device model") or found.get("model number") or found.get("product")
    transport = "nvme" if "model number" in found else ("scsi" if "product" in found else "ata")
    attrs = _attributes(lines)
    return Expected(
        model=model or None,
        serial=_serial(found.get("serial number")),
        temperature=_temperature(lines, attrs),
        hours=_hours(lines, attrs),
        health=_health(lines),
        transport=transport,
    )
