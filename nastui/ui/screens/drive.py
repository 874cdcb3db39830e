"""The drive detail screen (Enter on a bay, or on a drive in the drive list): everything known
about one drive, following new snapshots while open, with its temperature over the last day,
the SMART counter changes the daemon's history kept, and the swaps of the bay or the drive
(last). `[` and `]` step through every place nastui knows: each bay, then each drive that is in
no bay (NVMe on the board, a USB disk)."""

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
from nastui.model import BaySlot, Drive, HostSnapshot
from nastui.selftest.io.tester import load_book
from nastui.selftest.logic.book import DriveTests
from nastui.swap.flow.status import swap_records
from nastui.swap.logic.codec import records_for
from nastui.swap.view import record_line
from nastui.ui.render.drive import (
    attributes_text,
    counters_text,
    identity_text,
    self_tests_text,
    state_text,
)
from nastui.ui.render.selftest import selftest_text
from nastui.ui.render.trend import NO_HISTORY, drive_trend_text
from nastui.ui.screens.base import NasScreen
from nastui.ui.screens.swap import SwapScreen
from nastui.ui.widgets.textpanel import TextPanel

SECTIONS = ("identity", "state", "trend", "counters", "attributes", "selftests", "swaps")
TIGHT_ROWS = 30  # at this terminal height or less, the trend block keeps to three lines


class DriveScreen(NasScreen):
    """Detail of the drive in one bay, or of one drive that is in no bay."""

    PAUSE_WHEN_COVERED = True
    SCREEN_NAME = "drive"
    KEYS = "Esc back  [ ] prev/next drive  l locate  a ack  w swap  up/dn scroll"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,backspace", "app.pop_screen", "back"),
        Binding("l,L,i", "locate", "locate LED"),
        Binding("a", "acknowledge", "acknowledge findings"),
        Binding("left_square_bracket", "step(-1)", "previous drive", show=False),
        Binding("right_square_bracket", "step(1)", "next drive", show=False),
        Binding("w", "swap", "swap the drive"),
    ]

    def __init__(self, bay: int | None = None, *, key: str | None = None) -> None:
        """Show the drive in `bay`, or the drive `key` (one in no bay)."""
        super().__init__()
        self.bay = bay
        self.key = key

    def _place(self, snapshot: HostSnapshot) -> tuple[BaySlot | None, Drive | None]:
        """The bay on show (None for a drive in no bay) and its drive."""
        if self.key is not None:
            bay = snapshot.bay_of(self.key)
            return (snapshot.slot(bay) if bay is not None else None), snapshot.drive(self.key)
        slot = snapshot.slot(self.bay) if self.bay is not None else None
        return slot, (snapshot.drive(slot.drive) if slot and slot.drive else None)

    def action_step(self, step: int) -> None:
        """Show the previous or next place: every bay in order, then the drives in no bay."""
        snapshot = self.nas.snapshot
        if snapshot is None:
            return
        places = every_place(snapshot)
        here = (self.bay, None) if self.key is None else (None, self.key)
        index = places.index(here) if here in places else -1
        self.bay, self.key = places[(index + step) % len(places)]
        self._title()
        self.query_one("#drive-scroll", VerticalScroll).scroll_home(animate=False)
        self.show(snapshot)

    def _title(self) -> None:
        snapshot = self.nas.snapshot
        drive = snapshot.drive(self.key) if snapshot and self.key else None
        where = f"bay {self.bay}" if self.key is None else f"{drive.dev if drive else self.key}"
        self.query_one("#drive-scroll").border_title = (
            where if self.key is None else f"{where} (in no bay)"
        )

    def compose_body(self) -> ComposeResult:
        with VerticalScroll(id="drive-scroll", classes="panel"):
            for name in SECTIONS:
                yield TextPanel(id=name, classes="section", wrap=name != "attributes")

    def on_mount(self) -> None:
        super().on_mount()
        self._title()
        self.query_one("#drive-scroll", VerticalScroll).focus()

    async def action_locate(self) -> None:
        """Toggle this bay's locate LED (a drive in no bay has none to light)."""
        snapshot = self.nas.snapshot
        slot = self._place(snapshot)[0] if snapshot else None
        if slot is None:
            self.notify("this drive is in no bay: no locate LED to light", severity="warning")
            return
        await self.nas.toggle_locate(slot.bay)

    def action_swap(self) -> None:
        """Open the swap screen for this bay (a drive in no bay has no bay to swap in)."""
        snapshot = self.nas.snapshot
        slot = self._place(snapshot)[0] if snapshot else None
        if slot is None:
            self.notify("this drive is in no bay: nothing to swap here", severity="warning")
            return
        self.app.push_screen(SwapScreen(slot.bay))

    def action_acknowledge(self) -> None:
        """Make the drive's current findings its new baseline (`nastui smart ack`)."""
        snapshot = self.nas.snapshot
        if snapshot is None:
            return
        slot, drive = self._place(snapshot)
        if drive is None:  # an empty bay, or one whose configured drive is missing
            where = f"bay {slot.bay}: no drive here" if slot else "the drive is no longer seen"
            self.notify(f"{where}, nothing to acknowledge", severity="warning")
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
        slot, drive = self._place(snapshot)
        glyphs = self.nas.glyphs
        panels = {name: self.query_one(f"#{name}", TextPanel) for name in SECTIONS}
        swaps = self._swaps(snapshot, drive)
        panels["swaps"].show(lambda w: swaps)
        if drive is None:
            expected = f"; expected {slot.wanted}" if slot and slot.wanted else ""
            what = f"bay {self.bay} is empty" if self.key is None else f"{self.key} is gone"
            panels["identity"].show(lambda w: Text(f"{what}{expected}"))
            for name in SECTIONS[1:-1]:
                panels[name].show(lambda w: Text(""))
            return
        baseline = self.nas.session.store.baseline(snapshot.host, drive.key)
        counters = counters_text(drive)
        panels["identity"].show(lambda w: identity_text(drive, snapshot, glyphs))
        panels["state"].show(lambda w: state_text(drive, snapshot, glyphs))
        self._show_trend(panels["trend"], drive, snapshot)
        panels["counters"].show(lambda w: counters or Text(""))
        panels["attributes"].show(lambda w: attributes_text(drive, baseline, w, glyphs))
        page = self._selftest_page(drive)  # SMART self-tests nastui started (issue 16)
        log = selftest_text(page, self_tests_text(drive), self.nas.session.clock.now())
        panels["selftests"].show(lambda w: _titled("self-test log", log))

    def _selftest_page(self, drive: Drive) -> DriveTests | None:
        """The drive's page of the self-test book (None: none, or the book is unreadable)."""
        state_dir = self.nas.session.state_dir
        try:
            return load_book(state_dir).get(drive.key) if state_dir is not None else None
        except StateError:
            return None

    def _swaps(self, snapshot: HostSnapshot, drive: Drive | None) -> Text:
        """The finished swaps of this bay or of this drive (`nastui swap log`), or nothing."""
        serial = drive.identity.serial if drive else None
        found = records_for(swap_records(self.nas.session), self.bay, serial, snapshot.host)
        if not found:
            return Text("")
        return _titled("swaps", Text("\n".join(record_line(r) for r in found)))

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


def every_place(snapshot: HostSnapshot) -> list[tuple[int | None, str | None]]:
    """Every place a drive can be shown from: (bay, None) for each bay, then (None, key) for
    each drive that is in no bay."""
    places: list[tuple[int | None, str | None]] = [(s.bay, None) for s in snapshot.slots]
    bayed = {s.drive for s in snapshot.slots if s.drive}
    places += [(None, d.key) for d in snapshot.drives if d.key not in bayed]
    return places


def _titled(title: str, body: Text) -> Text:
    text = Text()
    text.append(title + "\n", style="bold")
    text.append_text(body)
    return text
