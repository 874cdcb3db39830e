"""What `nastui bench` prints: rich progress bars while a run goes, and tables after (rich,
never Textual). ASCII consoles get ASCII bars and boxes (`console_for`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TextIO

from rich import box
from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    TaskID,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Column, Table

from nastui.bench.chart import chart_glyphs, chart_lines, latency, latency_chart, rate_chart, short
from nastui.bench.compare import Metric, describe, table
from nastui.bench.guard import unseen_note
from nastui.bench.profiles import DEFAULT_FILE
from nastui.bench.runner import (
    Event,
    ProcessUnseen,
    RunNote,
    SampleReady,
    StepFinished,
    StepStarted,
)
from nastui.cli.asciiout import AsciiStream
from nastui.core.units import size
from nastui.model import BenchRun, BenchSample, StepResult, TargetKind


def console_for(out: TextIO, *, ascii_only: bool, color: bool) -> Console:
    """A rich console on `out`: colours as asked, ASCII bars and boxes when asked; text as it
    is (no emoji codes: a job line "root:x:0:0" was printed "root❌0:0")."""
    file: Any = AsciiStream(out) if ascii_only else out
    return Console(file=file, no_color=not color, highlight=False, soft_wrap=True, emoji=False)


def figures(sample: BenchSample) -> str:
    """A sample's figures in one short line."""
    disk = ""
    if sample.disk_read_bps is not None and sample.disk_write_bps is not None:
        disk = f"  disk {short(sample.disk_read_bps + sample.disk_write_bps)}B/s"
    return (
        f"{short(sample.iops)} IOPS  {short(sample.bps)}B/s  "
        f"p50 {latency(sample.lat_p50_ns)} p99 {latency(sample.lat_p99_ns)}{disk}"
    )


class LiveProgress:
    """Rich progress bars for a run: the whole run and the current step, with live figures."""

    def __init__(self, console: Console, *, quiet: bool) -> None:
        self.console, self.quiet = console, quiet
        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            TaskProgressColumn(),
            TimeElapsedColumn(),
            TextColumn(
                "{task.fields[figures]}", table_column=Column(no_wrap=True, overflow="ellipsis")
            ),
            console=console,
            transient=False,
            disable=quiet,
        )
        self._run: TaskID | None = None
        self._step: TaskID | None = None
        self._started: StepStarted | None = None
        self._t0: float | None = None

    def __enter__(self) -> LiveProgress:
        self.progress.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.__exit__(None, None, None)

    def event(self, event: Event) -> None:
        """Show one runner event."""
        if isinstance(event, StepStarted):
            self._begin(event)
        elif isinstance(event, SampleReady) and self._step is not None:
            self._advance(event.sample)
        elif isinstance(event, StepFinished):
            self._finish(event.result)
        elif isinstance(event, RunNote) and not self.quiet:
            self.progress.console.print(f"  {event.text}", style="dim", markup=False)
        elif isinstance(event, ProcessUnseen):  # quiet or not: the guard's own notice
            self.console.print(event.text, style="yellow", markup=False)

    def _begin(self, event: StepStarted) -> None:
        self._started, self._t0 = event, None
        if self._run is None:
            self._run = self.progress.add_task("run", total=event.total, figures="")
        total = event.step.seconds or event.step.bytes_total
        name = f"{event.index + 1}/{event.total} {event.step.label}"
        self._step = self.progress.add_task(name, total=total, figures="")

    def _advance(self, sample: BenchSample) -> None:
        step = self._started.step if self._started else None
        if self._step is None or step is None:
            return
        if self._t0 is None:
            self._t0 = sample.t - sample.seconds
        done = None
        if step.seconds:
            done = sample.t - self._t0
        elif step.bytes_total:
            done = sample.bytes_done
        self.progress.update(self._step, completed=done, figures=figures(sample))

    def _finish(self, result: StepResult) -> None:
        if self._step is not None:
            task = self.progress.tasks[-1]
            self.progress.update(self._step, completed=task.total, figures=step_line(result))
            self.progress.stop_task(self._step)
        if self._run is not None:
            self.progress.advance(self._run)
        if self.quiet:
            self.console.print(f"{result.label}: {step_line(result)}", markup=False)


def step_line(result: StepResult) -> str:
    """A step's result in one line."""
    if result.error:
        return f"FAILED: {result.error}"
    timings = " ".join(f"{name} {secs:.2f}s" for name, secs in result.timings)
    return (
        f"{short(result.iops)} IOPS  {short(result.bps)}B/s  mean {latency(result.lat_mean_ns)}"
        f"  p99 {latency(result.lat_p99_ns)}" + (f"  {timings}" if timings else "")
    )


def steps_table(run: BenchRun, *, ascii_only: bool) -> Table:
    """The final table: every step's figures."""
    grid = Table(box=box.ASCII if ascii_only else box.SIMPLE_HEAD, title=describe(run))
    for name in ("step", "IOPS", "MB/s", "mean", "p50", "p99", "p99.9", "seconds"):
        grid.add_column(name, justify="left" if name == "step" else "right")
    for step in run.steps:
        seconds = (
            " + ".join(f"{secs:.2f}" for _, secs in step.timings)
            if step.timings
            else f"{step.seconds:.1f}"
        )
        grid.add_row(
            step.label,
            short(step.iops),
            f"{step.bps / 1e6:.1f}",
            latency(step.lat_mean_ns),
            latency(step.lat_p50_ns),
            latency(step.lat_p99_ns),
            latency(step.lat_p999_ns),
            seconds,
            style="red" if step.error else None,
        )
    return grid


def header_lines(run: BenchRun) -> list[str]:
    """What a run was: target, identity, settings, state, warnings, the processes the guard
    could not look into (a run that wrote), SMART changes."""
    ident = run.target.identity
    lines = [f"run {run.run_id} on {run.host}: {run.state.value}: {run.message}"]
    who = (
        " ".join(f"{k} {v}" for k, v in (("model", ident.model), ("serial", ident.serial)) if v)
        if ident
        else ""
    )
    if ident and ident.firmware:
        who += f" firmware {ident.firmware}"
    lines.append(f"target {run.target.path} ({run.target.kind.value}) {who}".rstrip())
    s = run.settings
    whole = "whole device" if run.target.kind is TargetKind.DEVICE else size(DEFAULT_FILE)
    settings = (
        "size, time, direct I/O and data: the job file's own"  # nastui sets none of them
        if s.profile == "custom"
        else f"size {size(s.size_bytes, unknown=whole)}, "
        f"direct {'on' if s.direct else 'off'}, refill {'on' if s.refill else 'off'}"
    )
    lines.append(
        f"profile {s.profile}: {settings}" + (", write-cache matrix" if s.cache_matrix else "")
    )
    lines += [f"warning: {w}" for w in run.warnings]
    note = unseen_note(run.settings, run.target)
    lines += [f"guard: {note}"] if note else []
    lines += smart_changes(run)
    return lines


def smart_changes(run: BenchRun) -> list[str]:
    """SMART counters that changed during the run, one line each."""
    if run.smart_before is None or run.smart_after is None:
        return ["SMART: not available for this device"]
    before = dict(run.smart_before)
    changed = [
        f"SMART {name}: {before[name]} -> {value}"
        for name, value in run.smart_after
        if name in before and before[name] != value
    ]
    return changed or ["SMART: no counter changed"]


def chart_text(run: BenchRun, metric: Metric, width: int, *, ascii_only: bool) -> list[str]:
    """A metric over the run as text lines (latency metrics draw p50 and p99)."""
    glyphs = chart_glyphs(ascii_only)
    plot = max(20, width - 8)
    if metric.lower_is_better:
        chart = latency_chart(run.samples, (plot, 8), glyphs)
        legend = f"{metric.title}: {glyphs.p50} p50  {glyphs.p99} p99"
    else:
        chart = rate_chart(run.samples, lambda s: metric.sample(s) or 0.0, (plot, 8), glyphs)
        legend = metric.title
    every = f"{chart.step} samples" if chart.step > 1 else "one sample"
    return [f"{legend} over time ({every} per column)", *chart_lines(chart, plot, glyphs)]


def compare_table(
    runs: Sequence[BenchRun],
    metric: Metric,
    *,
    ascii_only: bool,
    numbers: Sequence[int] | None = None,
) -> Table:
    """Runs side by side by their own numbers, the first as baseline (`!` marks a
    regression; a failed step shows "failed")."""
    rows = table(runs, metric, numbers)
    grid = Table(box=box.ASCII if ascii_only else box.SIMPLE_HEAD)
    for i, name in enumerate(rows[0]):
        grid.add_column(name, justify="left" if i == 0 else "right")
    for row in rows[1:]:
        grid.add_row(*row)
    return grid
