"""Fan zones: which temperature a zone follows, and the duty it gets, failing safe (pure).

Sources: the hottest drive, the drives' average, the CPU package; a zone with several follows
the hottest of them. Drives asleep are left out (they make little heat and have no fresh
reading); an awake drive without a fresh reading is a drive we cannot see, so its zone goes to
full speed, as does a zone with no temperature at all. "Fresh" means younger than
`stale_periods` control periods.

A reading no sensor could truly give counts as no reading: outside PLAUSIBLE_C (a failed
sensor's 0, -40, 127 or 255, or garbage), or, for a drive, a jump from its last plausible
reading faster than a drive's mass can heat or cool (MAX_DRIVE_SLEW_C_PER_S, plus
JUMP_SLACK_C for whole-degree steps). A drive can only warm slowly; believing such a value
could idle the fans of a hot box.

A sensor once lost (no reading, a stale one, an implausible one) is slow to be trusted again
(`Trust`): only after the zone's `trust_after` plausible readings in a row, each reachable
from the one before it at a drive's pace, and the first from its last plausible reading before
the loss. A sensor that alternates between good and garbage never gets there and its zone stays
at full speed; a drive that jumps from 60 to 5 C and sticks there stays lost until 5 C could
have been reached by cooling (50 s), then for `trust_after` readings more. The CPU package is
judged by its range and its run of readings, not by its pace: it changes in milliseconds.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from nastui.fans.logic.curve import FULL, Hysteresis, curve_duty
from nastui.fans.logic.pid import PidGains, PidState, pid_step
from nastui.model import Drive, FanSource, FanZone, Sensor, ZoneMode

PLAUSIBLE_C = (1.0, 110.0)
MAX_DRIVE_SLEW_C_PER_S = 1.0
JUMP_SLACK_C = 5.0
CPU_KEY = "cpu"  # the CPU package's trust, however many sockets report

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
    """A sensor's reading and when it was measured."""

    celsius: float
    at: float


@dataclass(frozen=True, slots=True)
class Trust:
    """How far a sensor is believed.

    Attributes:
        last: its last plausible reading, which the next must be reachable from; kept through
            a loss, so that a jump to a value that then sticks stays a jump.
        streak: plausible readings in a row since it was lost.
        lost: whether it is lost: not believed until `streak` reaches the zone's `trust_after`.
    """

    last: Seen | None = None
    streak: int = 0
    lost: bool = False

    def lose(self) -> Trust:
        """Lost now (no reading, a stale or an implausible one): its run starts again."""
        return Trust(self.last, 0, True)


Trusts = Mapping[str, Trust]


def implausible(celsius: float, before: Seen | None = None, at: float = 0.0) -> str | None:
    """Why a temperature cannot be real; None when it can. `before`: the same drive's last
    plausible reading (only drives are judged by their pace: a CPU package changes in
    milliseconds)."""
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


def vet(
    trust: Trust, celsius: float, at: float, need: int, *, paced: bool = True
) -> tuple[str | None, Trust]:
    """Whether a reading is believed: None, or why not; and the sensor's next `Trust`.

    A reading is plausible when in range and (`paced`) reachable from the last plausible one;
    a sensor not lost is believed at its first plausible reading (at start, too), a lost one
    after `need` in a row. The same reading seen again (same time, same value: a backend that
    polls slower than the loop) is no new evidence: it changes nothing.
    """
    if trust.last == Seen(celsius, at):
        return _standing(trust, need), trust
    why = implausible(celsius, trust.last if paced else None, at)
    if why is not None:
        return why, trust.lose()
    seen = Seen(celsius, at)
    if not trust.lost:
        return None, Trust(seen)
    streak = trust.streak + 1
    if streak < need:
        return _standing(Trust(seen, streak, True), need), Trust(seen, streak, True)
    return None, Trust(seen)


def _standing(trust: Trust, need: int) -> str | None:
    if not trust.lost:
        return None
    return f"lost; {trust.streak} of {need} plausible readings in a row to be believed again"


def believed_again(before: Trusts, after: Trusts) -> list[str]:
    """The sensors lost in `before` and believed in `after`, in order."""
    return [k for k, t in after.items() if not t.lost and k in before and before[k].lost]


def lose_all(trusts: Trusts) -> dict[str, Trust]:
    """Every sensor lost (the period's reads never came back)."""
    return {key: trust.lose() for key, trust in trusts.items()}


def _drive_readings(
    drives: Iterable[Drive], now: float, max_age: float, trusts: dict[str, Trust], need: int
) -> list[Reading] | Blind:
    """Every awake drive's reading, each vetted (and its trust updated in `trusts`); the first
    drive that cannot be believed makes the whole a Blind."""
    readings: list[Reading] = []
    blind: Blind | None = None
    for drive in drives:
        if drive.power.spun_down:
            continue
        trust, temp = trusts.get(drive.dev, Trust()), drive.temperature
        why: str | None
        if temp is None:
            why, trust = "no temperature", trust.lose()
        elif temp.age(now) > max_age:
            why, trust = f"temperature {temp.age(now):.0f}s old", trust.lose()
        else:
            why, trust = vet(trust, temp.celsius, temp.measured_at, need)
        trusts[drive.dev] = trust
        if why is not None:
            blind = blind or Blind(f"{drive.dev}: {why}")
        elif temp is not None:
            readings.append(Reading(temp.celsius, drive.dev))
    return blind or readings


def _cpu(
    sensors: Iterable[Sensor], now: float, trusts: dict[str, Trust], need: int
) -> Reading | Blind:
    """The hottest CPU package in range, vetted as one sensor (its trust in `trusts`)."""
    values = [
        (s.name, s.value)
        for s in sensors
        if s.value is not None and s.unit == "C" and CPU_SENSOR.match(s.name)
    ]
    trust = trusts.get(CPU_KEY, Trust())
    believed = [(name, value) for name, value in values if implausible(value) is None]
    if not values:
        trusts[CPU_KEY] = trust.lose()
        return Blind("no CPU temperature sensor")
    if not believed:
        name, value = values[0]
        trusts[CPU_KEY] = trust.lose()
        return Blind(f"{name}: {implausible(value)}")
    name, value = max(believed, key=lambda nv: nv[1])
    why, trusts[CPU_KEY] = vet(trust, value, now, need, paced=False)
    return Blind(f"{name}: {why}") if why else Reading(value, name)


def _drive_source(source: FanSource, found: list[Reading] | Blind) -> Reading | Blind | None:
    """A drive source's temperature from the vetted drive readings; None if all sleep."""
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


def vetted_reading(
    sources: tuple[FanSource, ...],
    drives: tuple[Drive, ...],
    sensors: tuple[Sensor, ...],
    now: float,
    max_age: float,
    *,
    trusts: Trusts,
    need: int,
) -> tuple[Reading | Blind | None, dict[str, Trust]]:
    """The hottest of a zone's sources, every sensor vetted once against its `trusts` (lost
    ones need `need` plausible readings in a row); Blind if any source is blind; None if all
    drives sleep. Returns the sensors' next trusts too."""
    fresh = dict(trusts)
    wanted = [s for s in sources or (FanSource.HOTTEST_DRIVE,) if s is not FanSource.MAX]
    drive_found: list[Reading] | Blind = []
    if any(s is not FanSource.CPU for s in wanted):
        drive_found = _drive_readings(drives, now, max_age, fresh, need)
    cpu = _cpu(sensors, now, fresh, need) if FanSource.CPU in wanted else None
    readings: list[Reading] = []
    for source in wanted:
        found = cpu if source is FanSource.CPU else _drive_source(source, drive_found)
        if isinstance(found, Blind):
            return found, fresh
        if found is not None:
            readings.append(found)
    return (max(readings, key=lambda r: r.celsius) if readings else None), fresh


def zone_reading(
    sources: tuple[FanSource, ...],
    drives: tuple[Drive, ...],
    sensors: tuple[Sensor, ...],
    now: float,
    max_age: float,
) -> Reading | Blind | None:
    """The hottest of a zone's sources seen afresh, with no history (the fan screen's
    preview): every plausible reading is believed. Blind if any source is blind; None if all
    drives sleep."""
    return vetted_reading(sources, drives, sensors, now, max_age, trusts={}, need=1)[0]


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
