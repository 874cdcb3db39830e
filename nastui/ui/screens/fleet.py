"""The fleet screen (`H`): one row per remote host with its health roll-up, hottest drive, pools,
UPS state and last contact; Enter opens the host.

Rows follow the configured order. The app's fleet worker polls the hosts; this screen only
renders `NastuiApp.fleet`, again on every local snapshot so the contact ages keep ticking.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll

from nastui.core.fleetview import FleetRow, fleet_rows, fleet_summary
from nastui.model import FleetHost, HostSnapshot
from nastui.ui.redraw import set_border_title, set_display
from nastui.ui.render.fleet import NO_HOSTS, header_line, plan_columns, selected_text, table_lines
from nastui.ui.screens.base import NasScreen
from nastui.ui.screens.fleet_host import FleetHostScreen
from nastui.ui.widgets.textpanel import TextPanel


class FleetScreen(NasScreen):
    """Every remote host on one line."""

    PAUSE_WHEN_COVERED = True
    SCREEN_NAME = "fleet"
    KEYS = "up/dn host  Enter detail"
    DEFAULT_CSS = """
    #fleet-panel { height: auto; }
    #fleet-scroll { height: auto; scrollbar-size-vertical: 0; }
    #fleet-selected { height: 1fr; min-height: 3; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "move(-1)", "previous host", show=False, priority=True),
        Binding("down,j", "move(1)", "next host", show=False, priority=True),
        Binding("pageup", "move(-10)", "page up", show=False, priority=True),
        Binding("pagedown", "move(10)", "page down", show=False, priority=True),
        Binding("home", "move(-1000)", "first host", show=False, priority=True),
        Binding("end", "move(1000)", "last host", show=False, priority=True),
        Binding("enter", "open", "host detail", priority=True),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.selected = 0
        self._rows: tuple[FleetRow, ...] = ()
        self._hosts_shown: tuple[FleetHost, ...] = ()

    def compose_body(self) -> ComposeResult:
        with Vertical(id="fleet-panel", classes="panel"):
            yield TextPanel(id="fleet-head", wrap=True)
            with VerticalScroll(id="fleet-scroll"):
                yield TextPanel(id="fleet-rows")
        yield TextPanel(id="fleet-selected", classes="panel")

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one("#fleet-panel").border_title = "fleet"
        self.query_one("#fleet-scroll").focus()
        self.watch(self.app, "fleet", self._fleet_changed, init=True)

    # ---------------------------------------------------------------- data in
    def _hosts(self) -> tuple[FleetHost, ...]:
        """The last poll's hosts; before it, the configured ones, not polled yet."""
        fleet = self.nas.fleet
        if fleet is not None:
            return fleet
        return tuple(
            FleetHost(h.name, f"{h.address}:{h.port}", h.profile.value)
            for h in self.nas.session.config.hosts
        )

    def _fleet_changed(self, fleet: tuple[FleetHost, ...] | None) -> None:
        if not self.covered():
            self.render_fleet()

    def show(self, snapshot: HostSnapshot) -> None:
        self.render_fleet()

    def render_fleet(self) -> None:
        """Build the rows at the session clock's now and redraw the table."""
        now = self.nas.session.clock.now()
        hosts = self._hosts()
        rows = fleet_rows(hosts, now, degree=self.nas.glyphs.degree)
        same = bool(rows) and rows == self._rows  # the table as drawn: only the ages below tick
        self._rows, self._hosts_shown = rows, hosts
        self.selected = min(self.selected, max(0, len(rows) - 1))
        self._draw(table=not same)

    def _draw(self, *, table: bool = True) -> None:
        """Draw the table (unless `table` is False: it has not changed) and the selected host."""
        rows, glyphs = self._rows, self.nas.glyphs
        panel = self.query_one("#fleet-panel")
        head = self.query_one("#fleet-head", TextPanel)
        body = self.query_one("#fleet-rows", TextPanel)
        chosen = self.query_one("#fleet-selected", TextPanel)
        if not rows:
            empty = self.nas.session.fleet is None
            set_border_title(panel, "fleet")
            head.show(lambda w: Text(NO_HOSTS if empty else "polling the fleet...", style="dim"))
            body.show(lambda w: Text(""))
            set_display(chosen, False)
            return
        if table:
            set_border_title(panel, f"fleet: {fleet_summary(rows)}")
            set_display(chosen, True)
            self._fit_table()
            head.show(lambda w: header_line(plan_columns(rows, w)))
            body.show(lambda w: table_lines(rows, self.selected, w, glyphs))
        row, host = rows[self.selected], self._hosts_shown[self.selected]
        set_border_title(chosen, f"host {self.selected + 1} of {len(rows)}")
        chosen.show(
            lambda w: selected_text(row, host, max(3, chosen.content_region.height), w, glyphs)
        )

    def _fit_table(self) -> None:
        """Let the table take what the screen can spare beyond the chrome and the selected
        host's first lines; it scrolls beyond that."""
        scroll = self.query_one("#fleet-scroll", VerticalScroll)
        room = max(3, self.size.height - 2 - 2 - 1 - 4)
        if scroll.styles.max_height is None or scroll.styles.max_height.value != room:
            scroll.styles.max_height = room

    def on_resize(self) -> None:
        if self._rows:
            self._draw()

    # ---------------------------------------------------------------- actions
    def action_move(self, step: int) -> None:
        """Move the cursor `step` rows (clamped at either end) and keep it in view."""
        if not self._rows:
            return
        target = max(0, min(len(self._rows) - 1, self.selected + step))
        if target != self.selected:
            self.select(target)

    def select(self, index: int) -> None:
        """Put the cursor on row `index`."""
        self.selected = index
        self._draw()
        scroll = self.query_one("#fleet-scroll", VerticalScroll)
        top, height = round(scroll.scroll_offset.y), scroll.size.height
        if index < top:
            scroll.scroll_to(y=index, animate=False)
        elif height and index >= top + height:
            scroll.scroll_to(y=index - height + 1, animate=False)

    def action_open(self) -> None:
        """Open the selected host."""
        if self._rows:
            self.app.push_screen(FleetHostScreen(self._rows[self.selected].name))

    def on_click(self, event: events.Click) -> None:
        """A click selects the host under the pointer; a double click opens it."""
        offset = event.get_content_offset(self.query_one("#fleet-rows"))
        if offset is None or not 0 <= offset.y < len(self._rows):
            return
        self.select(offset.y)
        if event.chain >= 2:
            self.action_open()
