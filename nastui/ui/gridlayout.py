"""Where each bay cell goes on screen, for any chassis in any width (pure).

Cells shrink to fit the width (down to 3 characters: a mark and two digits) and drop to one line
each when narrow, so a 4-bay desktop and a 102-bay top-loader both fit; what still does not fit
vertically scrolls. Each cell has a column either side for the selection brackets.
"""

from __future__ import annotations

from dataclasses import dataclass

from nastui.model import Chassis, Side

MAX_CELL = 20  # room for a whole serial or pool/vdev when the screen has it
MIN_CELL = 3
TALL_MIN_WIDTH = 5  # two-line cells need room for "+ 12" on the first line

FACE_TITLES = {
    Side.FRONT: "front",
    Side.REAR: "rear",
    Side.TOP: "top, seen from above (front edge first)",
}


@dataclass(frozen=True, slots=True)
class Slot:
    """A bay's place: (face index, row, column) on the grid and its rectangle on screen."""

    face: int
    row: int
    column: int
    x: int
    y: int


@dataclass(frozen=True, slots=True)
class Line:
    """What one screen line of the grid holds: a face title, blank, or a sub-line of a cell row."""

    kind: str  # "title", "blank" or "cells"
    face: int
    row: int = 0
    sub: int = 0


@dataclass(frozen=True, slots=True)
class GridGeometry:
    """The grid laid out for one width.

    Attributes:
        cell_width: characters of text per cell (brackets not counted).
        cell_height: lines per cell (1 or 2).
        lines: every virtual line, top to bottom.
        slots: bay number -> place.
        width, height: the whole grid's size in cells.
    """

    cell_width: int
    cell_height: int
    lines: tuple[Line, ...]
    slots: dict[int, Slot]
    width: int
    height: int

    @property
    def outer(self) -> int:
        """A cell's width including its bracket columns."""
        return self.cell_width + 2


def layout_grid(chassis: Chassis, width: int, *, tall: bool = True) -> GridGeometry:
    """Lay the chassis out in `width` columns of characters.

    Args:
        chassis: the numbered chassis.
        width: available width.
        tall: allow two-line cells when the width allows them.
    """
    columns = max((f.columns for f in chassis.faces), default=1)
    cell_width = max(MIN_CELL, min(MAX_CELL, width // columns - 2))
    cell_height = 2 if tall and cell_width >= TALL_MIN_WIDTH else 1
    titled = len(chassis.faces) > 1 or any(f.side is not Side.FRONT for f in chassis.faces)
    lines: list[Line] = []
    slots: dict[int, Slot] = {}
    for index, face in enumerate(chassis.faces):
        if index:
            lines.append(Line("blank", index))
        if titled:
            lines.append(Line("title", index))
        for row in range(face.rows):
            for sub in range(cell_height):
                if sub == 0:
                    for bay in face.bays:
                        if bay.row == row:
                            x = bay.column * (cell_width + 2)
                            slots[bay.number] = Slot(index, row, bay.column, x, len(lines))
                lines.append(Line("cells", index, row, sub))
    return GridGeometry(
        cell_width,
        cell_height,
        tuple(lines),
        slots,
        columns * (cell_width + 2),
        len(lines),
    )


def neighbour(geometry: GridGeometry, bay: int, dx: int, dy: int) -> int:
    """The bay reached from `bay` by one step (dx, dy); `bay` itself at an edge.

    Left/right stay in the row; up/down move by rows and carry on into the next face, landing on
    the nearest column; holes are stepped over.
    """
    here = geometry.slots.get(bay)
    if here is None:
        return bay
    if dx:
        same_row = [
            (s.column, b)
            for b, s in geometry.slots.items()
            if s.face == here.face and s.row == here.row and (s.column - here.column) * dx > 0
        ]
        return min(same_row, key=lambda p: abs(p[0] - here.column))[1] if same_row else bay
    rows = sorted({(s.face, s.row) for s in geometry.slots.values()})
    position = rows.index((here.face, here.row)) + dy
    if not 0 <= position < len(rows):
        return bay
    face, row = rows[position]
    candidates = [
        (abs(s.column - here.column), b)
        for b, s in geometry.slots.items()
        if s.face == face and s.row == row
    ]
    return min(candidates)[1]
