"""Fan zones: which temperature a zone follows, and the duty it gets, failing safe (pure).

Sources: the hottest drive, the drives' average, the CPU package; a zone with several follows
the hottest of them. Drives asleep are left out (they make little heat and have no fresh
reading); an awake drive without a fresh reading is a drive we cannot see, so its zone goes to
full speed, as does a zone with no temperature at all. "Fresh" means younger than
`stale_periods` control periods.

A reading no sensor could truly give counts as no reading: outside PLAUSIBLE_C (a failed
sensor's 0, -40, 127 or 255, or garbage), or, for a drive, a jump from its previous reading
faster than a drive's mass can heat or cool (MAX_DRIVE_SLEW_C_PER_S, plus JUMP_SLACK_C for
whole-degree steps). A drive can only warm slowly; believing such a value could idle the fans
of a hot box.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from nastui.core.fancurve import FULL, Hysteresis, curve_duty
from nastui.core.pid import PidGains, PidState, pid_step
from nastui.model import Drive, FanSource, FanZone, Sensor, ZoneMode

PLAUSIBLE_C = (1.0, 110.0)
MAX_DRIVE_SLEW_C_PER_S = 1.0
JUMP_SLACK_C = 5.0

CPU_SENSOR = re.compile(r"^(cpu|package id \d+|cpu package|cpu temp|tctl|tdie|coretemp)", re.I)


@dataclass(frozen=True, slots=True)
class Reading:
    """A zone's input temperature and where it came from ("hottest drive sdt")."""

    celsius: float
    what: str


@dataclass(frozen=True, slots=True)
class Blind:
    """Why a zone cannot see its temperature (it then runs at full speed)."""

    why: str


@dataclass(frozen=True, slots=True)
class Seen:
    """A drive's previous reading (plausible or not), to judge the next one's jump."""

    celsius: float
    at: float


Previous = Mapping[str, Seen]


def implausible(celsius: float, before: Seen | None = None, at: float = 0.0) -> str | None:
    """Why a temperature cannot be real; None when it can. `before`: the same drive's previous
    reading (only drives are judged by their jumps: a CPU package changes in milliseconds)."""
    low, high = PLAUSIBLE_C
    if not math.isfinite(celsius) or not low <= celsius <= high:
        return f"implausible temperature {celsius:g} C (outside {low:g}..{high:g} C)"
    if before is None:
        return None
    seconds = max(0.0, at - before.at)
    if abs(celsius - before.celsius) > JUMP_SLACK_C + MAX_DRIVE_SLEW_C_PER_S * seconds:
        return (
            f"implausible temperature jump {before.celsius:g} -> {celsius:g} C in {seconds:.0f} s"
        )
    return None


def _drive_readings(
    drives: Iterable[Drive], now: float, max_age: float, previous: Previous
) -> list[Reading] | Blind:
    readings: list[Reading] = []
    for drive in drives:
        if drive.power.spun_down:
            continue
        temp = drive.temperature
        if temp is None:
            return Blind(f"{drive.dev}: no temperature")
        if temp.age(now) > max_age:
            return Blind(f"{drive.dev}: temperature {temp.age(now):.0f}s old")
        why = implausible(temp.celsius, previous.get(drive.dev), temp.measured_at)
        if why:
            return Blind(f"{drive.dev}: {why}")
        readings.append(Reading(temp.celsius, drive.dev))
    return readings


def _cpu(sensors: Iterable[Sensor]) -> Reading | Blind | None:
    values = [
        (s.name, s.value)
        for s in sensors
        if s.value is not None and s.unit == "C" and CPU_SENSOR.match(s.name)
    ]
    if not values:
        return None
    believed = [(name, value) for name, value in values if implausible(value) is None]
    if not believed:
        name, value = values[0]
        return Blind(f"{name}: {implausible(value)}")
    name, value = max(believed, key=lambda nv: nv[1])
    return Reading(value, name)


def remember(drives: Iterable[Drive], previous: Previous) -> dict[str, Seen]:
    """`previous` updated with every drive reading in `drives` (plausible or not: a real
    step, a drive swapped for a cold one, is then believed one period later)."""
    seen = dict(previous)
    for drive in drives:
        if drive.temperature is not None:
            seen[drive.dev] = Seen(drive.temperature.celsius, drive.temperature.measured_at)
    return seen


def source_reading(
    source: FanSource,
    drives: tuple[Drive, ...],
    sensors: tuple[Sensor, ...],
    now: float,
    max_age: float,
    *,
    previous: Previous | None = None,
) -> Reading | Blind | None:
    """One source's temperature; None when it has nothing to report (every drive asleep)."""
    if source is FanSource.CPU:
        return _cpu(sensors) or Blind("no CPU temperature sensor")
    found = _drive_readings(drives, now, max_age, previous or {})
    if isinstance(found, Blind):
        return found
    if not found:
        return None
    if source is FanSource.AVERAGE_DRIVES:
        return Reading(
            sum(r.celsius for r in found) / len(found), f"average of {len(found)} drives"
        )
    hottest = max(found, key=lambda r: r.celsius)
    return Reading(hottest.celsius, f"hottest drive {hottest.what}")


def zone_reading(
    sources: tuple[FanSource, ...],
    drives: tuple[Drive, ...],
    sensors: tuple[Sensor, ...],
    now: float,
    max_age: float,
    *,
    previous: Previous | None = None,
) -> Reading | Blind | None:
    """The hottest of a zone's sources; Blind if any source is blind (or implausible, judged
    against `previous` readings); None if all drives sleep."""
    readings: list[Reading] = []
    for source in sources or (FanSource.HOTTEST_DRIVE,):
        if source is FanSource.MAX:
            continue  # several sources already mean their maximum
        found = source_reading(source, drives, sensors, now, max_age, previous=previous)
        if isinstance(found, Blind):
            return found
        if found is not None:
            readings.append(found)
    return max(readings, key=lambda r: r.celsius) if readings else None


@dataclass(frozen=True, slots=True)
class ZoneState:
    """What a zone remembers between periods."""

    hysteresis: Hysteresis = field(default_factory=Hysteresis)
    pid: PidState = field(default_factory=PidState)
    last_at: float | None = None


@dataclass(frozen=True, slots=True)
class ZoneDecision:
    """A zone's duty for this period and why."""

    zone: str
    duty: float
    reason: str
    failsafe: bool = False
    temp_c: float | None = None


def zone_step(
    zone: FanZone,
    state: ZoneState,
    reading: Reading | Blind | None,
    now: float,
) -> tuple[ZoneDecision, ZoneState]:
    """The duty for one zone this period, and its next state."""
    if isinstance(reading, Blind):
        return ZoneDecision(zone.name, FULL, f"fail-safe: {reading.why}", True), ZoneState()
    curve = zone.curve
    if reading is None:
        quiet = ZoneDecision(zone.name, curve.min_duty, "all drives asleep: minimum duty")
        return quiet, ZoneState(last_at=now)
    if zone.mode is ZoneMode.PID:
        dt = now - state.last_at if state.last_at is not None and now > state.last_at else 1.0
        gains = PidGains(zone.kp, zone.ki, zone.kd)
        duty, pid = pid_step(
            state.pid,
            setpoint=zone.setpoint_c,
            measured=reading.celsius,
            dt=dt,
            gains=gains,
            out_min=curve.min_duty,
            out_max=curve.max_duty,
        )
        why = f"PID {reading.what} {reading.celsius:.0f} C -> set point {zone.setpoint_c:.0f} C"
        decision = ZoneDecision(zone.name, round(duty, 1), why, temp_c=reading.celsius)
        return decision, ZoneState(state.hysteresis, pid, now)
    hysteresis = state.hysteresis.update(reading.celsius, curve.hysteresis_c)
    basis = hysteresis.basis if hysteresis.basis is not None else reading.celsius
    duty = curve_duty(curve, basis)
    why = f"curve at {basis:.1f} C ({reading.what} {reading.celsius:.0f} C)"
    decision = ZoneDecision(zone.name, round(duty, 1), why, temp_c=reading.celsius)
    return decision, ZoneState(hysteresis, state.pid, now)
