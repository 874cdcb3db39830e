"""The dashboard: the bay grid, pools summary, temperatures and fans (and the UPSes read over
NUT, `[[ups]]`), and the alerts strip."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll

from nastui.core.glyphs import Glyphs
from nastui.fans.logic.deadband import FanHold
from nastui.model import FleetHost, HostSnapshot
from nastui.ui.gridlayout import MIN_CELL
from nastui.ui.render.panels import alerts_text, thermal_text
from nastui.ui.render.pools import pool_summary
from nastui.ui.render.style import HEALTH_STYLE, fit
from nastui.ui.screens.gridscreen import GridScreen
from nastui.ui.widgets.baygrid import BayGrid
from nastui.ui.widgets.textpanel import TextPanel

ALERT_LINES = 3
GRID_SHARE = 0.55  # the grid's share of the width beside the side panels (see app.tcss)


class DashboardScreen(GridScreen):
    """What an operator sees first."""

    SCREEN_NAME = "dashboard"
    KEYS = "arrows move  Enter drive  v view  L locate  w swap"

    def compose_body(self) -> ComposeResult:
        with Horizontal(id="main"):
            with Vertical(id="grid-panel", classes="panel"):
                yield BayGrid(id="grid")
            with VerticalScroll(id="side"):
                yield TextPanel(id="pools", classes="panel")
                yield TextPanel(id="thermal", classes="panel")
        yield TextPanel(id="alerts", classes="panel")
        yield from self.compose_filter()

    def __init__(self) -> None:
        super().__init__()
        self.fan_hold = FanHold()  # fan RPM jitter inside the deadband is not redrawn

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one("#pools").border_title = "pools"
        self.query_one("#thermal").border_title = "temperatures and fans"
        self.query_one("#alerts").border_title = "alerts"
        # Tab must not wander into the side panels, where it would show nothing and leave the
        # arrows dead: the bay grid keeps the focus (the side panels scroll with the mouse).
        self.query_one("#side").can_focus = False
        self.watch(self.app, "fleet", self._fleet_changed, init=False)

    def _fleet_changed(self, _hosts: object) -> None:
        """A fleet poll: only the UPS lines (NUT) under the fans can change."""
        if self.nas.snapshot is not None and not self.covered():
            self._thermal(self.nas.snapshot)

    def show(self, snapshot: HostSnapshot) -> None:
        self._fit(snapshot)
        super().show(snapshot)
        glyphs = self.nas.glyphs
        self.query_one("#pools", TextPanel).show(lambda w: _pools(snapshot, w, glyphs))
        self._thermal(snapshot)
        alerts = self.query_one("#alerts", TextPanel)
        alerts.show(
            lambda w: alerts_text(
                snapshot, max(ALERT_LINES, alerts.content_region.height), w, glyphs
            )
        )

    def _thermal(self, snapshot: HostSnapshot) -> None:
        glyphs, limits, fleet = self.nas.glyphs, self.nas.limits, self.nas.fleet or ()
        held = dataclasses.replace(snapshot, fans=self.fan_hold.apply(snapshot.fans))
        self.query_one("#thermal", TextPanel).show(
            lambda w: thermal_text(held, limits, w, glyphs) + nut_lines(fleet, w, glyphs)
        )

    def on_resize(self) -> None:
        if self.nas.snapshot is not None:
            self._fit(self.nas.snapshot)

    def _fit(self, snapshot: HostSnapshot) -> None:
        """Stack the side panels under the grid when a wide chassis needs the full width."""
        chassis = snapshot.chassis
        columns = max((f.columns for f in chassis.faces), default=1) if chassis else 1
        needed = columns * (MIN_CELL + 2) + 2
        self.set_class(needed > self.size.width * GRID_SHARE, "-wide")


def _pools(snapshot: HostSnapshot, width: int, glyphs: Glyphs) -> Text:
    if not snapshot.pools:
        return Text("no pools found", style="dim")
    text = Text()
    for i, pool in enumerate(snapshot.pools):
        if i:
            text.append("\n")
        text.append_text(pool_summary(pool, snapshot.taken_at, width, glyphs))
    return text


def nut_lines(fleet: Sequence[FleetHost], width: int, glyphs: Glyphs) -> Text:
    """One line per UPS read over NUT ("UPS rack  ON BATTERY 80% 42 min"), coloured by its
    health; nothing without `[[ups]]` tables."""
    text = Text()
    ups = [host for host in fleet if host.profile == "nut"]
    if not ups:
        return text
    from nastui.core.fleetview import ups_state  # with the fleet's first poll

    for host in ups:
        state, health = ups_state(host)
        line = f"UPS {host.name}  {state}"
        text.append("\n" + fit(line, width, glyphs), style=HEALTH_STYLE.get(health, ""))
    return text
