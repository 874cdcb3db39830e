"""The pools screen: each pool's state, scan progress with rate and ETA, last completed scrub,
past scrubs and resilvers from the daemon's history (one line at 80x24, a table when taller)
and the vdev tree with READ/WRITE/CKSUM counters, scrolling when it does not fit.

Scrub actions act on the selected pool (Tab or right/left choose it when there are several):
`s` starts (or resumes) a scrub, `z` pauses it (ZFS), `x` stops it; each asks first.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll

from nastui.collectors.runner import run
from nastui.control.scrub import scrubber_for
from nastui.core.scanning.words import action_prompt, pointless
from nastui.history.db import HistoryError
from nastui.history.record import ScanRecord
from nastui.model import HostSnapshot, Pool, ScrubAction
from nastui.ui.render.pools import pool_detail
from nastui.ui.render.trend import past_scans, scan_history_text
from nastui.ui.screens.base import NasScreen
from nastui.ui.screens.confirm import ConfirmScreen
from nastui.ui.widgets.textpanel import TextPanel

TIGHT_ROWS = 30  # at this terminal height or less, past scans take one line per pool
PAST_SCANS = 5


class PoolsScreen(NasScreen):
    """Every pool in detail, and the scrub actions."""

    PAUSE_WHEN_COVERED = True
    SCREEN_NAME = "pools"
    KEYS = "tab pool  s scrub  z pause  x stop"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("tab,right", "pick(1)", "next pool", priority=True),
        Binding("shift+tab,left", "pick(-1)", "previous pool", priority=True),
        Binding("s", "scrub('start')", "start scrub"),
        Binding("z", "scrub('pause')", "pause scrub"),
        Binding("x", "scrub('stop')", "stop scrub"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.selected = 0
        self._offsets: list[int] = []

    def compose_body(self) -> ComposeResult:
        with VerticalScroll(id="pools-scroll", classes="panel"):
            yield TextPanel(id="pool-detail")

    def on_mount(self) -> None:
        super().on_mount()
        scroll = self.query_one("#pools-scroll", VerticalScroll)
        scroll.border_title = "pools"
        scroll.focus()

    def _pools(self) -> tuple[Pool, ...]:
        snapshot = self.nas.snapshot
        return snapshot.pools if snapshot is not None else ()

    def selected_pool(self) -> Pool | None:
        """The pool the actions act on."""
        pools = self._pools()
        return pools[min(self.selected, len(pools) - 1)] if pools else None

    def action_pick(self, step: int) -> None:
        """Select the next (or previous) pool and bring it into view."""
        pools = self._pools()
        if len(pools) < 2:
            return
        self.selected = (self.selected + step) % len(pools)
        if self.nas.snapshot is not None:
            self.show(self.nas.snapshot)
        if self.selected < len(self._offsets):
            scroll = self.query_one("#pools-scroll", VerticalScroll)
            scroll.scroll_to(y=self._offsets[self.selected], animate=False)

    def action_scrub(self, action: str) -> None:
        """Ask, then start, pause or stop the selected pool's scrub."""
        pool = self.selected_pool()
        if pool is None:
            self.nas.notify("no pool to scrub", severity="warning")
            return
        wanted = ScrubAction(action)
        why_not = pointless(pool, wanted)
        if why_not is not None:
            self.nas.notify(why_not, severity="warning")
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.run_worker(self._scrub(pool, wanted), group="scrub", exit_on_error=False)

        title = f"{wanted.value} {'check' if pool.kind.value == 'mdraid' else 'scrub'}"
        self.app.push_screen(ConfirmScreen(action_prompt(pool, wanted), title=title), answered)

    async def _scrub(self, pool: Pool, action: ScrubAction) -> None:
        timeout = self.nas.session.config.poll.command_timeout_s
        scrubber = scrubber_for(self.nas.session.backend, run, timeout=timeout)
        result = await scrubber.scrub(pool, action)
        self.nas.notify(result.message, severity="information" if result.ok else "warning")
        self.nas.poll_now()

    def show(self, snapshot: HostSnapshot) -> None:
        glyphs = self.nas.glyphs
        pools = snapshot.pools
        self.selected = min(self.selected, max(0, len(pools) - 1))
        mark = len(pools) > 1
        past = {
            pool.name: past_scans(self._scans(snapshot.host, pool), pool.last_scrub, PAST_SCANS)
            for pool in pools
        }

        def build(width: int) -> Text:
            tight = self.app.size.height <= TIGHT_ROWS
            if not pools:
                return Text("no pools found", style="dim")
            text = Text()
            offsets = []
            for i, pool in enumerate(pools):
                if i:
                    text.append("\n\n")
                offsets.append(text.plain.count("\n"))
                chosen = mark and i == self.selected
                earlier = scan_history_text(past[pool.name], width, glyphs, tight=tight)
                text.append_text(
                    pool_detail(pool, snapshot, width, glyphs, selected=chosen, past=earlier)
                )
            self._offsets = offsets
            return text

        self.query_one("#pool-detail", TextPanel).show(build)

    def _scans(self, host: str, pool: Pool) -> tuple[ScanRecord, ...]:
        """The pool's finished scans kept by the daemon; none without a history file."""
        history = self.nas.session.history
        if history is None:
            return ()
        try:
            return history.scans(host, pool.name, limit=PAST_SCANS)
        except HistoryError:
            return ()
