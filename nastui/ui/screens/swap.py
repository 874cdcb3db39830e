"""The swap screen (`w` in drive detail or on a bay): the plan for the bay's drive, or the swap
in progress followed on every snapshot, with the same steps as `nastui swap`.

`s` starts the swap (after a y/n question), `r` asks for the new drive's serial and replaces
onto it, `a` aborts (after a question), Esc goes back. A wrong pull shows at the top as a
CRITICAL line naming the bay to put back. The work runs in a worker, never on the event loop.
"""

from __future__ import annotations

import textwrap
from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Input

from nastui.control.statefile import StateError
from nastui.model import HostSnapshot
from nastui.swap.flow import steps
from nastui.swap.flow.box import Box, open_box
from nastui.swap.logic.plan import SwapPlan
from nastui.swap.logic.state import Swap, SwapPhase
from nastui.swap.logic.undo import abort_ops
from nastui.swap.view import plan_text, swap_text
from nastui.ui.screens.base import NasScreen
from nastui.ui.screens.confirm import ConfirmScreen
from nastui.ui.widgets.textpanel import TextPanel


def wrapped(text: str, width: int) -> Text:
    """The lines folded to `width`, continuations indented under their line."""
    out: list[str] = []
    for line in text.splitlines():
        indent = " " * (len(line) - len(line.lstrip()) + 2)
        out += textwrap.wrap(
            line, max(20, width), subsequent_indent=indent, break_on_hyphens=False
        ) or [""]
    text_out = Text("\n".join(out))
    for word in ("CRITICAL", "REFUSED", "BLOCKS"):
        text_out.highlight_words([word], style="bold red")
    return text_out


class SwapScreen(NasScreen):
    """Replacing the drive of one bay."""

    SCREEN_NAME = "swap"
    KEYS = "s start  r replace  a abort  Esc back"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,backspace", "back", "back"),
        Binding("s", "start", "start the swap"),
        Binding("r", "replace", "replace onto the new drive"),
        Binding("a", "abort", "abort the swap"),
    ]

    def __init__(self, bay: int) -> None:
        super().__init__()
        self.bay = bay
        self.swap: Swap | None = None
        self.plan: SwapPlan | None = None  # the plan shown: no swap in progress

    def compose_body(self) -> ComposeResult:
        with VerticalScroll(id="swap-scroll", classes="panel"):
            yield TextPanel(id="swap-text")
        yield Input(
            placeholder="the new drive's serial, then Enter", id="swap-serial", classes="-hidden"
        )

    def on_mount(self) -> None:
        super().on_mount()
        scroll = self.query_one("#swap-scroll", VerticalScroll)
        scroll.border_title = f"swap: bay {self.bay}"
        scroll.focus()

    def _box(self, snapshot: HostSnapshot) -> Box:
        return open_box(self.nas.session, snapshot)

    def show(self, snapshot: HostSnapshot) -> None:
        self.follow(snapshot)

    @work(exclusive=True, group="swap", exit_on_error=False)
    async def follow(self, snapshot: HostSnapshot) -> None:
        """Follow the swap in progress on this snapshot, or show the bay's plan."""
        box = self._box(snapshot)
        try:
            self.swap = await steps.refresh(box)
        except StateError as exc:
            self._text(str(exc))
            return
        notice = f"{box.store.notice}\n\n" if box.store.notice else ""
        if self.swap is not None and self.swap.active:
            self.plan = None
            self._text(notice + swap_text(self.swap))
        else:
            self.plan = box.plan(str(self.bay))
            self._text(plan_text(self.plan))

    def _text(self, text: str) -> None:
        self.query_one("#swap-text", TextPanel).show(lambda w: wrapped(text, w))

    def action_back(self) -> None:
        """Hide the serial box, or leave the screen."""
        box = self.query_one("#swap-serial", Input)
        if not box.has_class("-hidden"):
            box.add_class("-hidden")
            self.query_one("#swap-scroll").focus()
            return
        self.app.pop_screen()

    def action_start(self) -> None:
        """Ask, then prepare the swap (offline/fail the member, light the LED)."""
        if self.swap is not None and self.swap.phase is SwapPhase.PREPARING:
            self.notify("the swap stopped while preparing: a aborts it, undoing what may have run")
            return
        if self.swap is not None and self.swap.active:
            self.notify("a swap is in progress: r replaces once the new drive is in")
            return
        refusal = self._refusal()
        if refusal is not None:  # the start would refuse it: no question that says otherwise
            self.notify(f"refused: {refusal}", severity="warning")
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.act("start")

        question = f"Start replacing the drive in bay {self.bay}? Its member is taken offline."
        self.app.push_screen(ConfirmScreen(question, title="swap"), answered)

    def _refusal(self) -> str | None:
        """Why the shown plan cannot start (an empty bay, pulling it loses data), or None."""
        plan = self.plan
        if plan is None:
            return None
        return plan.refusal or (None if plan.drive is not None else "no drive in this bay")

    def _nothing_to_follow(self) -> bool:
        """True (and said) when the plan is shown, no swap: replace and abort have nothing."""
        if self.plan is not None:
            hint = "" if self._refusal() else ": s starts one"
            self.notify(f"no swap in progress{hint}", severity="warning")
            return True
        return False

    def action_replace(self) -> None:
        """Ask for the new drive's serial (read off its label)."""
        if self._nothing_to_follow():
            return
        box = self.query_one("#swap-serial", Input)
        box.remove_class("-hidden")
        box.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.input.add_class("-hidden")
        self.query_one("#swap-scroll").focus()
        if event.value.strip():
            self.act("replace", event.value.strip())

    def action_abort(self) -> None:
        """Ask, then stop following the swap."""
        if self._nothing_to_follow():
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.act("abort")

        self.app.push_screen(ConfirmScreen(self._abort_question()), answered)

    def _abort_question(self) -> str:
        swap, snapshot = self.swap, self.nas.snapshot
        if swap is not None and swap.phase is SwapPhase.PREPARING:
            return "Abort the swap? What may have run of its preparation is undone first."
        if swap is not None and snapshot is not None and abort_ops(swap, snapshot):
            return "Abort the swap? Its member is put back in service first (the drive is in)."
        return "Abort the swap? The pool is left as it is."

    @work(exclusive=True, group="swap-act", exit_on_error=False)
    async def act(self, action: str, serial: str = "") -> None:
        """Run one step and say what happened."""
        snapshot = self.nas.snapshot
        if snapshot is None:
            return
        box = self._box(snapshot)
        try:
            if action == "start":
                outcome = await steps.start(box, str(self.bay))
            elif action == "replace":
                outcome = await steps.replace(box, serial)
            else:
                outcome = await steps.abort(box)
        except StateError as exc:
            self.notify(str(exc), severity="error")
            return
        if outcome.error is not None:
            self.notify(outcome.error, severity="error")
        else:
            done = outcome.notes[-1] if outcome.notes else f"swap: {action} done"
            self.notify(done)
        self.nas.poll_now()
