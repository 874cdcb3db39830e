"""The bench screen's dialogs, all keyboard-only and ASCII-safe (`+-|` borders in ASCII mode, set
in app.tcss):
- `TargetPicker`: the drives found, or a typed path;
- `OptionsForm`: profile and settings, stepped with the arrow keys (`nastui.bench.options`);
- `JobEditor`: the custom fio job file, checked before it is accepted;
- `SerialConfirm`: raw-device writes go ahead only after the drive's serial number is typed.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, TextArea
from textual.widgets.option_list import Option as ListOption

from nastui.bench.fiojob import check_custom_job
from nastui.bench.options import options_for, stepped, value_of, value_text
from nastui.model import BenchSettings, BenchTarget
from nastui.ui.widgets.textpanel import TextPanel

JOB_TEMPLATE = """\
[global]
ioengine=libaio
direct=1
time_based=1
runtime=10
size=1G

[randread-qd8]
rw=randread
bs=4k
iodepth=8
"""
BOX_CSS = """
{name} {{ align: center middle; background: transparent; }}
{name} > .bench-box {{
    width: 76; max-width: 100%; height: auto; max-height: 100%;
    border: solid ansi_blue; border-title-color: ansi_default; border-title-style: bold;
    background: ansi_default; padding: 0 1;
}}
{name} Input {{ border: none; height: 1; padding: 0; }}
"""


class _Dialog(ModalScreen[object]):
    """A titled box over the screen; Esc closes it with None."""

    SCOPED_CSS = False
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss(None)", "cancel")]
    TITLE = ""

    def on_mount(self) -> None:
        self.styles.background = "transparent"
        self.query_one(".bench-box").border_title = self.TITLE


class MarkedOptionList(OptionList):
    """An `OptionList` whose highlighted entry also starts with `>`: on a console without
    colour (vt100, NO_COLOR) the highlight's background does not show."""

    def __init__(self, entries: list[str], *, id: str | None = None) -> None:
        self._entries = entries
        super().__init__(*(ListOption(f"  {e}", id=str(i)) for i, e in enumerate(entries)), id=id)

    def _watch_highlighted(self, old: int | None, new: int | None) -> None:
        for index, mark in ((old, " "), (new, ">")):
            if index is not None and 0 <= index < len(self._entries):
                self.replace_option_prompt_at_index(index, f"{mark} {self._entries[index]}")


class TargetPicker(_Dialog):
    """Pick a target from `candidates` or type one; dismisses with the path or None."""

    DEFAULT_CSS = (
        BOX_CSS.format(name="TargetPicker")
        + "TargetPicker OptionList { height: auto; max-height: 12; }"
    )
    TITLE = "target: a directory, or a whole device"

    def __init__(self, candidates: list[tuple[str, str]]) -> None:
        super().__init__()
        self.candidates = candidates

    def compose(self) -> ComposeResult:
        with Vertical(classes="bench-box"):
            yield TextPanel(id="picker-help")
            yield MarkedOptionList(
                [f"{path}  {what}" for path, what in self.candidates], id="picker-list"
            )
            yield Input(placeholder="or type a path and press Enter", id="picker-path")

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one("#picker-help", TextPanel).show(
            lambda w: Text("Enter picks; Tab goes to the path line; Esc cancels", style="dim")
        )
        self.query_one("#picker-list", OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.candidates[int(event.option.id or 0)][0])

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.value.strip():
            self.dismiss(event.value.strip())


class OptionsForm(_Dialog):
    """Step through the profile's settings; Enter keeps them, Esc drops them."""

    DEFAULT_CSS = BOX_CSS.format(name="OptionsForm")
    TITLE = "profile and settings"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss(None)", "cancel"),
        Binding("up,k", "move(-1)", "up", show=False),
        Binding("down,j", "move(1)", "down", show=False),
        Binding("left,h,minus", "change(-1)", "previous value", show=False),
        Binding("right,l,plus,space", "change(1)", "next value", show=False),
        Binding("enter", "keep", "keep"),
    ]

    def __init__(self, settings: BenchSettings, *, device: bool) -> None:
        super().__init__()
        self.settings = settings
        self.device = device  # the target is a whole device (else a directory, or none yet)
        self.row = 0

    def compose(self) -> ComposeResult:
        with Vertical(classes="bench-box"):
            yield TextPanel(id="options")

    def on_mount(self) -> None:
        super().on_mount()
        self._draw()

    def _draw(self) -> None:
        options = options_for(self.settings.profile)
        self.row = min(self.row, len(options) - 1)

        def build(width: int) -> Text:
            text = Text()
            for i, option in enumerate(options):
                value = value_text(option, value_of(self.settings, option), device=self.device)
                mark = ">" if i == self.row else " "  # the row shows without colour too
                line = Text(f"{mark} {option.label:<22} < {value} >")
                if i == self.row:
                    line.stylize("reverse")
                text.append_text(line)
                text.append("\n")
            text.append("up/down choose, left/right change, Enter keep, Esc cancel", style="dim")
            return text

        self.query_one("#options", TextPanel).show(build)

    def action_move(self, step: int) -> None:
        """Select another option."""
        count = len(options_for(self.settings.profile))
        self.row = (self.row + step) % count
        self._draw()

    def action_change(self, step: int) -> None:
        """Step the selected option's value."""
        option = options_for(self.settings.profile)[self.row]
        self.settings = stepped(self.settings, option, step)
        self._draw()

    def action_keep(self) -> None:
        """Close with the settings."""
        self.dismiss(self.settings)


class JobEditor(_Dialog):
    """Edit a fio job file; Ctrl+S checks and keeps it, Esc drops the edit."""

    DEFAULT_CSS = BOX_CSS.format(name="JobEditor") + "JobEditor TextArea { height: 14; }"
    TITLE = "custom fio job (Ctrl+S keeps, Esc cancels)"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss(None)", "cancel"),
        Binding("ctrl+s", "keep", "keep", priority=True),
    ]

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text or JOB_TEMPLATE

    def compose(self) -> ComposeResult:
        with Vertical(classes="bench-box"):
            yield TextArea(self.text, id="job-text", show_line_numbers=False)
            yield TextPanel(id="job-status")

    def on_mount(self) -> None:
        super().on_mount()
        self._status("nastui adds the target (filename=) and streams the status", "dim")
        self.query_one("#job-text", TextArea).focus()

    def _status(self, message: str, style: str) -> None:
        self.query_one("#job-status", TextPanel).show(lambda w: Text(message[:w], style=style))

    def action_keep(self) -> None:
        """Check the job; keep it when fio may run it."""
        text = self.query_one("#job-text", TextArea).text
        try:
            check_custom_job(text)
        except ValueError as exc:
            self._status(str(exc), "bold red")
            return
        self.dismiss(text)


class SerialConfirm(_Dialog):
    """Type the device's serial number to let a run write to it."""

    DEFAULT_CSS = BOX_CSS.format(name="SerialConfirm").replace("ansi_blue", "ansi_red")
    TITLE = "this run WRITES to the raw device"

    def __init__(self, target: BenchTarget, profile: str, note: str | None = None) -> None:
        """`note`: the guard's line on processes it could not look into, shown above."""
        super().__init__()
        self.target, self.profile, self.note = target, profile, note

    def compose(self) -> ComposeResult:
        with Vertical(classes="bench-box -danger"):
            yield TextPanel(id="serial-text", wrap=True)
            yield Input(placeholder="serial number", id="serial")

    def on_mount(self) -> None:
        super().on_mount()
        token = self.target.confirm_token
        what = "serial number" if token != self.target.path else "path (no serial number)"

        def build(width: int) -> Text:
            text = Text(f"{self.profile} writes to {self.target.path}: ", style="bold")
            text.append("everything on it is lost.\n")
            if self.note:
                text.append(f"{self.note}.\n", style="yellow")
            text.append(f"Type its {what} ")
            text.append(token, style="bold")
            text.append(" and press Enter; Esc cancels.")
            return text

        self.query_one("#serial-text", TextPanel).show(build)
        self.query_one("#serial", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value)
