"""The drive detail screen (Enter on a bay): everything known about the drive in that bay,
following new snapshots while open, with its temperature over the last day and the SMART
counter changes the daemon's history kept."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll

from nastui.control import acks
from nastui.control.statefile import StateError
from nastui.core.ack import ackable
from nastui.history.db import HistoryError
from nastui.history.record import CounterChange
from nastui.model import Drive, HostSnapshot
from nastui.ui.render.drive import (
    attributes_text,
    counters_text,
    identity_text,
    self_tests_text,
    state_text,
)
from nastui.ui.render.trend import NO_HISTORY, drive_trend_text
from nastui.ui.screens.base import NasScreen
from nastui.ui.screens.swap import SwapScreen
from nastui.ui.widgets.textpanel import TextPanel

SECTIONS = ("identity", "state", "trend", "counters", "attributes", "selftests")
TIGHT_ROWS = 30  # at this terminal height or less, the trend block keeps to three lines


class DriveScreen(NasScreen):
    """Detail of the drive in one bay."""

    PAUSE_WHEN_COVERED = True
    SCREEN_NAME = "drive"
    KEYS = "Esc back  l locate  a ack  w swap  up/dn scroll"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,backspace", "app.pop_screen", "back"),
        Binding("l,L,i", "locate", "locate LED"),
        Binding("a", "acknowledge", "acknowledge findings"),
        Binding("w", "swap", "swap the drive"),
    ]

    def __init__(self, bay: int) -> None:
        super().__init__()
        self.bay = bay

    def compose_body(self) -> ComposeResult:
        with VerticalScroll(id="drive-scroll", classes="panel"):
            for name in SECTIONS:
                yield TextPanel(id=name, classes="section")

    def on_mount(self) -> None:
        super().on_mount()
        scroll = self.query_one("#drive-scroll", VerticalScroll)
        scroll.border_title = f"bay {self.bay}"
        scroll.focus()

    async def action_locate(self) -> None:
        """Toggle this bay's locate LED."""
        await self.nas.toggle_locate(self.bay)

    def action_swap(self) -> None:
        """Open the swap screen for this bay."""
        self.app.push_screen(SwapScreen(self.bay))

    def action_acknowledge(self) -> None:
        """Make the drive's current findings its new baseline (`nastui smart ack`)."""
        snapshot = self.nas.snapshot
        slot = snapshot.slot(self.bay) if snapshot else None
        drive = snapshot.drive(slot.drive) if snapshot and slot and slot.drive else None
        if snapshot is None or drive is None:
            return
        reasons = [r for r in drive.verdict.reasons if ackable(r)]
        if not reasons:
            self.notify(f"{drive.dev}: nothing to acknowledge")
            return
        try:
            done = acks.acknowledge(
                self.nas.session.writable_state_dir(),  # the machine's, or the demo's own
                drive.key,
                reasons,
                self.nas.session.clock.now(),
            )
        except StateError as exc:
            self.notify(str(exc), severity="error")
            return
        keys = ", ".join(f"{a.key} at {a.value}" for a in done)
        self.notify(f"{drive.dev}: acknowledged {keys}: warns again if it grows")
        self.nas.poll_now()

    def show(self, snapshot: HostSnapshot) -> None:
        slot = snapshot.slot(self.bay)
        drive = snapshot.drive(slot.drive) if slot and slot.drive else None
        glyphs = self.nas.glyphs
        panels = {name: self.query_one(f"#{name}", TextPanel) for name in SECTIONS}
        if drive is None:
            expected = f"; expected {slot.wanted}" if slot and slot.wanted else ""
            panels["identity"].show(lambda w: Text(f"bay {self.bay} is empty{expected}"))
            for name in SECTIONS[1:]:
                panels[name].show(lambda w: Text(""))
            return
        baseline = self.nas.session.store.baseline(snapshot.host, drive.key)
        counters = counters_text(drive)
        panels["identity"].show(lambda w: identity_text(drive, snapshot, glyphs))
        panels["state"].show(lambda w: state_text(drive, snapshot, glyphs))
        self._show_trend(panels["trend"], drive, snapshot)
        panels["counters"].show(lambda w: counters or Text(""))
        panels["attributes"].show(lambda w: attributes_text(drive, baseline, w, glyphs))
        panels["selftests"].show(lambda w: _titled("self-test log", self_tests_text(drive)))

    def _show_trend(self, panel: TextPanel, drive: Drive, snapshot: HostSnapshot) -> None:
        """Temperature over the last day and counter changes from the history file."""
        session = self.nas.session
        temps = session.store.history(snapshot.host, f"temp:{drive.key}")
        changes: tuple[CounterChange, ...] | None = None
        missing = NO_HISTORY
        if session.history is not None:
            try:
                changes = session.history.counter_changes(snapshot.host, drive.key)
            except HistoryError as exc:
                missing = str(exc)
        glyphs, now = self.nas.glyphs, snapshot.taken_at

        def build(width: int) -> Text:
            tight = self.app.size.height <= TIGHT_ROWS
            return drive_trend_text(
                temps, changes, now, width, glyphs, tight=tight, missing=missing
            )

        panel.show(build)


def _titled(title: str, body: Text) -> Text:
    text = Text()
    text.append(title + "\n", style="bold")
    text.append_text(body)
    return text
