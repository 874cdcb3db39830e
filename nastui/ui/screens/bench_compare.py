"""The compare view: mark two or more runs (disk A and B, cache on and off) and see them side
by side, one metric at a time, with each run's graph of it under the table.

Keys: up/down choose a run, space marks it, m cycles the metric, x writes the comparison as SVG,
Esc goes back. The first marked run is the baseline; `!` marks a change for the worse.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll

from nastui.bench.chart import chart_glyphs, latency_chart, nice_top, rate_chart
from nastui.bench.compare import METRICS
from nastui.bench.svg import runs_svg
from nastui.model import BenchRun, BenchSample, RunState
from nastui.safeio import write_atomic
from nastui.ui.render.bench import compare_text, run_line
from nastui.ui.screens.base import NasScreen
from nastui.ui.widgets.textpanel import TextPanel

METRIC_ORDER = ("iops", "mbps", "p50", "p99", "mean", "seconds")
GRAPH_ROWS = 3
MAX_COPIES = 1000  # stem.svg, stem-2.svg ... stem-1000.svg, then it says so


def export_svg(screen: NasScreen, directory: Path, stem: str, svg: str) -> None:
    """Write `svg` as `stem.svg` in `directory`, never over a file: a name taken (an earlier
    export, of other runs marked) gets the next free `stem-N.svg`; the notice names the file."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        for n in range(1, MAX_COPIES + 1):
            path = directory / (f"{stem}.svg" if n == 1 else f"{stem}-{n}.svg")
            try:
                write_atomic(path, svg, 0o644, durable=False, new=True)
                break
            except FileExistsError:
                continue
        else:
            screen.notify(
                f"{directory / stem}.svg and {MAX_COPIES - 1} more exist: remove some",
                title="not written",
                severity="error",
            )
            return
    except OSError as exc:
        screen.notify(f"{directory}: {exc.strerror}", title="not written", severity="error")
        return
    screen.notify(f"graph written to {path}")


def _zero(value: Callable[[BenchSample], float | None]) -> Callable[[BenchSample], float]:
    return lambda sample: value(sample) or 0.0


class BenchCompareScreen(NasScreen):
    """Runs side by side."""

    SCREEN_NAME = "bench compare"
    KEYS = "up/down run  space mark  m metric  x svg  Esc back"
    DEFAULT_CSS = """
    BenchCompareScreen #compare-runs { height: auto; max-height: 8; }
    BenchCompareScreen #compare-scroll { height: 1fr; scrollbar-size-vertical: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,backspace", "app.pop_screen", "back"),
        Binding("up,k", "move(-1)", "up", show=False),
        Binding("down,j", "move(1)", "down", show=False),
        Binding("space", "mark", "mark"),
        Binding("m", "metric", "metric"),
        Binding("x", "export", "svg"),
    ]

    def __init__(self, runs: list[BenchRun], export_dir: Path) -> None:
        super().__init__()
        self.runs = runs
        self.export_dir = export_dir
        self.row = max(0, len(runs) - 1)
        # The two newest runs start marked: the usual question is "this one against the last".
        self.marked: list[int] = list(range(max(0, len(runs) - 2), len(runs)))
        self.metric = "iops"

    def compose_body(self) -> ComposeResult:
        yield TextPanel(id="compare-runs", classes="panel")
        with VerticalScroll(id="compare-scroll", classes="panel"):
            yield TextPanel(id="compare-table")

    def on_mount(self) -> None:
        self.query_one("#compare-runs").border_title = "runs"
        super().on_mount()
        self.draw()

    def chosen(self) -> list[BenchRun]:
        """The marked runs, in the order they were marked."""
        return [self.runs[i] for i in self.marked if i < len(self.runs)]

    def numbers(self) -> list[int]:
        """The marked runs' own numbers in the list (#2 stays #2)."""
        return [i + 1 for i in self.marked if i < len(self.runs)]

    def draw(self) -> None:
        """Draw the run list, the table and the graphs."""
        self.query_one("#compare-scroll").border_title = f"compare: {METRICS[self.metric].title}"

        def runs_text(width: int) -> Text:
            if not self.runs:
                return Text("no runs yet: run one on the bench screen (n)", style="dim")
            text = Text()
            for i, run in enumerate(self.runs):
                if i:
                    text.append("\n")
                text.append_text(run_line(i, run, i in self.marked, i == self.row, width))
            return text

        self.query_one("#compare-runs", TextPanel).show(runs_text)
        self.query_one("#compare-table", TextPanel).show(self._table)

    def _table(self, width: int) -> Text:
        metric = METRICS[self.metric]
        chosen = self.chosen()
        text = compare_text(chosen, metric, width, self.numbers())
        if len(chosen) < 2 or not any(r.samples for r in chosen):
            return text
        glyphs = chart_glyphs(self.nas.ascii_only)
        plot = (max(10, width - 8), GRAPH_ROWS)
        tops = [max((metric.sample(s) or 0.0 for s in r.samples), default=0.0) for r in chosen]
        for number, run in zip(self.numbers(), chosen, strict=True):
            state = "" if run.state is RunState.COMPLETE else f" ({run.state.value})"
            text.append(f"\n#{number} {run.run_id}{state}", style="bold")
            if metric.lower_is_better:
                chart = latency_chart(run.samples, plot, glyphs)
            else:
                top = nice_top(max(tops))
                chart = rate_chart(run.samples, _zero(metric.sample), plot, glyphs, top)
            for label, row in zip(chart.labels, chart.rows, strict=True):
                text.append(f"\n{label:>6}{glyphs.axis}", style="dim")
                text.append("".join(c for c, _ in row), style="cyan")
        return text

    def action_move(self, step: int) -> None:
        """Choose another run."""
        if self.runs:
            self.row = (self.row + step) % len(self.runs)
            self.draw()

    def action_mark(self) -> None:
        """Mark or unmark the chosen run."""
        if not self.runs:
            return
        if self.row in self.marked:
            self.marked.remove(self.row)
        else:
            self.marked.append(self.row)
        self.draw()

    def action_metric(self) -> None:
        """The next metric."""
        self.metric = METRIC_ORDER[(METRIC_ORDER.index(self.metric) + 1) % len(METRIC_ORDER)]
        self.draw()

    def action_export(self) -> None:
        """Write the marked runs' graph of the metric as SVG."""
        chosen = self.chosen()
        if not chosen:
            self.notify("mark runs first (space)", severity="warning")
            return
        stem = f"compare-{chosen[0].run_id}-{self.metric}"
        export_svg(self, self.export_dir, stem, runs_svg(chosen, METRICS[self.metric]))
