"""Baseline for `make perf`: the naive way to draw a 24-bay grid in Textual.

24 `Static` widgets in a CSS grid with the default theme and borders, each given a new
temperature every second: what the issue's "naive 24-cell Textual grid" figures describe.
nastui's figures are printed as ratios against this, measured in the same run.
"""

from __future__ import annotations

import random

from textual.app import App, ComposeResult
from textual.containers import Grid
from textual.widgets import Footer, Header, Static


class NaiveGrid(App[None]):
    """24 bordered cells updated every second."""

    CSS = """
    Grid { grid-size: 4 6; }
    Static { border: round $primary; height: 100%; content-align: center middle; }
    """

    def compose(self) -> ComposeResult:
        yield Header()
        with Grid():
            for bay in range(24):
                yield Static(f"bay {bay}\nsd?  35°C", id=f"b{bay}")
        yield Footer()

    def on_mount(self) -> None:
        self._rng = random.Random(0)
        self.set_interval(1.0, self._tick)

    def _tick(self) -> None:
        bay = self._rng.randrange(24)
        self.query_one(f"#b{bay}", Static).update(f"bay {bay}\nsd?  {self._rng.randint(33, 41)}°C")


if __name__ == "__main__":
    NaiveGrid().run()
