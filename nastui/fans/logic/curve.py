"""Fan curves: temperature -> duty, with hysteresis, limits, a rate limit and a spin-up kick (pure).

A wrong duty cooks disks, so everything here is a small pure function over plain numbers:
- `curve_duty`: linear interpolation between points (clamped beyond the ends), or steps;
- `Hysteresis`: duty follows a rising temperature at once, and a falling one only after it has
  dropped `hysteresis_c` below the temperature the duty was set for (no flapping at a boundary);
- `limit_rate`: at most so many percent per period down (up is immediate by default: heat first);
- `kick`: a fan starting from a stop gets at least its start duty for one period.
Duty is in percent, 0..100, everywhere above the drivers.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

from nastui.model import CurveKind, CurvePoint, FanCurve

FULL = 100.0


def clamp(value: float, low: float, high: float) -> float:
    """`value` within [low, high]."""
    return max(low, min(high, value))


def valid_curve(curve: FanCurve) -> str | None:
    """What is wrong with a curve, or None: points strictly rising in temperature, duty 0..100."""
    if not curve.points:
        return "a curve needs at least one point"
    temps = [p.temp_c for p in curve.points]
    if any(b <= a for a, b in itertools.pairwise(temps)):
        return "curve temperatures must rise strictly from point to point"
    if any(not 0 <= p.duty_percent <= 100 for p in curve.points):
        return "curve duty must be between 0 and 100 %"
    if not 0 <= curve.min_duty <= curve.max_duty <= 100:
        return "min_duty must not exceed max_duty, both within 0..100 %"
    if curve.hysteresis_c < 0:
        return "hysteresis must not be negative"
    return None


def raw_curve_duty(points: tuple[CurvePoint, ...], kind: CurveKind, temp_c: float) -> float:
    """Duty straight off the points, before the curve's min/max limits."""
    if not points:
        return FULL
    if math.isnan(temp_c):
        return FULL
    if temp_c <= points[0].temp_c:
        return points[0].duty_percent
    if temp_c >= points[-1].temp_c:
        return points[-1].duty_percent
    for low, high in itertools.pairwise(points):
        if low.temp_c <= temp_c < high.temp_c:
            if kind is CurveKind.STEP:
                return low.duty_percent
            share = (temp_c - low.temp_c) / (high.temp_c - low.temp_c)
            return low.duty_percent + share * (high.duty_percent - low.duty_percent)
    return points[-1].duty_percent


def curve_duty(curve: FanCurve, temp_c: float) -> float:
    """Duty for `temp_c` on `curve`, within the curve's min and max duty."""
    return clamp(raw_curve_duty(curve.points, curve.kind, temp_c), curve.min_duty, curve.max_duty)


@dataclass(frozen=True, slots=True)
class Hysteresis:
    """The temperature the current duty was set for.

    Attributes:
        basis: that temperature; None before the first reading.
    """

    basis: float | None = None

    def update(self, temp_c: float, band_c: float) -> Hysteresis:
        """The next state for a new reading: rises are followed at once; falls only once the
        reading is `band_c` below the basis."""
        if self.basis is None or temp_c >= self.basis or temp_c <= self.basis - band_c:
            return Hysteresis(temp_c)
        return self


def limit_rate(previous: float | None, target: float, *, up: float, down: float) -> float:
    """`target`, moved from `previous` by at most `up` (rising) or `down` (falling) percent."""
    if previous is None:
        return target
    if target > previous:
        return min(target, previous + up)
    return max(target, previous - down)


def kick(previous: float | None, target: float, start_duty: float) -> float:
    """At least `start_duty` when a fan starts from a stop (0 %), so it actually spins up."""
    if target > 0 and (previous is None or previous == 0) and target < start_duty:
        return start_duty
    return target


@dataclass(frozen=True, slots=True)
class FanLimits:
    """One fan's own bounds: min/max duty, spin-up duty, and the per-period rate limits."""

    min_duty: float = 20.0
    max_duty: float = 100.0
    start_duty: float = 40.0
    max_up: float = 100.0
    max_down: float = 10.0


def fan_duty(zone_duty: float, previous: float | None, limits: FanLimits) -> float:
    """What one fan is told, from its zone's duty: its bounds, the rate limit, the kick.

    A zone at 100 % (fail-safe) always yields 100 % at once, whatever the fan's limits say.
    """
    if zone_duty >= FULL:
        return FULL
    target = clamp(zone_duty, limits.min_duty, limits.max_duty)
    target = limit_rate(previous, target, up=limits.max_up, down=limits.max_down)
    return round(kick(previous, target, limits.start_duty), 1)
