"""`BayGrid`: the chassis drawn as the box is built, one cell per bay.

It renders through Textual's line API and repaints only the cells whose text or style changed,
so a temperature ticking in one bay writes a dozen bytes, not the whole grid: that keeps the
steady-state output small enough for a 115200-baud serial console.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from nastui.core.layout import NO_CHASSIS
from nastui.model import BaySlot, Chassis, HostSnapshot, Thresholds
from nastui.ui.cells import Cell, View, make_cell, rebuilding_drives
from nastui.ui.gridlayout import FACE_TITLES, GridGeometry, Line, layout_grid, neighbour

STATE_STYLES = ("OK", "READING", "STANDBY", "EMPTY", "UNKNOWN", "WARNING", "MISSING", "CRITICAL")
TEMP_STYLES = ("t-cold", "t-cool", "t-ok", "t-warm", "t-hot", "t-crit", "t-none")


@dataclass(frozen=True, slots=True)
class _Inputs:
    snapshot: HostSnapshot
    limits: Thresholds
    view: View
    degree: str


class BayGrid(ScrollView, can_focus=True):
    """The bay grid. Arrows or h/j/k/l move, Enter opens the drive, `v` cycles the view."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "baygrid--title",
        "baygrid--selected",
        "baygrid--dim",
        *(f"baygrid--{s}" for s in STATE_STYLES + TEMP_STYLES),
    }
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "move(0, -1)", "up", show=False),
        Binding("down,j", "move(0, 1)", "down", show=False),
        Binding("left,h", "move(-1, 0)", "left", show=False),
        Binding("right,l", "move(1, 0)", "right", show=False),
        Binding("enter", "open", "drive detail"),
        Binding("v", "cycle_view", "view"),
        Binding("L,i", "locate", "locate LED"),
    ]

    class Selected(Message):
        """The selection moved to `bay`."""

        def __init__(self, bay: int) -> None:
            super().__init__()
            self.bay = bay

    class Opened(Message):
        """Enter was pressed on `bay`."""

        def __init__(self, bay: int) -> None:
            super().__init__()
            self.bay = bay

    class LocateToggled(Message):
        """The locate key was pressed on `bay`."""

        def __init__(self, bay: int) -> None:
            super().__init__()
            self.bay = bay

    class ViewChanged(Message):
        """The view was cycled to `view`."""

        def __init__(self, view: View) -> None:
            super().__init__()
            self.view = view

    def __init__(self, *, tall: bool = True, id: str | None = None) -> None:
        super().__init__(id=id)
        self._tall = tall
        self._inputs: _Inputs | None = None
        self._chassis: Chassis | None = None
        self._geometry: GridGeometry | None = None
        self._cells: dict[int, Cell] = {}
        self._strips: dict[int, Strip] = {}
        self._filter = ""
        self._matches: frozenset[int] | None = None
        self.selected: int | None = None
        self.view = View.DEV

    # ------------------------------------------------------------------ data in
    def show(self, snapshot: HostSnapshot, limits: Thresholds, *, degree: str = "") -> None:
        """Draw `snapshot`; repaints only the cells that changed."""
        chassis = snapshot.chassis
        if chassis is None:
            if self._chassis is not None or self._inputs is None:
                self._chassis, self._geometry, self._inputs = None, None, None
                self._strips.clear()
                self.refresh(layout=True)
            return
        self._inputs = _Inputs(snapshot, limits, self.view, degree)
        if chassis != self._chassis:
            self._chassis = chassis
            self._relayout()
            if self.selected is None or chassis.bay(self.selected) is None:
                self.selected = chassis.bays[0].number if chassis.bays else None
        self._update_cells()

    def set_view(self, view: View) -> None:
        """Switch what every cell shows."""
        self.view = view
        if self._inputs is not None:
            inputs = self._inputs
            self._inputs = _Inputs(inputs.snapshot, inputs.limits, view, inputs.degree)
            self._update_cells()

    def set_filter(self, text: str) -> None:
        """Mark the bays whose device, serial or model contains `text` with `>` and dim the
        others."""
        self._filter = text.strip().lower()
        self._matches = self._match(self._filter) if self._filter else None
        self._strips.clear()
        self.refresh()

    @property
    def filter_text(self) -> str:
        """The active filter ("" when none)."""
        return self._filter

    def matches(self) -> list[int]:
        """Bays matching the current filter, in bay order (all bays when none)."""
        if self._matches is None:
            return sorted(self._cells)
        return sorted(self._matches)

    def select(self, bay: int) -> None:
        """Move the selection to `bay` and keep it in view."""
        if self._geometry is None or bay not in self._geometry.slots or bay == self.selected:
            return
        previous, self.selected = self.selected, bay
        for number in (previous, bay):
            if number is not None:
                self._refresh_cell(number)
        self._reveal(bay)
        self.post_message(self.Selected(bay))

    # ------------------------------------------------------------------ actions
    def action_move(self, dx: int, dy: int) -> None:
        """Move the selection."""
        if self._geometry is not None and self.selected is not None:
            self.select(neighbour(self._geometry, self.selected, dx, dy))

    def action_open(self) -> None:
        """Ask for the selected drive's detail."""
        if self.selected is not None:
            self.post_message(self.Opened(self.selected))

    def action_cycle_view(self) -> None:
        """Show the next view."""
        self.set_view(self.view.next())
        self.post_message(self.ViewChanged(self.view))

    def action_locate(self) -> None:
        """Ask for the selected bay's locate LED to be toggled."""
        if self.selected is not None:
            self.post_message(self.LocateToggled(self.selected))

    def on_click(self, event: events.Click) -> None:
        """A click selects the bay under the pointer; a double click opens it."""
        bay = self.bay_at(event.x, event.y)
        if bay is None:
            return
        self.select(bay)
        if event.chain >= 2:
            self.post_message(self.Opened(bay))

    def bay_at(self, x: int, y: int) -> int | None:
        """The bay drawn at widget coordinates (x, y), if any."""
        geometry = self._geometry
        if geometry is None:
            return None
        scroll_x, scroll_y = self.scroll_offset
        vx, vy = x + scroll_x, y + scroll_y
        for number, slot in geometry.slots.items():
            if (
                slot.x <= vx < slot.x + geometry.outer
                and slot.y <= vy < slot.y + geometry.cell_height
            ):
                return number
        return None

    # ------------------------------------------------------------------ layout
    def on_resize(self) -> None:
        self._relayout()

    def _relayout(self) -> None:
        if self._chassis is None:
            return
        width = max(self.scrollable_content_region.width, 8)
        self._geometry = layout_grid(self._chassis, width, tall=self._tall)
        self.virtual_size = Size(self._geometry.width, self._geometry.height)
        self._strips.clear()
        self.refresh()

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """The grid's full height at `width` (for `height: auto`)."""
        if self._chassis is None:
            return len(_hint_lines(width))
        return layout_grid(self._chassis, width, tall=self._tall).height

    def _update_cells(self) -> None:
        inputs = self._inputs
        if inputs is None or self._geometry is None:
            return
        snap = inputs.snapshot
        drives = {d.key: d for d in snap.drives}
        onto = rebuilding_drives(snap)
        for slot in snap.slots:
            drive = drives.get(slot.drive) if slot.drive else None
            cell = make_cell(
                snap, slot, drive, inputs.view, inputs.limits, degree=inputs.degree, rebuilding=onto
            )
            before = self._cells.get(slot.bay)
            self._cells[slot.bay] = cell
            if before is None or before.style != cell.style:
                self._refresh_cell(slot.bay)
            elif before != cell:
                self._refresh_cell(slot.bay, self._changed_lines(before, cell))
        if self._filter:
            matches = self._match(self._filter)
            if matches != self._matches:
                self._matches = matches
                self._strips.clear()
                self.refresh()

    def _match(self, text: str) -> frozenset[int]:
        if self._inputs is None:
            return frozenset()
        snap = self._inputs.snapshot
        found = set()
        for slot in snap.slots:
            drive = snap.drive(slot.drive) if slot.drive else None
            if drive is None:
                continue
            ident = drive.identity
            haystack = " ".join(p for p in (drive.dev, ident.serial, ident.model) if p).lower()
            if text in haystack:
                found.add(slot.bay)
        return frozenset(found)

    def _changed_lines(self, before: Cell, after: Cell) -> tuple[int, ...]:
        """The lines of a cell whose drawn text differs (compared as drawn: a value the cell
        is too narrow or too short to show does not count)."""
        geometry = self._geometry
        if geometry is None:
            return ()
        return tuple(
            sub
            for sub in range(geometry.cell_height)
            if self._drawn(before, sub, geometry) != self._drawn(after, sub, geometry)
        )

    @classmethod
    def _drawn(cls, cell: Cell, sub: int, geometry: GridGeometry) -> str:
        width = geometry.cell_width
        return cls._cell_text(cell, sub, geometry)[:width].ljust(width)

    def _refresh_cell(self, bay: int, subs: tuple[int, ...] | None = None) -> None:
        """Repaint bay `bay`: every line of its cell, or only the lines `subs`."""
        geometry = self._geometry
        if geometry is None or bay not in geometry.slots:
            return
        slot = geometry.slots[bay]
        scroll_x, scroll_y = self.scroll_offset
        for sub in range(geometry.cell_height) if subs is None else subs:
            self._strips.pop(slot.y + sub, None)
            self.refresh(Region(slot.x - scroll_x, slot.y + sub - scroll_y, geometry.outer, 1))

    def _reveal(self, bay: int) -> None:
        geometry = self._geometry
        if geometry is None:
            return
        slot = geometry.slots[bay]
        region = Region(slot.x, slot.y, geometry.outer, geometry.cell_height)
        self.scroll_to_region(region, animate=False, immediate=True)

    # ------------------------------------------------------------------ drawing
    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        virtual_y = y + scroll_y
        strip = self._strips.get(virtual_y)
        if strip is None:
            strip = self._build_line(virtual_y)
            self._strips[virtual_y] = strip
        return strip.crop_extend(scroll_x, scroll_x + self.size.width, self.rich_style)

    def _build_line(self, y: int) -> Strip:
        geometry, chassis = self._geometry, self._chassis
        if chassis is None:
            hint = _hint_lines(self.size.width)
            text = hint[y] if 0 <= y < len(hint) else ""
            return Strip([Segment(text, self.get_component_rich_style("baygrid--dim"))])
        if geometry is None or not 0 <= y < len(geometry.lines):
            return Strip.blank(self.size.width, self.rich_style)
        line = geometry.lines[y]
        face = chassis.faces[line.face]
        if line.kind == "title":
            title = FACE_TITLES[face.side]
            return Strip([Segment(title, self.get_component_rich_style("baygrid--title"))])
        if line.kind == "blank":
            return Strip.blank(geometry.width, self.rich_style)
        return Strip(self._cell_segments(line, geometry)).simplify()

    def _cell_segments(self, line: Line, geometry: GridGeometry) -> list[Segment]:
        assert self._chassis is not None
        face = self._chassis.faces[line.face]
        width = geometry.cell_width
        segments: list[Segment] = []
        for column in range(face.columns):
            bay = face.at(line.row, column)
            cell = self._cells.get(bay.number) if bay else None
            if bay is None or cell is None:
                segments.append(Segment(" " * geometry.outer))
                continue
            text = self._cell_text(cell, line.sub, geometry)
            selected = bay.number == self.selected
            left, right = ("[", "]") if selected else (" ", " ")
            if not selected and self._matches is not None and bay.number in self._matches:
                left = ">"  # a filter match, marked: colour is never the only signal
            segments.append(Segment(left + text[:width].ljust(width) + right, self._style(cell)))
        return segments

    @staticmethod
    def _cell_text(cell: Cell, sub: int, geometry: GridGeometry) -> str:
        lines = cell.lines(geometry.cell_width, geometry.cell_height)
        return lines[sub] if sub < len(lines) else ""

    def _style(self, cell: Cell) -> Style:
        style = self.get_component_rich_style(f"baygrid--{cell.style}", partial=True)
        if self._matches is not None and cell.bay not in self._matches:
            style = self.get_component_rich_style("baygrid--dim", partial=True)
        if cell.bay == self.selected:
            style += self.get_component_rich_style("baygrid--selected", partial=True)
        return self.rich_style + style

    def selected_slot(self) -> BaySlot | None:
        """The snapshot's slot record for the selected bay."""
        if self._inputs is None or self.selected is None:
            return None
        return self._inputs.snapshot.slot(self.selected)


def _hint_lines(width: int) -> list[str]:
    """What the grid shows of a box without a chassis: how to describe one, and where its
    drives are meanwhile, wrapped to `width`."""
    return textwrap.wrap(f"{NO_CHASSIS}; D lists the drives", max(width, 20))
