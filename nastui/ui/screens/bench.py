"""The bench screen: pick a profile and a target, run it, and watch IOPS, bandwidth and latency
(p50 and p99) grow live, with the device's own /proc/diskstats figures beside them.

The runner is `nastui.bench.runner.BenchRunner`, the CLI's too, in a worker on the app's loop.
Its events arrive as they happen; the screen draws at most once a second and only what changed
(`BenchChart` diffs cells, `TextPanel` lines), so a run costs little on a serial console. `s`
stops a run: fio gets SIGINT, its final figures are kept, and the run is saved as interrupted.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.worker import Worker

from nastui.bench import store
from nastui.bench.chart import chart_glyphs, latency_chart, measured, nice_top, rate_chart
from nastui.bench.compare import METRICS
from nastui.bench.guard import unseen_note, writes
from nastui.bench.profiles import PROFILES, honesty_warnings, plan
from nastui.bench.runner import (
    UI_SIGNALS,
    BenchRunner,
    Event,
    ProcessUnseen,
    RunNote,
    SampleReady,
    StepFinished,
    StepStarted,
    stop_on_signals,
)
from nastui.bench.svg import runs_svg
from nastui.collectors.fio_target import TargetError
from nastui.model import BenchRun, BenchSample, BenchSettings, BenchTarget, RunState, StepResult
from nastui.model import TargetKind as Kind
from nastui.ui.render.bench import chart_title, latency_title, now_text, setup_text, steps_text
from nastui.ui.screens.base import NasScreen
from nastui.ui.screens.bench_modals import JobEditor, OptionsForm, SerialConfirm, TargetPicker
from nastui.ui.screens.bench_source import BenchSource, source_for
from nastui.ui.widgets.benchchart import BenchChart
from nastui.ui.widgets.textpanel import TextPanel

REDRAW_S = 1.0
# The steps panel has a fixed height (a panel that grows is laid out again, repainting the
# whole screen): 3 lines on a small terminal, where the graphs need the room, else 7.
STEPS_LINES = (3, 7)
SIDE_WIDTH = 22
RATES: tuple[tuple[str, str, Callable[[BenchSample], float], str], ...] = (
    ("chart-iops", "IOPS", lambda s: s.iops, ""),
    ("chart-bw", "B/s", lambda s: s.bps, "B/s"),
)


class BenchScreen(NasScreen):
    """Benchmarks with live graphs."""

    SCREEN_NAME = "bench"
    KEYS = "r run  s stop  o options  t target  e job  c compare  x svg"
    DEFAULT_CSS = f"""
    BenchScreen #bench-setup {{ height: auto; max-height: 6; }}
    BenchScreen #bench-main {{ height: 1fr; }}
    BenchScreen #bench-graphs {{ width: 1fr; height: 100%; }}
    BenchScreen BenchChart {{ height: 1fr; min-height: 3; }}
    BenchScreen #bench-now {{ width: {SIDE_WIDTH}; height: 100%; padding-left: 1; }}
    BenchScreen #bench-steps {{ height: {STEPS_LINES[0] + 1}; }}
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "run", "run"),
        Binding("s", "stop", "stop"),
        Binding("o", "options", "options"),
        Binding("t", "target", "target"),
        Binding("e", "edit_job", "edit job"),
        Binding("c", "compare", "compare"),
        Binding("x", "export", "svg"),
    ]

    def compose_body(self) -> ComposeResult:
        yield TextPanel(id="bench-setup")
        with Horizontal(id="bench-main"):
            with Vertical(id="bench-graphs", classes="panel"):
                yield BenchChart(id="chart-iops")
                yield BenchChart(id="chart-bw")
                yield BenchChart(id="chart-lat")
            yield TextPanel(id="bench-now", classes="panel")
        yield TextPanel(id="bench-steps", classes="panel")

    def on_mount(self) -> None:
        self.source: BenchSource = self.nas.bench_source or source_for(
            self.nas.session, lambda: self.nas.snapshot, live=self.nas.live
        )
        source = self.source
        self.runner = BenchRunner(
            source.host,
            host_name=source.host_name,
            runs_dir=source.runs_dir,
            on_event=self.on_bench_event,
            clock=source.clock,
            tool_note="demo: modelled drive" if source.demo else "",
        )
        self.settings: BenchSettings = PROFILES["randrw" if source.demo else "cdm"].defaults
        self.target: BenchTarget | None = self.source.target
        self.samples: list[BenchSample] = []
        self.steps: list[StepResult] = []
        self.runs: list[BenchRun] = []
        self.status: tuple[RunState, str] | None = None
        self.progress = ""
        self.stop_event: asyncio.Event | None = None
        self.worker: Worker[None] | None = None  # the run going on, or the last one
        self.lags: list[float] = []  # seconds from fio printing a sample to it being drawn
        self._drawn = 0
        self._last_draw = 0.0
        self._timer_set = False
        self.query_one("#bench-graphs").border_title = "graphs"
        self.query_one("#bench-now").border_title = "now"
        self.query_one("#bench-steps").border_title = "steps"
        super().on_mount()
        self.redraw()

    @property
    def running(self) -> bool:
        """Whether a run is going on."""
        return self.stop_event is not None

    # ---------------------------------------------------------------- drawing
    @property
    def steps_lines(self) -> int:
        """Lines of the steps panel for the terminal's height."""
        return STEPS_LINES[0] if self.app.size.height < 30 else STEPS_LINES[1]

    def on_resize(self) -> None:
        self.query_one("#bench-steps").styles.height = self.steps_lines + 1
        self.call_after_refresh(self.redraw)

    def on_bench_chart_resized(self, message: BenchChart.Resized) -> None:
        message.stop()
        self.call_after_refresh(self._charts)

    def redraw(self) -> None:
        """Draw everything now."""
        self._last_draw = time.monotonic()
        self._panels()
        self._charts()

    def _panels(self) -> None:
        """The text panels: setup and status, the live figures, the finished steps."""
        glyphs = self.nas.glyphs
        title = PROFILES[self.settings.profile].title if self.settings.profile in PROFILES else ""
        warnings: tuple[str, ...] = ()
        if self.target is not None:  # the guard's note first: it is about safety, not figures
            note = unseen_note(self.settings, self.target)
            warnings = (*((note,) if note else ()), *honesty_warnings(self.settings, self.target))
        if self.source.demo:
            title += " [demo: modelled drive]"
        self.query_one("#bench-setup", TextPanel).show(
            lambda w: setup_text(
                self.settings,
                self.target,
                title=title,
                status=self.status,
                warnings=warnings,
                width=w,
                glyphs=glyphs,
            )
        )
        latest = self.samples[-1] if self.samples else None
        dev = self.target.dev if self.target else None
        self.query_one("#bench-now", TextPanel).show(
            lambda w: now_text(latest, dev, self.progress, w)
        )
        steps = list(self.steps)
        lines = self.steps_lines
        self.query_one("#bench-steps", TextPanel).show(lambda w: steps_text(steps, lines, w))

    def _charts(self) -> None:
        glyphs = chart_glyphs(self.nas.ascii_only)
        shown = measured(self.samples)
        for widget_id, name, value, unit in RATES:
            chart = self.query_one(f"#{widget_id}", BenchChart)
            values = [value(s) for s in shown]
            chart.top = max(chart.top or 0.0, nice_top(max(values, default=0.0)))
            drawn = rate_chart(shown, value, chart.plot_size, glyphs, top=chart.top)
            chart.update_chart(chart_title(name, values, unit), drawn, glyphs.axis)
        lat = self.query_one("#chart-lat", BenchChart)
        drawn = latency_chart(shown, lat.plot_size, glyphs, lat.span)
        lat.span = drawn.span
        title = latency_title(shown[-1] if shown else None, glyphs.p50, glyphs.p99)
        lat.update_chart(title, drawn, glyphs.axis)
        now = time.time()
        self.lags += [now - s.at for s in self.samples[self._drawn :] if s.at is not None]
        self._drawn = len(self.samples)

    def _soon(self) -> None:
        """Draw a new sample now, or a second after the last draw if that was less than a
        second ago: at most once a second, and a sample never waits more than that."""
        wait = REDRAW_S - (time.monotonic() - self._last_draw)
        if wait <= 0:
            self.redraw()
        elif not self._timer_set:
            self._timer_set = True

            def later() -> None:
                self._timer_set = False
                self.redraw()

            self.set_timer(wait, later)

    # ---------------------------------------------------------------- runner events
    def on_bench_event(self, event: Event) -> None:
        """One runner event (called on the app's loop as it happens)."""
        if isinstance(event, SampleReady):
            self.samples.append(event.sample)
        elif isinstance(event, StepStarted):
            self.progress = f"step {event.index + 1}/{event.total}"
            self.status = (RunState.RUNNING, event.step.label)
        elif isinstance(event, StepFinished):
            self.steps.append(event.result)
        elif isinstance(event, RunNote) and self.status is not None:
            self.status = (self.status[0], f"{self.status[1]}: {event.text}")
        elif isinstance(event, ProcessUnseen):
            self.notify(event.text, title="the guard", severity="warning")
        if isinstance(event, SampleReady):
            self._soon()
        else:
            # Rare (a step starts or ends): only changed lines go out, and the once-a-second
            # cadence stays locked to fio's samples, so none waits behind this.
            self._panels()

    # ---------------------------------------------------------------- actions
    def action_run(self) -> None:
        """Run the profile on the target (asking for the serial before raw writes)."""
        if self.running:
            self.notify("a run is going on: s stops it", severity="warning")
            return
        target = self.target
        if target is None:
            self.action_target()
            return
        try:
            writing = writes(plan(self.settings, target))
        except ValueError as exc:
            self.notify(str(exc), title="cannot run", severity="error")
            return
        if target.kind is Kind.DEVICE and writing and not target.in_use:
            note = unseen_note(self.settings, target)
            confirm = SerialConfirm(target, self.settings.profile, note)
            self.app.push_screen(confirm, self._confirmed)
            return
        self.start(None)

    def _confirmed(self, typed: object) -> None:
        if isinstance(typed, str):
            self.start(typed)

    def start(self, confirm: str | None) -> None:
        """Start the run in a worker."""
        self.stop_event = asyncio.Event()
        self.samples, self.steps, self.lags, self._drawn, self.progress = [], [], [], 0, ""
        for chart in self.query(BenchChart):
            chart.reset()
        self.status = (RunState.RUNNING, "starting")
        self.redraw()
        self.worker = self._run_worker(confirm)

    @work(exclusive=True, group="bench", exit_on_error=False)
    async def _run_worker(self, confirm: str | None) -> None:
        stop = self.stop_event or asyncio.Event()
        assert self.target is not None
        try:
            with stop_on_signals(stop, UI_SIGNALS):
                result = await self.runner.run(
                    self.settings, self.target, confirm=confirm, stop=stop
                )
        finally:
            self.stop_event = None
        self.runs.append(result)
        self.status = (result.state, result.message)
        count = len(result.steps)
        self.progress = f"{result.state.value}: {count} step{'s' * (count != 1)}"
        self.redraw()
        if result.state is not RunState.COMPLETE:  # the status line says "COMPLETE" already
            self.notify(result.message, title=f"run {result.state.value}", severity="warning")

    def action_stop(self) -> None:
        """Stop the run: fio prints its final figures, which are kept."""
        if self.stop_event is None:
            self.notify("nothing is running")
            return
        self.stop_event.set()
        self.status = (RunState.RUNNING, "stopping: keeping what was measured")
        self.redraw()

    def action_options(self) -> None:
        """Profile and settings."""

        def done(settings: object) -> None:
            if isinstance(settings, BenchSettings):
                self.settings = settings
                self.redraw()

        device = self.target is not None and self.target.kind is Kind.DEVICE
        self.app.push_screen(OptionsForm(self.settings, device=device), done)

    def action_target(self) -> None:
        """Pick or type a target."""

        def done(path: object) -> None:
            if isinstance(path, str):
                self.run_worker(self._pick(path), group="bench-target", exit_on_error=False)

        self.app.push_screen(TargetPicker(self.source.candidates(self.nas.snapshot)), done)

    async def _pick(self, path: str) -> None:
        try:
            self.target = await self.source.inspect(path)
        except TargetError as exc:
            self.notify(str(exc), title="not a target", severity="error")
            return
        if self.target.in_use:
            self.notify("; ".join(self.target.in_use), title="in use: it will not be written")
        self.redraw()

    def action_edit_job(self) -> None:
        """Edit the custom fio job (and switch to the custom profile)."""

        def done(text: object) -> None:
            if isinstance(text, str):
                self.settings = dataclasses.replace(PROFILES["custom"].defaults, job_text=text)
                self.redraw()

        self.app.push_screen(JobEditor(self.settings.job_text), done)

    def all_runs(self) -> list[BenchRun]:
        """Saved runs and this session's, oldest first, each once."""
        saved = store.list_runs(self.source.runs_dir) if self.source.runs_dir else []
        by_id = {r.run_id: r for r in [*saved, *self.runs]}
        return sorted(by_id.values(), key=store.run_order)

    def action_compare(self) -> None:
        """Compare runs."""
        from nastui.ui.screens.bench_compare import BenchCompareScreen

        self.app.push_screen(BenchCompareScreen(self.all_runs(), self.export_dir()))

    def export_dir(self) -> Path:
        """Where SVG files go: beside the saved runs, else (a demo without a state directory
        keeps none) the directory nastui was started in, as `nastui bench show --svg FILE`
        does; the notice names it."""
        return self.source.runs_dir or Path.cwd()

    def action_export(self) -> None:
        """Write the last run's IOPS graph as SVG."""
        if not self.runs:
            self.notify("no finished run to export yet", severity="warning")
            return
        run = self.runs[-1]
        from nastui.ui.screens.bench_compare import export_svg

        export_svg(self, self.export_dir(), f"{run.run_id}-iops", runs_svg([run], METRICS["iops"]))
