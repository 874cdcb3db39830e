"""Bay numbering and drive-to-bay assignment (pure).

`build_chassis` turns face layouts into numbered bays; `assign_bays` decides which drive sits in
which bay from the configuration's bindings first and the collectors' automatic findings
(SES enclosure slots, controller tables) second.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

from nastui.model import (
    Bay,
    BayBinding,
    BaySlot,
    Chassis,
    ChassisLayout,
    Drive,
    Face,
    FaceLayout,
    LedState,
    MappedBy,
    Order,
    Origin,
)

_BY_ID_DIR = "/dev/disk/by-id/"
_BY_PATH_DIR = "/dev/disk/by-path/"


# Where an operator finds the annotated example every "add a table" message points to: the
# file ships inside the package, where nobody who installed a wheel would look for it.
EXAMPLE_HINT = "`nastui config init -` prints the annotated example"
NO_CHASSIS = (  # what a box without a [chassis] table is told, by `nastui bays` and the grid
    "no chassis configured: add a [chassis] table to the configuration (`nastui config init` "
    "writes the example with this box's drives ready to bind to bays)"
)


def _cells(layout: FaceLayout) -> Iterator[tuple[int, int]]:
    """Grid cells in numbering order (holes included)."""
    rows = range(layout.rows)
    cols = range(layout.columns)
    if layout.origin in (Origin.BOTTOM_LEFT, Origin.BOTTOM_RIGHT):
        rows = rows[::-1]
    if layout.origin in (Origin.TOP_RIGHT, Origin.BOTTOM_RIGHT):
        cols = cols[::-1]
    if layout.order is Order.ROWS:
        yield from ((r, c) for r in rows for c in cols)
    else:
        yield from ((r, c) for c in cols for r in rows)


def number_face(layout: FaceLayout) -> Face:
    """Number the bays of one face, skipping holes."""
    bays: list[Bay] = []
    for row, col in _cells(layout):
        if (row, col) in layout.holes:
            continue
        bays.append(Bay(layout.first + len(bays), layout.side, row, col))
    return Face(layout.side, layout.rows, layout.columns, tuple(bays))


def build_chassis(layout: ChassisLayout) -> Chassis:
    """Number every face of a chassis layout."""
    return Chassis(layout.name, layout.preset, tuple(number_face(f) for f in layout.faces))


def duplicate_bay_numbers(chassis: Chassis) -> list[int]:
    """Bay numbers used more than once across faces (a configuration mistake)."""
    seen: set[int] = set()
    dupes: list[int] = []
    for face in chassis.faces:
        for bay in face.bays:
            if bay.number in seen:
                dupes.append(bay.number)
            seen.add(bay.number)
    return dupes


def _strip(value: str, prefix: str) -> str:
    return value[len(prefix) :] if value.startswith(prefix) else value


def match_binding(
    binding: BayBinding, drive: Drive, enclosure_slots: Mapping[str, str]
) -> MappedBy | None:
    """How `binding` matches `drive`, or None when it does not."""
    ident = drive.identity
    if binding.serial and ident.serial and binding.serial.strip().lower() == ident.serial.lower():
        return MappedBy.SERIAL
    if binding.by_id and _strip(binding.by_id, _BY_ID_DIR) in drive.by_id:
        return MappedBy.BY_ID
    if binding.by_path and drive.by_path and _strip(binding.by_path, _BY_PATH_DIR) == drive.by_path:
        return MappedBy.BY_PATH
    if binding.enclosure and enclosure_slots.get(drive.key) == binding.enclosure:
        return MappedBy.ENCLOSURE
    return None


class _MatchIndex:
    """Which drives a binding could match, found by what it names instead of by trying every
    drive (a 102-bay box has 10,000 binding and drive pairs, asked every few seconds)."""

    def __init__(self, drives: tuple[Drive, ...], enclosure_slots: Mapping[str, str]) -> None:
        self._found: dict[tuple[str, str], list[int]] = {}
        for i, drive in enumerate(drives):
            if drive.identity.serial:
                self._add(("serial", drive.identity.serial.lower()), i)
            for name in drive.by_id:
                self._add(("by_id", name), i)
            if drive.by_path:
                self._add(("by_path", drive.by_path), i)
            if enclosure := enclosure_slots.get(drive.key):
                self._add(("enclosure", enclosure), i)

    def _add(self, key: tuple[str, str], i: int) -> None:
        self._found.setdefault(key, []).append(i)

    def candidates(self, binding: BayBinding) -> list[int]:
        """Indices of the drives `binding` names by any of its matchers, in ascending order
        (a superset of those `match_binding` accepts)."""
        keys = (
            ("serial", binding.serial.strip().lower() if binding.serial else ""),
            ("by_id", _strip(binding.by_id, _BY_ID_DIR) if binding.by_id else ""),
            ("by_path", _strip(binding.by_path, _BY_PATH_DIR) if binding.by_path else ""),
            ("enclosure", binding.enclosure or ""),
        )
        found = {i for key in keys if key[1] for i in self._found.get(key, ())}
        return sorted(found)


def assign_bays(
    chassis: Chassis,
    drives: Iterable[Drive],
    bindings: Iterable[BayBinding] = (),
    *,
    enclosure_slots: Mapping[str, str] | None = None,
    located: Mapping[str, tuple[int, MappedBy]] | None = None,
    empty_on_purpose: Iterable[int] = (),
    leds: Mapping[int, LedState] | None = None,
) -> tuple[BaySlot, ...]:
    """One slot per bay of `chassis`, with the drive found in it.

    Args:
        chassis: the numbered chassis.
        drives: every drive collected.
        bindings: the configuration's bay -> drive matchers; they win over automatic findings.
        enclosure_slots: `Drive.key` -> "ENCLOSURE:SLOT" from SES, for `enclosure` bindings.
        located: `Drive.key` -> (bay, how) found automatically (SES slot mapped to a bay,
            controller enclosure:slot tables); used for drives no binding placed.
        empty_on_purpose: bays the operator leaves empty (never reported missing).
        leds: bay -> LED state, where known.

    Returns:
        A `BaySlot` per bay in `chassis.bays` order. A bay with a binding is `expected` to hold
        a drive unless listed in `empty_on_purpose`.
    """
    drives = tuple(drives)
    slots_enc = enclosure_slots or {}
    bays = {b.number for b in chassis.bays}
    placed: dict[int, tuple[str, MappedBy]] = {}
    used: set[str] = set()
    expected: dict[int, str] = {}
    index = _MatchIndex(drives, slots_enc)
    for binding in bindings:
        if binding.bay not in bays:
            continue
        expected.setdefault(binding.bay, binding.describe)
        if binding.bay in placed:
            continue
        for i in index.candidates(binding):  # in the order drives were collected
            drive = drives[i]
            how = match_binding(binding, drive, slots_enc)
            if how is not None and drive.key not in used:
                placed[binding.bay] = (drive.key, how)
                used.add(drive.key)
                break
    for key, (bay, how) in (located or {}).items():
        if bay in bays and bay not in placed and key not in used:
            placed[bay] = (key, how)
            used.add(key)
    quiet = set(empty_on_purpose)
    led_map = leds or {}
    return tuple(
        BaySlot(
            bay=b.number,
            drive=placed[b.number][0] if b.number in placed else None,
            mapped_by=placed[b.number][1] if b.number in placed else None,
            expected=b.number in expected and b.number not in quiet,
            led=led_map.get(b.number, LedState.UNKNOWN),
            wanted=expected.get(b.number),
        )
        for b in chassis.bays
    )
