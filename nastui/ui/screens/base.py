"""What every nastui screen has: a title line on top, a key bar at the bottom, and a hook that
hands each new snapshot to the screen's widgets."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, cast

from rich.text import Text
from textual.app import ComposeResult
from textual.screen import Screen

from nastui.model import HostSnapshot
from nastui.ui.redraw import start_update_timer
from nastui.ui.render.panels import title_text
from nastui.ui.widgets.textpanel import TextPanel

if TYPE_CHECKING:
    from nastui.ui.app import NastuiApp

NAV_KEYS = "d b p f n H screens"
ALWAYS_KEYS = ("? help", "q quit")


def key_bar(keys: str, width: int) -> Text:
    """The bottom line: this screen's keys, then the navigation keys, then help and quit.

    Whole items only: what does not fit is left out (help lists every key), never cut; help
    and quit always stay.
    """
    tail = "  ".join(ALWAYS_KEYS)
    chosen: list[str] = []
    used = len(tail)
    for item in [k for k in keys.split("  ") if k]:
        if used + len(item) + 2 > width:
            break
        chosen.append(item)
        used += len(item) + 2
    nav = NAV_KEYS if used + len(NAV_KEYS) + 2 <= width else ""
    text = Text()
    text.append("  ".join(chosen), style="bold")
    text.append(("  " if chosen else "") + "  ".join(x for x in (nav, tail) if x), style="dim")
    return text


class NasScreen(Screen[None]):
    """Base screen: title, body (from `compose_body`), key bar; `show` gets every snapshot.

    A screen with `PAUSE_WHEN_COVERED` draws nothing while it is out of sight (another mode is
    shown, or a full screen is pushed over it) and catches up when it shows again: a screen
    under another one still costs bytes, since Textual repaints the top screen wherever one
    below it changed. Screens that act on each snapshot (the swap follows the pull and insert)
    leave it False.
    """

    SCREEN_NAME = "nastui"
    KEYS = ""
    PAUSE_WHEN_COVERED: ClassVar[bool] = False
    _owed = False

    @property
    def nas(self) -> NastuiApp:
        """The app, typed."""
        return cast("NastuiApp", self.app)

    def compose(self) -> ComposeResult:
        start_update_timer(self)
        yield TextPanel(id="title", classes="chrome")
        yield from self.compose_body()
        yield TextPanel(id="keys", classes="chrome")

    def compose_body(self) -> ComposeResult:
        """The screen's own widgets."""
        yield from ()

    def on_mount(self) -> None:
        self.query_one("#keys", TextPanel).show(lambda w: key_bar(self.KEYS, w))
        self.watch(self.app, "snapshot", self._snapshot_changed, init=True)

    def _compositor_refresh(self) -> None:
        # Textual renders a screen's changes in a batch too, and writes nothing of them
        # (`App._display`): while the first paint is held, the dashboard was rendered in full
        # twice for nothing. The first paint renders it (`redraw.paint_now`).
        if self.nas.holding_first_paint:
            return
        super()._compositor_refresh()

    def covered(self) -> bool:
        """True (and a redraw owed for when it shows again) if this screen pauses while out of
        sight and is: not in the shown stack, or under another full screen."""
        if not self.PAUSE_WHEN_COVERED:
            return False
        stack = self.app.screen_stack
        hidden = self not in stack or any(
            isinstance(s, NasScreen) for s in stack[stack.index(self) + 1 :]
        )
        self._owed = self._owed or hidden
        return hidden

    def on_screen_resume(self) -> None:
        if self._owed and not self.covered():
            self._owed = False
            self._snapshot_changed(self.nas.snapshot)

    def title_note(self) -> str:
        """What the top line says beside the host (an active filter); screens override."""
        return ""

    def refresh_title(self) -> None:
        """Draw the top line again (after `title_note` changed)."""
        snapshot = self.nas.snapshot
        note = self.title_note()
        self.query_one("#title", TextPanel).show(
            lambda w: title_text(snapshot, self.SCREEN_NAME, w, note=note)
        )

    def _snapshot_changed(self, snapshot: HostSnapshot | None) -> None:
        if self.covered():
            return
        self.refresh_title()
        if snapshot is not None:
            self.show(snapshot)

    def show(self, snapshot: HostSnapshot) -> None:
        """Draw a new snapshot (screens override this)."""
