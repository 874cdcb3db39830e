"""`nastui bays`: the chassis as text, one table per face, drawn as the box is built.

Rows look like the lsidrivemap tool's, which the source NAS used:
    | sdr | sds | sdt | sdq |
    | 36  | 39  | 40  | 38  |
Pure functions from an assessed snapshot to lines of text or JSON-ready data.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from nastui.core.baystate import LOCATE_KEY, LOCATE_MARK, BayState, bay_state
from nastui.core.glyphs import Glyphs
from nastui.core.summary import temp_label
from nastui.model import BaySlot, Drive, Face, HostSnapshot, Side, Thresholds

_SIDE_TITLES = {
    Side.FRONT: "front",
    Side.REAR: "rear",
    Side.TOP: "top (seen from above, front edge first)",
}
_VIEW_TITLES = {
    "dev": "device names",
    "temp": "temperatures in °C (~ stale or asleep, ? unknown)",
    "health": "health",
    "serial": "serial numbers",
    "pool": "pool / vdev",
}
_STATE_SGR = {
    BayState.OK: "32",
    BayState.READING: "36",
    BayState.STANDBY: "34",
    BayState.EMPTY: "2",
    BayState.UNKNOWN: "35",
    BayState.WARNING: "33",
    BayState.MISSING: "1;31",
    BayState.CRITICAL: "1;37;41",
}


def legend(shown: Iterable[BayState]) -> str:
    """The health view's key to its labels (READING only when a bay shows it: a one-shot
    command reads SMART first, so only a read still running after its wait is one)."""
    present = set(shown)
    return "  ".join(
        f"{s.label}={s.name.lower()}" for s in BayState if s is not BayState.READING or s in present
    )


def _pool_text(snapshot: HostSnapshot, drive: Drive) -> str:
    found = snapshot.pool_of(drive.key)
    return f"{found[0].name}/{found[1]}" if found else "-"


def cell_text(view: str, snapshot: HostSnapshot, slot: BaySlot, limits: Thresholds) -> str:
    """What one bay shows in `view`."""
    drive = snapshot.drive(slot.drive) if slot.drive else None
    state = bay_state(slot, drive)
    if drive is None:
        return "MISSING" if state is BayState.MISSING else "-"
    if view == "temp":
        return temp_label(drive, snapshot.taken_at, limits)
    if view == "health":
        return state.label
    if view == "serial":
        return drive.identity.serial or "?"
    if view == "pool":
        return _pool_text(snapshot, drive)
    return drive.dev


def _paint(text: str, sgr: str | None) -> str:
    return f"\x1b[{sgr}m{text}\x1b[0m" if sgr else text


def face_lines(
    face: Face,
    cells: dict[int, str],
    paint: Callable[[int, str], str] | None = None,
    columns: range | None = None,
) -> list[str]:
    """Rows of one face (of its grid `columns`, default all): `| a | b |`, every cell padded
    to the widest of the face; holes left blank.

    The separators are always ASCII `|`, as lsidrivemap draws them: the table is for reading
    on any console and for grep and awk alike.
    """
    width = cell_width(cells)
    lines = []
    for row in range(face.rows):
        parts = []
        for col in columns or range(face.columns):
            bay = face.at(row, col)
            text = cells.get(bay.number, "-") if bay else ""
            padded = f" {text:<{width}} "
            parts.append(paint(bay.number, padded) if bay and paint else padded)
        lines.append("|" + "|".join(parts) + "|")
    return lines


def cell_width(cells: dict[int, str]) -> int:
    """The widest cell's text."""
    return max((len(t) for t in cells.values()), default=1)


def column_bands(columns: int, cell: int, width: int | None) -> list[range]:
    """The face's grid columns in as few bands of equal size as fit `width` terminal columns
    (cells of `cell` characters, `| x |`); one band when it fits, or with no width (a pipe)."""
    if width is None or 1 + columns * (cell + 3) <= width:
        return [range(columns)]
    fit = max(1, (width - 1) // (cell + 3))
    count = -(-columns // fit)
    size = -(-columns // count)
    return [range(start, min(start + size, columns)) for start in range(0, columns, size)]


def render_bays(
    snapshot: HostSnapshot,
    view: str,
    limits: Thresholds,
    glyphs: Glyphs,
    *,
    color: bool = False,
    width: int | None = None,
) -> str:
    """The whole chassis as text: a titled table per face (a bay whose locate LED is lit
    marked `LOCATE_MARK` after its text), the key to its marks, then drives in no bay. A face
    wider than `width` (a terminal's; None: any width, for a pipe) is drawn in bands of its
    columns, each titled."""
    chassis = snapshot.chassis
    if chassis is None:
        return ""
    lit = {s.bay for s in snapshot.slots if s.locate_lit}
    cells = {
        s.bay: cell_text(view, snapshot, s, limits) + (LOCATE_MARK if s.bay in lit else "")
        for s in snapshot.slots
    }
    states = {
        s.bay: bay_state(s, snapshot.drive(s.drive) if s.drive else None) for s in snapshot.slots
    }

    def paint(bay: int, text: str) -> str:
        return _paint(text, _STATE_SGR.get(states[bay]) if color and bay in states else None)

    out = [f"{snapshot.host}: {chassis.name}, {_VIEW_TITLES.get(view, view)}"]
    for face in chassis.faces:
        titled = len(chassis.faces) > 1 or face.side is not Side.FRONT
        bands = column_bands(face.columns, cell_width(cells), width)
        for band in bands:
            where = _SIDE_TITLES[face.side] if titled else ""
            if len(bands) > 1:
                part = f"columns {band.start + 1}-{band.stop} of {face.columns}"
                where = f"{where}, {part}" if where else part
            if where:
                out.append(f"{where}:")
            out += face_lines(face, cells, paint, band)
    keys = [legend(states.values())] if view == "health" else []
    if lit:
        keys.append(LOCATE_KEY)
    if keys:
        out.append("  ".join(keys))
    out += unplaced_lines(snapshot, view, limits)
    return ("\n".join(out) + "\n").replace("°", glyphs.degree or "")


def unplaced_lines(snapshot: HostSnapshot, view: str, limits: Thresholds) -> list[str]:
    """Drives in no bay (M.2 boot drives, unmapped disks), one per line."""
    lines = []
    for drive in snapshot.unplaced_drives:
        detail = {
            "temp": temp_label(drive, snapshot.taken_at, limits) + " °C",
            "health": drive.verdict.health.short,
            "serial": drive.identity.serial or "?",
            "pool": _pool_text(snapshot, drive),
        }.get(view, drive.identity.model or "")
        lines.append(f"  {drive.dev:<10} {detail}")
    return ["not in a bay:", *lines] if lines else []


def bay_entries(snapshot: HostSnapshot, limits: Thresholds) -> list[dict[str, Any]]:
    """One JSON-ready entry per bay, in bay order."""
    chassis = snapshot.chassis
    if chassis is None:
        return []
    entries = []
    for bay in chassis.bays:
        slot = snapshot.slot(bay.number) or BaySlot(bay.number, None)
        drive = snapshot.drive(slot.drive) if slot.drive else None
        entries.append(
            {
                "bay": bay.number,
                "side": bay.side.value,
                "row": bay.row,
                "column": bay.column,
                "state": bay_state(slot, drive).name,
                "expected": slot.expected,
                "led": slot.led.value,
                "mapped_by": slot.mapped_by.value if slot.mapped_by else None,
                "drive": drive_entry(snapshot, drive, limits) if drive else None,
            }
        )
    return entries


def drive_entry(snapshot: HostSnapshot, drive: Drive, limits: Thresholds) -> dict[str, Any]:
    """A drive as JSON-ready data: identity, temperature with age, health with reasons."""
    ident = drive.identity
    temp = drive.temperature
    found = snapshot.pool_of(drive.key)
    return {
        "dev": drive.dev,
        "model": ident.model,
        "serial": ident.serial,
        "wwn": ident.wwn,
        "firmware": ident.firmware,
        "capacity_bytes": ident.capacity_bytes,
        "transport": ident.transport.value,
        "rotational": ident.rotational,
        "power": drive.power.value,
        "temperature_c": temp.celsius if temp else None,
        "temperature_age_s": round(temp.age(snapshot.taken_at), 1) if temp else None,
        "health": drive.verdict.health.name,
        "reasons": [r.text for r in drive.verdict.reasons],
        "pool": found[0].name if found else None,
        "vdev": found[1] if found else None,
        "bay": snapshot.bay_of(drive.key),
    }
