"""The bench screens' text (pure): the setup lines, the live figures beside the graphs with the
device's own counters, the steps table, the chart titles and the comparison table."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

from nastui.bench.chart import latency, short
from nastui.bench.compare import Metric, cell_text, matched, numbered, value_of, worse
from nastui.bench.compare import change as delta_of
from nastui.bench.profiles import DEFAULT_FILE
from nastui.core.glyphs import Glyphs
from nastui.core.units import duration, size
from nastui.model import (
    BenchRun,
    BenchSample,
    BenchSettings,
    BenchTarget,
    RunState,
    StepResult,
    TargetKind,
)
from nastui.ui.render.style import DIM, LABEL, fit

STATE_STYLE = {
    RunState.RUNNING: "cyan",
    RunState.COMPLETE: "green",
    RunState.INTERRUPTED: "yellow",
    RunState.FAILED: "bold red",
    RunState.REFUSED: "bold red",
}


def target_text(target: BenchTarget | None) -> str:
    """The target and the device's identity in one line."""
    if target is None:
        return "no target: press t"
    ident = target.identity
    who = " ".join(p for p in (ident.model, ident.serial) if p) if ident else ""
    kind = "device" if target.kind.value == "device" else "dir"
    return f"{target.path} ({kind}{' ' + target.dev if target.dev else ''}) {who}".rstrip()


def settings_text(settings: BenchSettings, *, device: bool) -> str:
    """The settings that change the figures, in one line (a custom job's are its file's: the
    size, time, direct and refill set here do not reach it)."""
    if settings.profile == "custom":
        matrix = "  cache on+off" if settings.cache_matrix else ""
        return f"size, time, direct I/O and data: the job file's own (e shows it){matrix}"
    runtime = "to the end" if settings.runtime_s is None else f"{settings.runtime_s:g}s"
    whole = "whole device" if device else size(DEFAULT_FILE)
    parts = [
        f"size {size(settings.size_bytes, unknown=whole)}",
        f"time {runtime}",
        f"direct {'on' if settings.direct else 'OFF'}",
        f"incompressible {'on' if settings.refill else 'OFF'}",
    ]
    if settings.ramp_s:
        parts.append(f"ramp {settings.ramp_s:g}s")
    if settings.profile == "fill":
        parts.append(f"files {size(settings.file_bytes)}")
    if settings.cache_matrix:
        parts.append("cache on+off")
    return "  ".join(parts)


def setup_text(
    settings: BenchSettings,
    target: BenchTarget | None,
    *,
    title: str,
    status: tuple[RunState, str] | None,
    warnings: Sequence[str],
    width: int,
    glyphs: Glyphs,
) -> Text:
    """Profile and target; settings; how the run stands; the honesty warnings."""
    text = Text()
    text.append(f"{settings.profile}", style=LABEL)
    text.append(fit(f" {title}  on {target_text(target)}", width - len(settings.profile), glyphs))
    device = target is not None and target.kind is TargetKind.DEVICE
    text.append("\n" + fit(settings_text(settings, device=device), width, glyphs), style=DIM)
    text.append("\n")
    if status is None:  # a status line is always there: the panel keeps its height
        text.append("READY ", style=LABEL)
        text.append("r runs it, o changes it, t picks another target", style=DIM)
    else:
        state, message = status
        text.append(f"{state.value.upper()} ", style=STATE_STYLE[state])
        text.append(fit(message, width - len(state.value) - 1, glyphs))
    for warning in warnings:
        text.append("\n" + fit(f"! {warning}", width, glyphs), style="yellow")
    return text


def chart_title(name: str, values: Sequence[float], fmt: str = "") -> Text:
    """ "IOPS  now 27k  mean 26k  max 31k" (nothing yet: just the name)."""
    text = Text(f"{name:<5}", style=LABEL)
    if values:
        mean = sum(values) / len(values)
        text.append(f" now {short(values[-1], fmt)}  mean {short(mean, fmt)}", style="")
        text.append(f"  max {short(max(values), fmt)}", style=DIM)
    return text


def latency_title(sample: BenchSample | None, glyphs_p50: str, glyphs_p99: str) -> Text:
    """ "lat   now p50 9.4us  p99 73us  (• p50 × p99)": the latest sample's, said to be, as the
    rates' "now" are (the steps table under it gives each whole step's, which differ)."""
    text = Text("lat  ", style=LABEL)
    if sample is not None:
        text.append(" now")
        text.append(f" p50 {latency(sample.lat_p50_ns)}", style="cyan")
        text.append(f"  p99 {latency(sample.lat_p99_ns)}", style="yellow")
    text.append(f"  ({glyphs_p50} p50 {glyphs_p99} p99)", style=DIM)
    return text


NOW_LINES = 10


def _padded(text: Text, lines: int) -> Text:
    """`text` with empty lines added up to `lines`: a panel whose height never changes is
    never laid out again (a new layout repaints the whole screen)."""
    missing = lines - len(text.plain.split("\n"))
    if missing > 0:
        text.append("\n" * missing)
    return text


def now_text(sample: BenchSample | None, dev: str | None, progress: str, width: int) -> Text:
    """The live figures, fio's and the device's side by side: when they disagree, a cache
    answered (or wrote back later). Always `NOW_LINES` lines."""
    text = Text()
    text.append(progress or "idle", style=LABEL)
    if sample is None:
        text.append("\nno samples yet", style=DIM)
        return _padded(text, NOW_LINES)
    rows = (
        ("read", short(sample.read_iops), short(sample.read_bps, "B")),
        ("write", short(sample.write_iops), short(sample.write_bps, "B")),
    )
    text.append("\n      IOPS    B/s", style=DIM)
    for name, iops, bps in rows:
        text.append(f"\n{name:<5} {iops:>5} {bps:>7}")
    text.append(f"\nmean  {latency(sample.lat_mean_ns):>13}")
    text.append(f"\n{dev or 'device'} (diskstats)", style=LABEL)
    if sample.disk_read_bps is None or sample.disk_write_bps is None:
        text.append("\n  not available", style=DIM)
        return _padded(text, NOW_LINES)
    text.append(f"\nread  {short(sample.disk_read_bps, 'B'):>13}")
    text.append(f"\nwrite {short(sample.disk_write_bps, 'B'):>13}")
    fio, disk = sample.bps, sample.disk_read_bps + sample.disk_write_bps
    if fio > 0 and disk < 0.8 * fio:
        text.append(f"\n{100 * (1 - disk / fio):.0f}% not from disk", style="yellow")
    elif fio > 0 and disk > 1.25 * fio:
        text.append(f"\ndisk {disk / fio:.1f}x fio", style="yellow")
    return _padded(text, NOW_LINES)


def step_row(result: StepResult, label_w: int) -> Text:
    """One finished step: label, IOPS, MB/s, p50, p99 (or the write-sync-close timings)."""
    text = Text(f"{result.label[:label_w]:<{label_w}}", style="bold red" if result.error else "")
    if result.error:
        text.append(f" {result.error}", style="red")
        return text
    text.append(f" {short(result.iops):>6} {result.bps / 1e6:>8.1f}")
    if result.timings:
        text.append("  " + " ".join(f"{n} {s:.2f}s" for n, s in result.timings))
        return text
    text.append(f" {latency(result.lat_p50_ns):>7} {latency(result.lat_p99_ns):>7}")
    return text


def steps_text(steps: Sequence[StepResult], lines: int, width: int) -> Text:
    """The finished steps (the latest that fit in `lines`), with a header."""
    label_w = max(12, min(30, width - 34))
    text = Text(f"{'step':<{label_w}}   IOPS     MB/s     p50     p99", style=DIM)
    if not steps:
        text.append("\nno finished steps yet", style=DIM)
        return _padded(text, lines)
    shown = steps[-max(1, lines - 1) :]
    for result in shown:
        text.append("\n")
        text.append_text(step_row(result, label_w))
    return _padded(text, lines)


def run_line(index: int, run: BenchRun, marked: bool, selected: bool, width: int) -> Text:
    """One run in the compare list: mark, number, id, device, profile, state."""
    ident = run.target.identity
    who = (ident.model or ident.serial or "") if ident else run.target.path
    mark = "[x]" if marked else "[ ]"
    text = Text(f"{mark} #{index + 1} {run.run_id}  {who}  {run.settings.profile}  ")
    text.append(run.state.value, style=STATE_STYLE[run.state])
    text.truncate(width)
    if selected:
        text.stylize("reverse")
    return text


def compare_text(
    runs: Sequence[BenchRun], metric: Metric, width: int, numbers: Sequence[int] | None = None
) -> Text:
    """Marked runs side by side for one metric, each by its own number; `!` marks a regression
    against the first; a failed step shows "failed"."""
    if len(runs) < 2:
        return Text("mark two or more runs with space to compare them", style=DIM)
    label_w = max(12, min(28, width - 14 * len(runs)))
    text = Text(f"{'step':<{label_w}}", style=DIM)
    for n in numbered(runs, numbers):
        text.append(f" {f'#{n} ' + metric.title:>13}", style=DIM)
    for row in matched(runs):
        text.append(f"\n{row.label[:label_w]:<{label_w}}")
        base = value_of(row.results[0], metric)
        for i, result in enumerate(row.results):
            value = value_of(result, metric)
            delta = delta_of(base, value) if i else None
            cell = cell_text(result, metric)
            if delta is not None:
                cell += f" {delta * 100:+.0f}%" + ("!" if worse(delta, metric) else "")
            style = "yellow" if worse(delta, metric) else ("green" if delta else "")
            text.append(f" {cell:>13}", style=style)
    return text


def elapsed(samples: Sequence[BenchSample]) -> str:
    """How long the run has measured."""
    return duration(samples[-1].t) if samples else "0s"
