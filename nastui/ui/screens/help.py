"""The help screen: the key map and what the bay marks mean."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll

from nastui.ui.render.panels import help_text
from nastui.ui.screens.base import NasScreen
from nastui.ui.widgets.textpanel import TextPanel


class HelpScreen(NasScreen):
    """Keys and symbols."""

    SCREEN_NAME = "help"
    KEYS = "Esc back"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "leave", "back", show=False)]

    def compose_body(self) -> ComposeResult:
        with VerticalScroll(id="help-scroll", classes="panel"):
            yield TextPanel(id="help", wrap=True)

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one("#help-scroll").border_title = "help"
        self.query_one("#help", TextPanel).show(lambda w: help_text(self.nas.glyphs))
        self.query_one("#help-scroll").focus()

    def action_leave(self) -> None:
        """Back to the screen help was opened from."""
        self.app.switch_mode(self.nas.mode_before_help)
