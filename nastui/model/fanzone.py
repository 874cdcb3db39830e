"""Fan zones and fan curves: how a zone turns temperatures into duty (the fan daemon's, the fan
screen's and the `[[zones]]` configuration's). Duty is in percent (0..100)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class CurveKind(StrEnum):
    """How duty is derived from temperature between curve points."""

    LINEAR = "linear"
    STEP = "step"


@dataclass(frozen=True, slots=True)
class CurvePoint:
    """One point: at `temp_c` degrees the fan runs at `duty_percent`."""

    temp_c: float
    duty_percent: float


# A zone's curve when it sets none (a PID zone's limits; the example's curve; the drafts the fans
# screen, `nastui fans` and the demo's fand make for zones no [[zone]] configures).
DEFAULT_CURVE = (CurvePoint(30.0, 20.0), CurvePoint(40.0, 50.0), CurvePoint(45.0, 100.0))


@dataclass(frozen=True, slots=True)
class FanCurve:
    """A temperature -> duty curve with its limits.

    Attributes:
        points: sorted by temperature.
        kind: linear interpolation or steps.
        hysteresis_c: temperature must fall this far below a point before duty drops.
        min_duty: never below this (except 0 if `allow_stop`).
        max_duty: never above this.
    """

    points: tuple[CurvePoint, ...]
    kind: CurveKind = CurveKind.LINEAR
    hysteresis_c: float = 2.0
    min_duty: float = 20.0
    max_duty: float = 100.0


class FanSource(StrEnum):
    """What temperature a fan zone follows."""

    HOTTEST_DRIVE = "hottest-drive"
    AVERAGE_DRIVES = "average-drives"
    CPU = "cpu"
    MAX = "max"


class ZoneMode(StrEnum):
    """How a zone's duty is computed."""

    CURVE = "curve"
    PID = "pid"


@dataclass(frozen=True, slots=True)
class FanZone:
    """A fan zone: which temperature it follows and how it turns that into duty.

    Attributes:
        name: zone name, referred to by fans.
        sources: temperature sources; with several, the zone follows their maximum.
        mode: curve or PID.
        curve: the curve (curve mode, and the PID's fallback limits).
        setpoint_c: PID target temperature (the source NAS aimed its hottest drive at 40 C).
        kp, ki, kd: PID gains.
        stale_periods: a temperature older than this many periods sends the zone to 100 %.
        trust_after: a sensor once lost is believed again only after this many plausible
            readings in a row (until then the zone stays at 100 %).
    """

    name: str
    sources: tuple[FanSource, ...]
    mode: ZoneMode
    curve: FanCurve
    setpoint_c: float = 40.0
    kp: float = 4.0
    ki: float = 0.1
    kd: float = 0.0
    stale_periods: int = 3
    trust_after: int = 5
