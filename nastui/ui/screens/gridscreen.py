"""Behaviour shared by the screens that show the bay grid: opening a drive, the locate key, the
`/` filter and the line about the selected bay."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Input

from nastui.model import HostSnapshot
from nastui.ui.cells import selected_summary
from nastui.ui.screens.base import NasScreen
from nastui.ui.widgets.baygrid import BayGrid
from nastui.ui.widgets.textpanel import TextPanel


class GridScreen(NasScreen):
    """A screen with a `BayGrid` (id "grid"), a "selected" line and a filter input."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "start_filter", "filter"),
        Binding("w", "swap", "swap the selected bay's drive"),
        Binding("escape", "clear_filter", "clear filter", show=False),
        Binding("D", "drives", "every drive"),
    ]
    GRID_PANEL = "#grid-panel"
    PAUSE_WHEN_COVERED = True

    def compose_filter(self) -> ComposeResult:
        """The filter input (hidden until `/`) and the selected-bay line."""
        yield TextPanel(id="selected", classes="chrome")
        yield Input(placeholder="filter: serial, model or device", id="filter", classes="-hidden")

    @property
    def grid(self) -> BayGrid:
        """The screen's bay grid."""
        return self.query_one("#grid", BayGrid)

    def on_mount(self) -> None:
        super().on_mount()
        self.grid.focus()
        self._title_grid()

    def show(self, snapshot: HostSnapshot) -> None:
        self.grid.show(snapshot, self.nas.limits, degree=self.nas.glyphs.degree)
        self._show_selected()
        self._title_grid()

    def _show_selected(self) -> None:
        slot = self.grid.selected_slot()
        snapshot = self.nas.snapshot
        if slot is None or snapshot is None:
            return
        limits, degree = self.nas.limits, self.nas.glyphs.degree
        self.query_one("#selected", TextPanel).show(
            lambda w: Text(selected_summary(snapshot, slot, limits, degree=degree, width=w))
        )

    def _title_grid(self) -> None:
        panel = self.query_one(self.GRID_PANEL)
        snapshot = self.nas.snapshot
        bayed = {s.drive for s in snapshot.slots if s.drive} if snapshot else set()
        loose = [d for d in snapshot.drives if d.key not in bayed] if snapshot else []
        # Drives in no bay (NVMe on the board) are not in the grid: say so, and where they are.
        extra = f" (+{len(loose)} in no bay: D)" if loose else ""
        title = f"bays: {self.grid.view.heading}{extra}"
        if panel.border_title != title:
            panel.border_title = title

    def action_drives(self) -> None:
        """Every drive nastui knows, those in no bay and the missing ones too."""
        from nastui.ui.screens.drives import DrivesScreen  # loaded when first opened

        self.app.push_screen(DrivesScreen())

    # ---------------------------------------------------------------- grid messages
    def on_bay_grid_selected(self, message: BayGrid.Selected) -> None:
        self._show_selected()

    def on_bay_grid_view_changed(self, message: BayGrid.ViewChanged) -> None:
        self._title_grid()

    def on_bay_grid_opened(self, message: BayGrid.Opened) -> None:
        from nastui.ui.screens.drive import DriveScreen  # loaded when first opened

        self.app.push_screen(DriveScreen(message.bay))

    async def on_bay_grid_locate_toggled(self, message: BayGrid.LocateToggled) -> None:
        await self.nas.toggle_locate(message.bay)

    def action_swap(self) -> None:
        """Open the swap screen for the selected bay."""
        slot = self.grid.selected_slot()
        if slot is not None:
            from nastui.ui.screens.swap import SwapScreen  # the swap's code, when first opened

            self.app.push_screen(SwapScreen(slot.bay))

    # ---------------------------------------------------------------- filter
    def action_start_filter(self) -> None:
        """Show the filter input."""
        box = self.query_one("#filter", Input)
        box.remove_class("-hidden")
        box.focus()

    def action_clear_filter(self) -> None:
        """Clear and hide the filter."""
        box = self.query_one("#filter", Input)
        box.value = ""
        box.add_class("-hidden")
        self.grid.set_filter("")
        self.grid.focus()
        self.refresh_title()

    def on_input_changed(self, event: Input.Changed) -> None:
        self.grid.set_filter(event.value)
        self.refresh_title()

    def title_note(self) -> str:
        """The active filter and its match count, until Esc clears it."""
        text = self.grid.filter_text
        if not text:
            return ""
        count = len(self.grid.matches())
        return f"/{text}: {count} match{'' if count == 1 else 'es'}"

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.input.add_class("-hidden")
        matches = self.grid.matches()
        if event.value.strip() and matches:
            self.grid.select(matches[0])
        elif event.value.strip():
            self.notify(f"no bay matches {event.value.strip()!r}", severity="warning")
        self.grid.focus()
