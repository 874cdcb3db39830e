"""The drive list (`D` on the dashboard and bays screens): every drive nastui knows, one line
each: those in bays, those in no bay (NVMe on the board, a USB disk) and the configured drives
that are missing. Enter opens a drive's detail; a missing one shows what its bay expects."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll

from nastui.core.baystate import BayState, bay_state, health_word
from nastui.core.summary import temp_label
from nastui.model import BaySlot, HostSnapshot, Thresholds
from nastui.ui.cells import CUT
from nastui.ui.render.style import HEALTH_STYLE
from nastui.ui.screens.base import NasScreen
from nastui.ui.screens.drive import DriveScreen, every_place
from nastui.ui.widgets.textpanel import TextPanel

Place = tuple[int | None, str | None]


def drive_rows(
    snapshot: HostSnapshot, limits: Thresholds, degree: str
) -> list[tuple[Place, BayState, list[str]]]:
    """Every place with a drive or an expected one: (place, state, fields: where, device,
    temperature, health, serial, model)."""
    rows: list[tuple[Place, BayState, list[str]]] = []
    for bay, key in every_place(snapshot):
        slot = snapshot.slot(bay) if bay is not None else None
        drive = snapshot.drive(key or (slot.drive if slot else None) or "")
        if drive is None:
            if slot is None or not slot.expected:
                continue
            state = bay_state(slot, None)
            rows.append(
                ((bay, None), state, [f"bay {bay}", "-", "", state.label, slot.wanted or "", ""])
            )
            continue
        where = f"bay {bay}" if bay is not None else "no bay"
        state = bay_state(slot or BaySlot(0, drive.key), drive)
        ident = drive.identity
        temp = temp_label(drive, snapshot.taken_at, limits, degree=degree)
        fields = [
            where,
            drive.dev,
            temp,
            health_word(drive),
            ident.serial or "?",
            ident.model or "?",
        ]
        rows.append(((bay, key), state, fields))
    return rows


def rows_text(rows: list[tuple[Place, BayState, list[str]]], selected: int, width: int) -> Text:
    """The rows as columns, the selected one marked `>`; the model column (last) gives way
    first, then the serial keeps its tail behind `~`: nothing else is ever cut."""
    widths = [max((len(f[i]) for _, _, f in rows), default=0) for i in range(6)]
    text = Text()
    for i, (_, state, fields) in enumerate(rows):
        mark = ">" if i == selected else " "
        head = f"{mark}{state.mark} " + " ".join(
            f.rjust(widths[n]) if n == 2 else f.ljust(widths[n]) for n, f in enumerate(fields[:4])
        )
        room = width - len(head) - 1
        serial, model = fields[4], fields[5]
        if len(serial) > room:
            serial = CUT + serial[len(serial) - max(1, room - 1) :] if room > 1 else ""
        rest = serial.ljust(min(widths[4], room))
        room -= len(rest) + 1
        if model and room >= 6:
            rest += " " + (model if len(model) <= room else model[: room - 1] + CUT)
        line = Text(f"{head} {rest}".rstrip())
        if i == selected:
            line.stylize("reverse")
        health = fields[3]
        for h, style in HEALTH_STYLE.items():
            if health == h.name:
                start = len(head) - len(fields[3].ljust(widths[3]))
                line.stylize(style, start, start + len(health))
        text.append_text(line)
        text.append("\n")
    text.rstrip()
    return text


class DrivesScreen(NasScreen):
    """Every drive nastui knows, in bays or not, and the missing ones."""

    SCREEN_NAME = "drives"
    KEYS = "up/dn drive  Enter detail  Esc back"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,backspace", "app.pop_screen", "back"),
        Binding("up,k", "move(-1)", "previous drive", show=False, priority=True),
        Binding("down,j", "move(1)", "next drive", show=False, priority=True),
        Binding("enter", "open", "drive detail", priority=True),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.selected = 0
        self._rows: list[tuple[Place, BayState, list[str]]] = []

    def compose_body(self) -> ComposeResult:
        with VerticalScroll(id="drives-scroll", classes="panel"):
            yield TextPanel(id="drives")

    def on_mount(self) -> None:
        super().on_mount()
        scroll = self.query_one("#drives-scroll", VerticalScroll)
        scroll.border_title = "every drive: in bays, in no bay, missing"
        scroll.focus()

    def show(self, snapshot: HostSnapshot) -> None:
        self._rows = drive_rows(snapshot, self.nas.limits, self.nas.glyphs.degree)
        self.selected = min(self.selected, max(0, len(self._rows) - 1))
        self._draw()

    def _draw(self) -> None:
        rows, selected = self._rows, self.selected
        self.query_one("#drives", TextPanel).show(lambda w: rows_text(rows, selected, w))

    def action_move(self, step: int) -> None:
        """Move the `>` cursor."""
        if self._rows:
            self.selected = max(0, min(len(self._rows) - 1, self.selected + step))
            self._draw()
            self.query_one("#drives-scroll", VerticalScroll).scroll_to(
                y=max(0, self.selected - 5), animate=False
            )

    def action_open(self) -> None:
        """Open the selected drive's detail."""
        if self._rows:
            bay, key = self._rows[self.selected][0]
            self.app.push_screen(
                DriveScreen(bay) if key is None or bay is not None else DriveScreen(key=key)
            )
