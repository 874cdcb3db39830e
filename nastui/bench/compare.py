"""Comparing runs (pure): disk A against disk B, write cache on against off, before and after.

Steps are matched by label across runs ("RND4K Q1T1 read" with "RND4K Q1T1 read"); the first run
is the baseline and every other run's figure carries its change against it. One metric at a
time keeps three or more runs readable at 80 columns. Runs keep their own numbers (#2 stays #2
when compared with #5); a failed or stopped run compares too, a step that failed shows "failed"
and is nobody's baseline.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from nastui.bench.chart import latency, short
from nastui.model import BenchRun, BenchSample, StepResult


@dataclass(frozen=True, slots=True)
class Metric:
    """A figure compared and graphed.

    Attributes:
        name: what `--metric` takes.
        title: column and axis title.
        step: its value for a step result.
        sample: its value for a sample (None: not measured then).
        text: how a value prints.
        lower_is_better: latencies.
    """

    name: str
    title: str
    step: Callable[[StepResult], float | None]
    sample: Callable[[BenchSample], float | None]
    text: Callable[[float | None], str]
    lower_is_better: bool = False


METRICS: dict[str, Metric] = {
    m.name: m
    for m in (
        Metric("iops", "IOPS", lambda r: r.iops, lambda s: s.iops, short),
        Metric("mbps", "MB/s", lambda r: r.bps / 1e6, lambda s: s.bps / 1e6, short),
        Metric("p50", "p50 lat", lambda r: r.lat_p50_ns, lambda s: s.lat_p50_ns, latency, True),
        Metric("p99", "p99 lat", lambda r: r.lat_p99_ns, lambda s: s.lat_p99_ns, latency, True),
        Metric("mean", "mean lat", lambda r: r.lat_mean_ns, lambda s: s.lat_mean_ns, latency, True),
        Metric(
            "seconds",
            "seconds",
            lambda r: r.seconds,
            lambda s: s.seconds,
            lambda v: "-" if v is None else f"{v:.2f}",
            True,
        ),
    )
}


@dataclass(frozen=True, slots=True)
class CompareRow:
    """One step label and its result in each run (None where a run has no such step)."""

    label: str
    results: tuple[StepResult | None, ...]


def matched(runs: Sequence[BenchRun]) -> list[CompareRow]:
    """Steps aligned by label, in the order they first appear."""
    labels = dict.fromkeys(step.label for run in runs for step in run.steps)
    by_run = [{step.label: step for step in run.steps} for run in runs]
    return [CompareRow(label, tuple(steps.get(label) for steps in by_run)) for label in labels]


def change(base: float | None, value: float | None) -> float | None:
    """The relative change from `base` to `value` (0.25 = 25 % more); None when undefined."""
    if base is None or value is None or base == 0:
        return None
    return value / base - 1.0


def worse(delta: float | None, metric: Metric) -> bool:
    """Whether a change is a regression (lower IOPS, higher latency) of 1 % or more."""
    if delta is None or abs(delta) < 0.01:
        return False
    return delta > 0 if metric.lower_is_better else delta < 0


def verdict(delta: float | None, metric: Metric) -> str:
    """ "+25%", or "-8%!" for a regression: the `!` says worse; colour is never the only sign."""
    if delta is None:
        return ""
    return f"{delta * 100:+.0f}%" + ("!" if worse(delta, metric) else "")


def value_of(result: StepResult | None, metric: Metric) -> float | None:
    """The metric of a step that ran; None for a missing or failed one."""
    return None if result is None or result.error else metric.step(result)


def cell_text(result: StepResult | None, metric: Metric) -> str:
    """A step's figure: "-" where the run has no such step, "failed" where it failed."""
    if result is None:
        return "-"
    return "failed" if result.error else metric.text(metric.step(result))


def numbered(runs: Sequence[BenchRun], numbers: Iterable[int] | None) -> list[int]:
    """The runs' own numbers (1, 2, ... when none are given)."""
    given = list(numbers) if numbers is not None else []
    return given if len(given) == len(runs) else list(range(1, len(runs) + 1))


def table(
    runs: Sequence[BenchRun], metric: Metric, numbers: Iterable[int] | None = None
) -> list[list[str]]:
    """Rows of text: a header (step, then each run by its number), then per step the metric per
    run with its change against the first run."""
    header = ["step", *(f"#{n} {metric.title}" for n in numbered(runs, numbers))]
    rows = [header]
    for row in matched(runs):
        base = value_of(row.results[0], metric)
        cells = [row.label]
        for i, result in enumerate(row.results):
            delta = verdict(change(base, value_of(result, metric)), metric) if i else ""
            cells.append(f"{cell_text(result, metric)} {delta}".strip())
        rows.append(cells)
    return rows


def describe(run: BenchRun) -> str:
    """One line naming a run: id, device identity, profile, state."""
    ident = run.target.identity
    what = " ".join(p for p in (ident.model, ident.serial) if p) if ident else ""
    where = what or run.target.path
    return f"{run.run_id}  {where}  {run.settings.profile}  {run.state.value}"
