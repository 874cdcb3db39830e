"""Editing a fan curve a keystroke at a time (pure): move, add and delete points, nudge the
hysteresis and the minimum duty.

Every edit keeps the curve loadable by the configuration's rules: temperatures strictly rising
within -20..120 °C, duty within 0..100 % and never falling as temperature rises, min duty not
above max duty. An edit that would break a rule is refused with the reason, and the curve stays.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from nastui.fans.logic.curve import clamp
from nastui.model import CurvePoint, FanCurve

TEMP_LOW, TEMP_HIGH = -20.0, 120.0
MAX_HYSTERESIS = 20.0


@dataclass(frozen=True, slots=True)
class Edited:
    """An edit's outcome: the curve, the selected point, and why the edit was refused (if)."""

    curve: FanCurve
    selected: int
    refused: str | None = None


def _points(curve: FanCurve, points: list[CurvePoint]) -> FanCurve:
    return dataclasses.replace(curve, points=tuple(points))


def move_point(curve: FanCurve, index: int, d_temp: float, d_duty: float) -> Edited:
    """Move point `index` by `d_temp` degrees and `d_duty` percent.

    Temperature stays strictly between the neighbours; duty is held between the neighbours'
    duties (and 0..100) rather than refused, so holding an arrow key walks up to the limit.
    """
    points = list(curve.points)
    point = points[index]
    before = points[index - 1] if index > 0 else None
    after = points[index + 1] if index + 1 < len(points) else None
    temp = point.temp_c + d_temp
    if d_temp and (
        not TEMP_LOW <= temp <= TEMP_HIGH
        or (before is not None and temp <= before.temp_c)
        or (after is not None and temp >= after.temp_c)
    ):
        return Edited(curve, index, "a point stays between its neighbours and within -20..120 °C")
    low = before.duty_percent if before is not None else 0.0
    high = after.duty_percent if after is not None else 100.0
    duty = clamp(point.duty_percent + d_duty, low, high)
    points[index] = CurvePoint(temp, duty)
    return Edited(_points(curve, points), index)


def add_point(curve: FanCurve, index: int) -> Edited:
    """A new point after `index`: halfway to the next one, or 5 °C past the last."""
    points = list(curve.points)
    point = points[index]
    if index + 1 < len(points):
        after = points[index + 1]
        if after.temp_c - point.temp_c < 2:
            return Edited(curve, index, "no room between these two points (2 °C at least)")
        temp = round((point.temp_c + after.temp_c) / 2, 1)
        duty = round((point.duty_percent + after.duty_percent) / 2, 1)
    else:
        temp = point.temp_c + 5
        duty = min(100.0, point.duty_percent + 10)
        if temp > TEMP_HIGH:
            return Edited(curve, index, "no room past the last point (120 °C at most)")
    points.insert(index + 1, CurvePoint(temp, duty))
    return Edited(_points(curve, points), index + 1)


def delete_point(curve: FanCurve, index: int) -> Edited:
    """Remove point `index` (the last one left stays)."""
    if len(curve.points) <= 1:
        return Edited(curve, index, "a curve keeps at least one point")
    points = list(curve.points)
    del points[index]
    return Edited(_points(curve, points), min(index, len(points) - 1))


def nudge_hysteresis(curve: FanCurve, delta: float) -> FanCurve:
    """Hysteresis changed by `delta` degrees, within 0..20."""
    return dataclasses.replace(
        curve, hysteresis_c=clamp(curve.hysteresis_c + delta, 0.0, MAX_HYSTERESIS)
    )


def nudge_min_duty(curve: FanCurve, delta: float) -> FanCurve:
    """Minimum duty changed by `delta` percent, within 0..max duty."""
    return dataclasses.replace(curve, min_duty=clamp(curve.min_duty + delta, 0.0, curve.max_duty))
