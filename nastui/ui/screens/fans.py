"""The fans screen: every fan with RPM, duty and zone; each zone's curve, drawn and edited; the
duty each zone would get now; and a replay of the edited curve over the stored temperatures.

Saving (`s`) writes the zone into the configuration file with tomlkit, comments kept, after the
loader has accepted the result. A running `nastui fand` notices the file changed and reloads it
within one control period (it also reloads on SIGHUP), so nothing needs signalling from here.
Without `[[zone]]` tables (the demo) each fan zone seen gets a draft on the default curve;
saving one adds it to the file.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.markup import escape

from nastui.config import ConfigError
from nastui.config.writer import save_zone
from nastui.fans.logic.preview import (
    drafts_for,
    history_metrics,
    preview,
    replay,
    stale_after,
    staleness_period,
    zone_temperatures,
)
from nastui.model import FanZone, HostSnapshot
from nastui.ui.render.fans import fan_list_text, preview_text, replay_text
from nastui.ui.screens.base import NasScreen
from nastui.ui.widgets.fancurve import CurveEditor
from nastui.ui.widgets.textpanel import TextPanel

SIDE_WIDTH = 34


class FansScreen(NasScreen):
    """Fans, zones and the curve editor."""

    SCREEN_NAME = "fans"
    # What the footer keeps at 80 columns comes first: save, undo and the zone before the
    # finer edits (help lists them all).
    KEYS = "<> point  arrows move  s save  u undo  z zone  a/x add/del  [] hyst  m/M min"
    DEFAULT_CSS = f"""
    FansScreen #fans-main {{ height: 1fr; }}
    FansScreen #curve-panel {{ width: 1fr; height: 100%; }}
    FansScreen #fan-side {{ width: {SIDE_WIDTH}; height: 100%; padding-left: 1;
                            scrollbar-size-vertical: 1; }}
    FansScreen #replay {{ height: auto; }}
    """
    REPLAY_EVERY_S: ClassVar[float] = 30.0
    _replayed: tuple[FanZone, float] | None = None  # the zone last replayed, and when

    def compose_body(self) -> ComposeResult:
        with Horizontal(id="fans-main"):
            with Vertical(id="curve-panel", classes="panel"):
                yield CurveEditor(id="curve")
            with VerticalScroll(id="fan-side"):
                yield TextPanel(id="fan-list", classes="panel")
                yield TextPanel(id="preview", classes="panel")
        yield TextPanel(id="replay", classes="panel")

    @property
    def editor(self) -> CurveEditor:
        """The curve editor."""
        return self.query_one("#curve", CurveEditor)

    def on_mount(self) -> None:
        self.query_one("#fan-list").border_title = "fans"
        # What the edited curves give at today's temperatures, not the fans' duty (the list
        # above shows that): "duty now" read as a second, different answer to it.
        self.query_one("#preview").border_title = "curves give now"
        self.query_one("#replay").border_title = "replay over the stored history"
        super().on_mount()
        self._fit_chart()
        self.editor.focus()

    def on_resize(self) -> None:
        self._fit_chart()

    def _fit_chart(self) -> None:
        editor = self.editor
        rows = max(6, self.size.height - 9)
        if editor.size_hint[1] != rows:
            editor.size_hint = (editor.size_hint[0], rows)
            editor.redraw()

    # ---------------------------------------------------------------- snapshots
    def show(self, snapshot: HostSnapshot) -> None:
        glyphs = self.nas.glyphs
        self._load_zones(snapshot)
        self.query_one("#fan-list", TextPanel).show(
            lambda w: fan_list_text(snapshot.fans, w, glyphs)
        )
        self._preview(snapshot)
        self._replay(snapshot, force=False)

    def _load_zones(self, snapshot: HostSnapshot) -> None:
        editor = self.editor
        if editor.zones:
            return
        zones = list(self.nas.session.config.zones)
        drafts: set[str] = set()
        if not zones:
            zones = drafts_for(snapshot.fans)
            drafts = {z.name for z in zones}
        if zones:
            editor.load(zones, drafts, self.nas.glyphs)

    def _period(self) -> float:
        poll = self.nas.session.config.poll
        return staleness_period(poll.fans_s, poll.temperature_s)

    def _preview(self, snapshot: HostSnapshot) -> None:
        decisions = preview(self.editor.zones, snapshot, self._period())
        glyphs = self.nas.glyphs
        self.query_one("#preview", TextPanel).show(lambda w: preview_text(decisions, w, glyphs))
        self.editor.set_now({d.zone: (d.temp_c, d.duty) for d in decisions if d.temp_c is not None})

    def _replay(self, snapshot: HostSnapshot, *, force: bool) -> None:
        zone = self.editor.zone
        panel = self.query_one("#replay", TextPanel)
        if zone is None:
            panel.show(lambda w: Text("no fan zones", style="dim"))
            return
        last = self._replayed
        fresh = last is not None and snapshot.taken_at - last[1] < self.REPLAY_EVERY_S
        if not force and fresh and last is not None and last[0] == zone:
            return
        self._replayed = (zone, snapshot.taken_at)
        store = self.nas.session.store
        drive_metrics, cpu_metrics = history_metrics(zone, snapshot)
        temps = zone_temperatures(
            zone,
            {m: store.history(snapshot.host, m) for m in drive_metrics},
            {m: store.history(snapshot.host, m) for m in cpu_metrics},
            stale_after(zone, self._period()),
        )
        steps = replay(zone, temps)
        glyphs = self.nas.glyphs
        panel.show(lambda w: replay_text(zone, steps, w, glyphs))

    # ---------------------------------------------------------------- editor messages
    def on_curve_editor_changed(self, message: CurveEditor.Changed) -> None:
        zone = message.zone
        editor = self.editor
        where = f" {editor.index + 1}/{len(editor.zones)}" if len(editor.zones) > 1 else ""
        sources = "+".join(s.value for s in zone.sources)
        panel = self.query_one("#curve-panel")
        # The zone's name as written in the file, never read as markup ("cage [/]" raised)
        panel.border_title = escape(f"zone {zone.name}{where}: {zone.mode.value}, {sources}")
        snapshot = self.nas.snapshot
        if snapshot is not None:
            self._preview(snapshot)
            self._replay(snapshot, force=True)

    def on_curve_editor_save_requested(self, message: CurveEditor.SaveRequested) -> None:
        session = self.nas.session
        path = session.config.path
        if path is None:
            self.notify(
                "no configuration file to save to: start nastui with --config FILE",
                severity="warning",
            )
            return
        try:
            session.config = save_zone(path, message.zone)
        except ConfigError as exc:
            self.notify(str(exc), title="not saved", severity="error")
            return
        self.editor.mark_saved(message.zone)
        self.notify(
            f"zone {message.zone.name} saved to {path}; a running nastui fand reloads it "
            "within one period",
        )
