"""`nastui drives [--json]`: every drive with its bay, identity, power state, temperature and
verdict with reasons, and the count of standby wake-ups nastui caused (which must be 0); with
--json also each drive's swaps (of its bay or of itself, from `nastui swap log`).

    nano: 4 drives, 0 standby wake-ups caused by nastui
    BAY DEV   MODEL                 SERIAL          POWER    TEMP  HEALTH
      0 sdc   WDC WD40EFRX-68WT0N0  WD-WCC4E0000002 active   32 C  OK
      1 sda   WDC WD40EFRX-68WT0N0  WD-WCC4E0000000 standby  30~C  STBY
          ! Current_Pending_Sector 8 (+3 since first seen)
"""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from nastui import exits
from nastui.cli.baytable import drive_entry
from nastui.cli.command import glyphs_of, poll_once, write_json
from nastui.core.baystate import bay_state
from nastui.core.glyphs import Glyphs
from nastui.core.summary import temp_label
from nastui.model import BaySlot, Drive, Health, HostSnapshot, Reason, Thresholds
from nastui.session import Session
from nastui.swap.flow.status import swap_records
from nastui.swap.logic.codec import records_for
from nastui.swap.view import record_data

COLUMNS = ("BAY", "DEV", "MODEL", "SERIAL", "POWER", "TEMP", "HEALTH")


def add_arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    """--json."""
    parser.add_argument("--json", action="store_true", help="one JSON entry per drive")


def reason_mark(reason: Reason) -> str:
    """A reason's mark: ! warning or worse, = acknowledged, ? unknown."""
    if reason.acknowledged:
        return "="
    return "!" if reason.health.rank >= Health.WARNING.rank else "?"


def reason_lines(drive: Drive, indent: str) -> list[str]:
    """One line per finding of the drive's verdict."""
    return [f"{indent}{reason_mark(r)} {r.text}" for r in drive.verdict.reasons]


def wakeups_total(snapshot: HostSnapshot) -> int | None:
    """Standby wake-ups caused by nastui across the drives; None where not counted (simulator)."""
    counts = [d.wakeups for d in snapshot.drives if d.wakeups is not None]
    return sum(counts) if counts else None


def _row(snapshot: HostSnapshot, drive: Drive, limits: Thresholds, glyphs: Glyphs) -> list[str]:
    bay = snapshot.bay_of(drive.key)
    slot = snapshot.slot(bay) if bay is not None else None
    temp = temp_label(drive, snapshot.taken_at, limits, degree=f"{glyphs.degree}C")
    return [
        str(bay) if bay is not None else "-",
        drive.dev,
        drive.identity.model or "?",
        drive.identity.serial or "?",
        drive.power.value,
        temp,
        bay_state(slot or BaySlot(-1, drive.key), drive).label,
    ]


def render_drives(snapshot: HostSnapshot, limits: Thresholds, glyphs: Glyphs) -> str:
    """The drive list as text: a heading, a table, each drive's findings under it."""
    woken = wakeups_total(snapshot)
    head = f"{snapshot.host}: {len(snapshot.drives)} drives"
    if woken is not None:
        head += f", {woken} standby wake-ups caused by nastui"
    missing = missing_slots(snapshot)
    if missing:
        head += f"; {len(missing)} missing"
    rows = [_row(snapshot, d, limits, glyphs) for d in snapshot.drives]
    gone = [_missing_row(slot) for slot in missing]
    widths = [max(len(c), *(len(r[i]) for r in rows + gone)) for i, c in enumerate(COLUMNS)]
    lines = [head, _join(COLUMNS, widths)]
    for drive, row in zip(snapshot.drives, rows, strict=True):
        lines.append(_join(row, widths))
        lines += reason_lines(drive, " " * (widths[0] + 2))
    for row in gone:
        lines.append(_join(row, widths))
        lines.append(
            f"{' ' * (widths[0] + 2)}! configured drive not found: pulled, dead, or not"
            " detected by the controller"
        )
    host_errors = [e for e in snapshot.errors if e.source.startswith("smart")]
    lines += [f"{e.source}: {e.message}" for e in host_errors]
    return "\n".join(lines).replace("°", glyphs.degree) + "\n"


def missing_slots(snapshot: HostSnapshot) -> list[BaySlot]:
    """The bays the configuration expects a drive in that have none (`status` calls them
    CRITICAL): listed too, so every drive nastui knows of is on the list."""
    return [s for s in snapshot.slots if s.expected and s.drive is None]


def _missing_row(slot: BaySlot) -> list[str]:
    wanted = slot.wanted or "?"
    serial = wanted.removeprefix("serial ")
    return [str(slot.bay), "-", "-", serial, "missing", "-", bay_state(slot, None).label]


def _join(cells: tuple[str, ...] | list[str], widths: list[int]) -> str:
    first = f"{cells[0]:>{widths[0]}}"
    rest = [f"{c:<{w}}" for c, w in zip(cells[1:], widths[1:], strict=True)]
    return " ".join([first, *rest]).rstrip()


def drive_data(snapshot: HostSnapshot, drive: Drive, limits: Thresholds) -> dict[str, Any]:
    """One drive as JSON-ready data: `nastui bays --json`'s drive entry and the SMART details."""
    read_at = drive.smart_read_at
    return {
        **drive_entry(snapshot, drive, limits),
        "rpm": drive.identity.rpm,
        "power_on_hours": drive.power_on_hours,
        "temperature_source": drive.temperature.source.value if drive.temperature else None,
        "smart_passed": drive.smart_passed,
        "smart_read_age_s": round(snapshot.taken_at - read_at, 1) if read_at else None,
        "smart_problem": drive.smart_problem,
        "findings": [
            {
                "health": r.health.name,
                "text": r.text,
                "key": r.key,
                "value": r.value,
                "acknowledged": r.acknowledged,
            }
            for r in drive.verdict.reasons
        ],
        "wakeups": drive.wakeups,
        "enclosure_slot": drive.slot.ref if drive.slot else None,
        "by_id": list(drive.by_id),
        "by_path": drive.by_path,
        "by_vdev": drive.by_vdev,
        "partitions": list(drive.partitions),
        "holders": list(drive.holders),
    }


def _swaps(
    records: list[dict[str, Any]], snapshot: HostSnapshot, drive: Drive
) -> list[dict[str, Any]]:
    """The finished swaps of the drive's bay or of the drive itself (`nastui swap log`)."""
    found = records_for(records, snapshot.bay_of(drive.key), drive.identity.serial, snapshot.host)
    return [record_data(r) for r in found]


def drives_data(session: Session, snapshot: HostSnapshot) -> dict[str, Any]:
    """Everything `nastui drives --json` prints."""
    limits = session.config.thresholds
    records = swap_records(session)
    return {
        "host": snapshot.host,
        "wakeups": wakeups_total(snapshot),
        "drives": [
            {**drive_data(snapshot, d, limits), "swaps": _swaps(records, snapshot, d)}
            for d in snapshot.drives
        ],
        "missing": [{"bay": slot.bay, "wanted": slot.wanted} for slot in missing_slots(snapshot)],
        "errors": [{"source": e.source, "message": e.message} for e in snapshot.errors],
    }


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Collect once and list the drives."""
    session, snapshot = poll_once(args)
    if args.json:
        write_json(drives_data(session, snapshot), out)
        return exits.OK
    out.write(render_drives(snapshot, session.config.thresholds, glyphs_of(args, session)))
    return exits.OK
