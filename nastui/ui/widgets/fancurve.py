"""`CurveEditor`: a fan zone's curve, drawn and edited with the keyboard.

A focusable `TextPanel` (so only the chart lines that change are repainted). It holds the zones
being edited and posts `Changed` after every edit and `SaveRequested` on `s`; the screen does the
saving. The edits themselves are `nastui.fans.logic.curveedit`'s pure functions, which
refuse anything the configuration loader would reject.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message

from nastui.core.glyphs import Glyphs
from nastui.fans.logic import curveedit
from nastui.model import FanZone
from nastui.ui.render.fans import chart_text, status_text
from nastui.ui.widgets.textpanel import TextPanel

TEMP_STEP, DUTY_STEP = 1.0, 5.0


class CurveEditor(TextPanel, can_focus=True):
    """Keys: `<` `>` pick a point, arrows (or h j k l) move it, `a` adds, `x` deletes, `[` `]`
    hysteresis, `m` `M` minimum duty, `z` next zone, `s` save, `u` undo the last edit, `U` undo
    every unsaved edit."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("comma,less_than_sign", "pick(-1)", "previous point", show=False),
        Binding("full_stop,greater_than_sign", "pick(1)", "next point", show=False),
        Binding("left,h", f"move({-TEMP_STEP}, 0)", "cooler", show=False),
        Binding("right,l", f"move({TEMP_STEP}, 0)", "hotter", show=False),
        Binding("up,k", f"move(0, {DUTY_STEP})", "more duty", show=False),
        Binding("down,j", f"move(0, {-DUTY_STEP})", "less duty", show=False),
        Binding("a,plus,insert", "add", "add point", show=False),
        Binding("x,minus,delete", "delete", "delete point", show=False),
        Binding("left_square_bracket", "hysteresis(-0.5)", "less hysteresis", show=False),
        Binding("right_square_bracket", "hysteresis(0.5)", "more hysteresis", show=False),
        Binding("m", "min_duty(-5)", "lower min duty", show=False),
        Binding("M", "min_duty(5)", "raise min duty", show=False),
        Binding("z", "next_zone", "next zone", show=False),
        Binding("s,ctrl+s", "save", "save", show=False),
        Binding("u", "undo", "undo the last edit", show=False),
        Binding("U", "revert", "undo every unsaved edit", show=False),
    ]

    class Changed(Message):
        """The zone on show, or its curve, changed."""

        def __init__(self, zone: FanZone) -> None:
            super().__init__()
            self.zone = zone

    class SaveRequested(Message):
        """`s` was pressed on `zone`."""

        def __init__(self, zone: FanZone) -> None:
            super().__init__()
            self.zone = zone

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.zones: list[FanZone] = []
        self.saved: dict[str, FanZone] = {}
        self.drafts: set[str] = set()
        self.index = 0
        self.selected: dict[str, int] = {}
        self.undo: dict[str, list[FanZone]] = {}  # each zone's earlier versions, newest last
        self.now: dict[str, tuple[float, float]] = {}
        self.size_hint = (40, 12)
        self.glyphs: Glyphs | None = None

    # ---------------------------------------------------------------- state
    def load(self, zones: Sequence[FanZone], drafts: set[str], glyphs: Glyphs) -> None:
        """Edit `zones` (`drafts`: the names not in the configuration file)."""
        self.zones = list(zones)
        self.saved = {z.name: z for z in zones}
        self.drafts = set(drafts)
        self.index = 0
        self.glyphs = glyphs
        self._changed()

    @property
    def zone(self) -> FanZone | None:
        """The zone on show, as edited."""
        return self.zones[self.index] if self.zones else None

    @property
    def point(self) -> int:
        """The selected point of the zone on show."""
        zone = self.zone
        if zone is None:
            return 0
        return min(self.selected.get(zone.name, 0), len(zone.curve.points) - 1)

    def dirty(self, zone: FanZone) -> bool:
        """Whether `zone` differs from what the file holds (drafts are never saved yet)."""
        return zone.name in self.drafts or self.saved.get(zone.name) != zone

    def mark_saved(self, zone: FanZone) -> None:
        """`zone` is now what the file holds."""
        self.saved[zone.name] = zone
        self.drafts.discard(zone.name)
        self.redraw()

    def set_now(self, points: dict[str, tuple[float, float]]) -> None:
        """Where each zone operates now: (temperature, duty)."""
        if points != self.now:
            self.now = points
            self.redraw()

    def _replace(self, zone: FanZone, *, undoable: bool = True) -> None:
        before = self.zones[self.index]
        if undoable and before != zone:
            self.undo.setdefault(zone.name, []).append(before)
        self.zones[self.index] = zone
        self._changed()

    def _changed(self) -> None:
        self.redraw()
        if self.zone is not None:
            self.post_message(self.Changed(self.zone))

    # ---------------------------------------------------------------- drawing
    def redraw(self) -> None:
        """Build the chart again (after an edit, a resize or a new operating point)."""
        self.show(self._build)

    def _build(self, width: int) -> Text:
        zone, glyphs = self.zone, self.glyphs
        if zone is None or glyphs is None:
            return Text("no fan zones: nothing to draw", style="dim")
        chart = chart_text(
            zone, self.point, self.now.get(zone.name), (width, self.size_hint[1]), glyphs
        )
        draft = zone.name in self.drafts
        chart.append("\n")
        chart.append_text(status_text(zone, self.point, self.dirty(zone), draft, glyphs))
        return chart

    # ---------------------------------------------------------------- actions
    def _edited(self, result: curveedit.Edited) -> None:
        zone = self.zone
        if zone is None:
            return
        if result.refused:
            self.notify(result.refused, severity="warning")
        self.selected[zone.name] = result.selected
        self._replace(dataclasses.replace(zone, curve=result.curve))

    def action_pick(self, step: int) -> None:
        """Select the previous or next point."""
        zone = self.zone
        if zone is not None:
            self.selected[zone.name] = (self.point + step) % len(zone.curve.points)
            self.redraw()

    def action_move(self, d_temp: float, d_duty: float) -> None:
        """Move the selected point."""
        if self.zone is not None:
            self._edited(curveedit.move_point(self.zone.curve, self.point, d_temp, d_duty))

    def action_add(self) -> None:
        """Add a point after the selected one."""
        if self.zone is not None:
            self._edited(curveedit.add_point(self.zone.curve, self.point))

    def action_delete(self) -> None:
        """Delete the selected point."""
        if self.zone is not None:
            self._edited(curveedit.delete_point(self.zone.curve, self.point))

    def action_hysteresis(self, delta: float) -> None:
        """Change the hysteresis."""
        zone = self.zone
        if zone is not None:
            curve = curveedit.nudge_hysteresis(zone.curve, delta)
            self._replace(dataclasses.replace(zone, curve=curve))

    def action_min_duty(self, delta: float) -> None:
        """Change the minimum duty."""
        zone = self.zone
        if zone is not None:
            curve = curveedit.nudge_min_duty(zone.curve, delta)
            self._replace(dataclasses.replace(zone, curve=curve))

    def action_next_zone(self) -> None:
        """Show the next zone."""
        if self.zones:
            self.index = (self.index + 1) % len(self.zones)
            self._changed()

    def action_save(self) -> None:
        """Ask the screen to save the zone on show."""
        if self.zone is not None:
            self.post_message(self.SaveRequested(self.zone))

    def action_undo(self) -> None:
        """Undo the last edit of the zone on show, and say what is left to undo."""
        zone = self.zone
        steps = self.undo.get(zone.name, []) if zone is not None else []
        if not steps:
            self.notify("nothing to undo")
            return
        self._replace(steps.pop(), undoable=False)
        more = f"{len(steps)} more (U undoes all)" if steps else "no more"
        self.notify(f"undid the last edit; {more}")

    def action_revert(self) -> None:
        """Undo every unsaved edit of the zone on show."""
        zone = self.zone
        if zone is not None and zone.name in self.saved and zone != self.saved[zone.name]:
            self._replace(self.saved[zone.name])
            self.notify("every unsaved edit undone (u undoes one step)")
