"""`BenchChart`: a live benchmark graph that repaints only the cells that changed.

A title line (what, now, mean, max) over a `nastui.bench.chart.Chart`. Each update is compared
cell by cell with the last one and only the changed span of each row is refreshed, so a new
sample each second costs a column of cells, not the chart: on a serial console the graphs stay
within a few hundred bytes a second. The axis top only rises (`top`), so a new sample below it
never rescales the picture.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.geometry import Region, Size
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from nastui.bench.chart import LABEL_W, Cell, Chart
from nastui.ui.redraw import changed_cells

ROLE_STYLE = {
    "bar": Style(color="cyan"),
    "ramp": Style(dim=True),
    "p50": Style(color="cyan", bold=True),
    "p99": Style(color="yellow", bold=True),
    "": Style(),
}
LABEL_STYLE = Style(dim=True)


class BenchChart(Widget):
    """A title line and a character chart."""

    DEFAULT_CSS = """
    BenchChart { height: 5; }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.title = Text("")
        self.labels: tuple[str, ...] = ()
        self.rows: tuple[tuple[Cell, ...], ...] = ()
        self.axis = "|"
        self.top: float | None = None  # the rate axis top: it only rises within a run
        self.span: tuple[float, float] | None = None  # the latency decades: they only widen
        self._strips: dict[int, Strip] = {}

    @property
    def plot_size(self) -> tuple[int, int]:
        """(columns, rows) available for the plot."""
        return max(10, self.size.width - LABEL_W), max(1, self.size.height - 1)

    def reset(self) -> None:
        """Forget the scale (a new run starts)."""
        self.top = None
        self.span = None

    def update_chart(self, title: Text, chart: Chart, axis: str) -> None:
        """Show `chart` under `title`; refresh only what differs from what is on screen."""
        old_rows, old_labels = self.rows, self.labels
        if title != self.title:
            start, end = changed_cells(self.title, title, self.size.width)
            self.title = title
            self._dirty(0, start, end)
        self.axis = axis
        self.labels, self.rows = chart.labels, chart.rows
        if len(chart.rows) != len(old_rows) or chart.labels != old_labels:
            self._strips.clear()
            self.refresh()
            return
        for y, (new, old) in enumerate(zip(chart.rows, old_rows, strict=True)):
            if new == old:
                continue
            changed = [x for x in range(max(len(new), len(old))) if _at(new, x) != _at(old, x)]
            if changed:
                self._dirty(y + 1, LABEL_W + changed[0], LABEL_W + changed[-1] + 1)

    def _dirty(self, y: int, start: int, end: int) -> None:
        self._strips.pop(y, None)
        self.refresh(Region(start, y, max(1, end - start), 1))

    class Resized(Message):
        """The chart got another size: its owner should draw it again for that size."""

    def on_resize(self) -> None:
        self._strips.clear()
        self.post_message(self.Resized())

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return 1 + len(self.rows)

    def render_line(self, y: int) -> Strip:
        strip = self._strips.get(y)
        if strip is None:
            strip = self._build(y)
            self._strips[y] = strip
        return strip.crop_extend(0, self.size.width, self.rich_style)

    def _build(self, y: int) -> Strip:
        if y == 0:
            title = self.title.copy()
            title.end = ""
            return Strip(list(title.render(self.app.console)), title.cell_len)
        row = y - 1
        if row >= len(self.rows):
            return Strip.blank(self.size.width, self.rich_style)
        label = self.labels[row] if row < len(self.labels) else ""
        text = Text(f"{label:>{LABEL_W - 1}}{self.axis}", style=LABEL_STYLE, end="")
        for char, role in self.rows[row]:
            text.append(char, ROLE_STYLE.get(role, Style()))
        return Strip(list(text.render(self.app.console)), text.cell_len).simplify()

    @property
    def plain(self) -> str:
        """The chart as text (for tests)."""
        lines = [self.title.plain]
        for label, row in zip(self.labels, self.rows, strict=False):
            lines.append(f"{label:>{LABEL_W - 1}}{self.axis}" + "".join(c for c, _ in row))
        return "\n".join(line.rstrip() for line in lines)


def _at(row: tuple[Cell, ...], x: int) -> Cell:
    return row[x] if x < len(row) else (" ", "")
