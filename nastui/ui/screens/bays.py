"""The bays screen: the whole chassis, large, with every view and the filter."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical

from nastui.ui.screens.gridscreen import GridScreen
from nastui.ui.widgets.baygrid import BayGrid


class BaysScreen(GridScreen):
    """The full chassis grid."""

    SCREEN_NAME = "bays"
    KEYS = "arrows move  Enter drive  v view  L locate  w swap  / filter"

    def compose_body(self) -> ComposeResult:
        with Vertical(id="grid-panel", classes="panel"):
            yield BayGrid(id="grid")
        yield from self.compose_filter()
