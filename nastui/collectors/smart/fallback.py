"""What is kept when pySMART cannot read a report, and the notes for what nastui left out.

Degrade, never drop: a report pySMART raises on still gives the drive its identity, health,
temperature, power-on hours and error log, read by smartctl's labels (`labels`), with a note
naming why the rest is missing; an attribute row nastui could not read is left out of what
pySMART sees and named in a note.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from nastui.collectors.smart import labels
from nastui.collectors.smart import text as smart_text
from nastui.collectors.smart.errorlog import errors_from_lines
from nastui.collectors.smart.reading import SmartReading
from nastui.model import DriveIdentity


def labels_only(lines: Sequence[str], interface: str, source: str, why: str) -> SmartReading:
    """What the labelled lines say, for a report pySMART could not read: the drive is kept
    (identity, health, temperature, power-on hours), and a note names what was not read."""
    identity = DriveIdentity(
        model=labels.model(lines),
        serial=labels.serial(lines),
        wwn=smart_text.wwn(lines),
        transport=labels.transport(lines, interface),
    )
    hours = labels.nvme_power_on_hours(lines) or labels.scsi_power_on_hours(lines)
    return SmartReading(
        source=source,
        identity=identity,
        power=smart_text.power_state(lines),
        temperature_c=labels.temperature(lines, ()),
        smart_passed=smart_text.overall_assessment(lines),
        power_on_hours=hours,
        version=smart_text.version(lines),
        notes=(f"{why}: only identity, health, temperature and the error log were read",),
        ata_errors=errors_from_lines(lines),
        attributes_missing=interface == "sat",
    )


def with_unread(reading: SmartReading, unread: Sequence[str]) -> SmartReading:
    """`reading` with one note naming the first attribute row that was not understood."""
    if not unread:
        return reading
    more = f" (and {len(unread) - 1} more)" if len(unread) > 1 else ""
    note = f"attribute row not understood, left out: {unread[0].strip()!r}{more}"
    return dataclasses.replace(reading, notes=(*reading.notes, note))
