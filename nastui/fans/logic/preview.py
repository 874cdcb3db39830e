"""What fan zones would do: now (preview) and over the stored history (replay). Pure.

The fan screen shows both while a curve is edited: the duty each zone would get at this
moment's temperatures, and the duty an edited curve would have produced over the last hours,
stepped through the same `zone_step` (hysteresis, PID) the daemon uses.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from nastui.fans.logic.curve import FULL
from nastui.fans.logic.zone import (
    CPU_SENSOR,
    Blind,
    Reading,
    ZoneDecision,
    ZoneState,
    zone_reading,
    zone_step,
)
from nastui.model import (
    CurvePoint,
    Fan,
    FanCurve,
    FanSource,
    FanZone,
    HostSnapshot,
    ZoneMode,
)
from nastui.model.fanzone import DEFAULT_CURVE

Series = Sequence[tuple[float, float]]
REPLAY_STEPS = 720


def draft_zone(name: str, points: tuple[CurvePoint, ...]) -> FanZone:
    """A zone the configuration does not have yet: the hottest drive on `points`."""
    return FanZone(name, (FanSource.HOTTEST_DRIVE,), ZoneMode.CURVE, FanCurve(points))


def drafts_for(fans: Iterable[Fan], configured: Iterable[str] = ()) -> list[FanZone]:
    """A draft on the default curve for each zone the fans name that no configured zone is,
    in the fans' order: what the fan screen edits, fand runs on the demo and `nastui fans`
    shows when the configuration has no `[[zone]]` for them."""
    have = set(configured)
    names = dict.fromkeys(f.zone for f in fans if f.zone is not None and f.zone not in have)
    return [draft_zone(name, DEFAULT_CURVE) for name in names if name is not None]


def staleness_period(control_period: float, temperature_poll: float) -> float:
    """What one "period" of `stale_periods` is: the longer of the control period and the
    temperature poll interval (a reading cannot be fresher than its poll)."""
    return max(control_period, temperature_poll)


def stale_after(zone: FanZone, period: float) -> float:
    """Seconds after which a zone's temperature counts as stale: `stale_periods` periods."""
    return zone.stale_periods * period


def zone_now(
    zone: FanZone, snapshot: HostSnapshot, period: float
) -> tuple[Reading | Blind | None, ZoneDecision]:
    """What `zone` follows at the snapshot's temperatures (None: every drive asleep) and the
    duty it gets from a fresh start (no history): the fan screen's preview and `nastui fans`."""
    reading = zone_reading(
        zone.sources,
        snapshot.drives,
        snapshot.sensors,
        snapshot.taken_at,
        stale_after(zone, period),
    )
    decision, _ = zone_step(zone, ZoneState(), reading, snapshot.taken_at)
    return reading, decision


def preview(
    zones: Iterable[FanZone], snapshot: HostSnapshot, period: float
) -> tuple[ZoneDecision, ...]:
    """Each zone's duty at the snapshot's temperatures, from a fresh start (no history)."""
    return tuple(zone_now(zone, snapshot, period)[1] for zone in zones)


def history_metrics(zone: FanZone, snapshot: HostSnapshot) -> tuple[list[str], list[str]]:
    """The store metrics a zone's replay needs: (drive temperature metrics, CPU sensor ones)."""
    sources = set(zone.sources)
    drives = [f"temp:{d.key}" for d in snapshot.drives] if sources - {FanSource.CPU} else []
    cpus = [
        f"sensor:{s.name}"
        for s in snapshot.sensors
        if FanSource.CPU in sources and s.unit == "C" and CPU_SENSOR.match(s.name)
    ]
    return drives, cpus


def zone_temperatures(
    zone: FanZone,
    drives: Mapping[str, Series],
    cpus: Mapping[str, Series],
    max_age: float,
    steps: int = REPLAY_STEPS,
) -> list[tuple[float, float | None]]:
    """The zone's input temperature over time, at most `steps` times, oldest first.

    At each time every series counts with its newest sample no older than `max_age` (a drive
    that fell asleep drops out); None where no series has one.
    """
    tagged = [_tagged("d", k, s) for k, s in drives.items()]
    tagged += [_tagged("c", k, s) for k, s in cpus.items()]
    events = list(heapq.merge(*tagged))
    if not events:
        return []
    start, end = events[0][0], events[-1][0]
    width = (end - start) / steps if end > start else 1.0
    latest: dict[tuple[str, str], tuple[float, float]] = {}
    out: list[tuple[float, float | None]] = []
    for i, (t, kind, key, value) in enumerate(events):
        latest[(kind, key)] = (t, value)
        last = i + 1 == len(events)
        if last or int((events[i + 1][0] - start) / width) != int((t - start) / width):
            out.append((t, _zone_value(zone, latest, t, max_age)))
    return out


def _tagged(kind: str, key: str, series: Series) -> Iterator[tuple[float, str, str, float]]:
    return ((t, kind, key, v) for t, v in series)


def _zone_value(
    zone: FanZone, latest: dict[tuple[str, str], tuple[float, float]], t: float, max_age: float
) -> float | None:
    fresh = {k: v for k, (when, v) in latest.items() if t - when <= max_age}
    drive_values = [v for (kind, _), v in fresh.items() if kind == "d"]
    cpu_values = [v for (kind, _), v in fresh.items() if kind == "c"]
    found: list[float] = []
    for source in zone.sources or (FanSource.HOTTEST_DRIVE,):
        if source is FanSource.CPU and cpu_values:
            found.append(max(cpu_values))
        elif source is FanSource.AVERAGE_DRIVES and drive_values:
            found.append(sum(drive_values) / len(drive_values))
        elif source is FanSource.HOTTEST_DRIVE and drive_values:
            found.append(max(drive_values))
    return max(found) if found else None


@dataclass(frozen=True, slots=True)
class ReplayStep:
    """One replayed period: when, the zone's temperature, the duty it would have had."""

    at: float
    temp_c: float | None
    duty: float


@dataclass(frozen=True, slots=True)
class ReplaySummary:
    """A replay in numbers: how long, duty range and mean, how often it changed, time at 100 %."""

    steps: int
    span_s: float
    min_duty: float
    max_duty: float
    mean_duty: float
    changes: int
    full_s: float


def replay(zone: FanZone, temps: Sequence[tuple[float, float | None]]) -> list[ReplayStep]:
    """The duty `zone` would have given at each (time, temperature), in order."""
    state = ZoneState()
    steps: list[ReplayStep] = []
    for at, temp in temps:
        reading = Reading(temp, "replay") if temp is not None else None
        decision, state = zone_step(zone, state, reading, at)
        steps.append(ReplayStep(at, temp, decision.duty))
    return steps


def summarize(steps: Sequence[ReplayStep]) -> ReplaySummary | None:
    """The replay in numbers; None for an empty one."""
    if not steps:
        return None
    duties = [s.duty for s in steps]
    changes = sum(1 for a, b in itertools.pairwise(duties) if a != b)
    full = sum(b.at - a.at for a, b in itertools.pairwise(steps) if a.duty >= FULL)
    return ReplaySummary(
        len(steps),
        steps[-1].at - steps[0].at,
        min(duties),
        max(duties),
        sum(duties) / len(duties),
        changes,
        full,
    )
