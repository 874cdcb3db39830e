"""`ConfirmScreen`: a yes/no question in a modal box, answered from the keyboard (y or Enter,
n or Esc); the mouse is never needed. Works at 80x24 and in ASCII mode (a `+-|` border)."""

from __future__ import annotations

import textwrap
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen

from nastui.ui.widgets.textpanel import TextPanel


class ConfirmScreen(ModalScreen[bool]):
    """Asks `question`; dismisses with True for yes, False for no."""

    SCOPED_CSS = False  # so the App.-ascii rule below reaches the box
    DEFAULT_CSS = """
    ConfirmScreen {
        align: center middle;
        background: transparent;
    }
    ConfirmScreen > #confirm-box {
        width: 64;
        max-width: 100%;
        height: auto;
        border: solid ansi_yellow;
        border-title-color: ansi_default;
        border-title-style: bold;
        background: ansi_default;
        padding: 0 1;
    }
    App.-ascii ConfirmScreen > #confirm-box {
        border: ascii ansi_yellow;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y,enter", "answer(True)", "yes"),
        Binding("n,escape", "answer(False)", "no"),
    ]

    def __init__(self, question: str, *, title: str = "confirm") -> None:
        super().__init__()
        self.question = question
        self._title = title

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box"):
            yield TextPanel(id="confirm-text")

    def on_mount(self) -> None:
        # Inline, over app.tcss's `Screen { background }`: the pools stay visible around the box.
        self.styles.background = "transparent"
        self.query_one("#confirm-box").border_title = self._title
        self.query_one("#confirm-text", TextPanel).show(self._text)

    def _text(self, width: int) -> Text:
        text = Text("\n".join(textwrap.wrap(self.question, max(20, width))))
        text.append("\n\n")
        text.append("y", style="bold")
        text.append(" or Enter: yes    ")
        text.append("n", style="bold")
        text.append(" or Esc: no")
        return text

    def action_answer(self, yes: bool) -> None:
        """Close with the answer."""
        self.dismiss(yes)
