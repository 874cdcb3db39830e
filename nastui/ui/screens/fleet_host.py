"""One remote host in detail (Enter on the fleet screen): its state and last contact, the poll
error if it stopped answering, its drives where its MIB gives per-disk data, pools with scans,
UPS details and alerts; follows new fleet polls while open, Esc goes back."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.markup import escape

from nastui.core.fleetview import host_health
from nastui.model import FleetHost, HostSnapshot
from nastui.ui.render.fleet import alerts_detail, drives_text, host_header, ups_detail
from nastui.ui.render.pools import pool_detail
from nastui.ui.screens.base import NasScreen
from nastui.ui.widgets.textpanel import TextPanel

SECTIONS = ("host", "alerts", "drives", "pools", "ups")


class FleetHostScreen(NasScreen):
    """Detail of one fleet host."""

    PAUSE_WHEN_COVERED = True
    SCREEN_NAME = "fleet host"
    KEYS = "Esc back  up/dn scroll"
    DEFAULT_CSS = """
    #host-scroll { height: 1fr; scrollbar-size-vertical: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,backspace", "app.pop_screen", "back"),
    ]

    def __init__(self, name: str) -> None:
        super().__init__()
        self.host_name = name

    def compose_body(self) -> ComposeResult:
        with VerticalScroll(id="host-scroll", classes="panel"):
            for name in SECTIONS:
                yield TextPanel(id=f"host-{name}", classes="section")

    def on_mount(self) -> None:
        super().on_mount()
        scroll = self.query_one("#host-scroll", VerticalScroll)
        scroll.border_title = escape(self.host_name)  # as configured, never read as markup
        scroll.focus()
        self.watch(self.app, "fleet", self._fleet_changed, init=True)

    def host(self) -> FleetHost | None:
        """The host as the last poll found it."""
        return next((h for h in self.nas.fleet or () if h.name == self.host_name), None)

    def _fleet_changed(self, fleet: tuple[FleetHost, ...] | None) -> None:
        if not self.covered():
            self.render_host()

    def show(self, snapshot: HostSnapshot) -> None:
        self.render_host()

    def render_host(self) -> None:
        """Draw every section from the host's latest state."""
        host, glyphs = self.host(), self.nas.glyphs
        now = self.nas.session.clock.now()
        panels = {name: self.query_one(f"#host-{name}", TextPanel) for name in SECTIONS}
        if host is None:
            panels["host"].show(lambda w: Text(f"{self.host_name}: not polled yet", style="dim"))
            for name in SECTIONS[1:]:
                panels[name].show(lambda w: Text(""))
            return
        health = host_health(host, now)
        remote = host.snapshot
        panels["host"].show(lambda w: host_header(host, health, now, w, glyphs))
        if remote is None:
            for name in SECTIONS[1:]:
                panels[name].show(lambda w: Text(""))
            return
        stale = host.error is not None
        panels["alerts"].show(lambda w: alerts_detail(remote, w, stale=stale))
        panels["drives"].show(lambda w: drives_text(remote, w, glyphs))
        panels["pools"].show(lambda w: _pools(remote, w, self))
        panels["ups"].show(lambda w: _upses(remote, w, self))


def _pools(snapshot: HostSnapshot, width: int, screen: FleetHostScreen) -> Text:
    text = Text()
    for i, pool in enumerate(snapshot.pools):
        if i:
            text.append("\n\n")
        text.append_text(pool_detail(pool, snapshot, width, screen.nas.glyphs))
    return text


def _upses(snapshot: HostSnapshot, width: int, screen: FleetHostScreen) -> Text:
    text = Text()
    for i, ups in enumerate(snapshot.ups):
        if i:
            text.append("\n")
        text.append_text(ups_detail(ups, width, screen.nas.glyphs))
    return text
