"""The pools screen: each pool's state, scan progress with rate and ETA, last completed scrub
and the vdev tree with READ/WRITE/CKSUM counters, scrolling when it does not fit."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll

from nastui.model import HostSnapshot
from nastui.ui.render.pools import pool_detail
from nastui.ui.screens.base import NasScreen
from nastui.ui.widgets.textpanel import TextPanel


class PoolsScreen(NasScreen):
    """Every pool in detail."""

    SCREEN_NAME = "pools"
    KEYS = "up/down/PgUp/PgDn scroll"

    def compose_body(self) -> ComposeResult:
        with VerticalScroll(id="pools-scroll", classes="panel"):
            yield TextPanel(id="pool-detail")

    def on_mount(self) -> None:
        super().on_mount()
        scroll = self.query_one("#pools-scroll", VerticalScroll)
        scroll.border_title = "pools"
        scroll.focus()

    def show(self, snapshot: HostSnapshot) -> None:
        glyphs = self.nas.glyphs

        def build(width: int) -> Text:
            if not snapshot.pools:
                return Text("no pools found", style="dim")
            text = Text()
            for i, pool in enumerate(snapshot.pools):
                if i:
                    text.append("\n\n")
                text.append_text(pool_detail(pool, snapshot, width, glyphs))
            return text

        self.query_one("#pool-detail", TextPanel).show(build)
