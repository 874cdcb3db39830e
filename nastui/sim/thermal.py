"""A simple thermal model: room air, fans that move it past the bays, drives that heat it.

Each drive relaxes towards an equilibrium temperature with a first-order lag:

    equilibrium = ambient + rise * heat * flow ** -0.55

`rise` is how far above the room the drive sits in its bay when idle with every fan running,
`heat` scales with what the drive is doing (idle, busy, spun down) and `flow` is the share of its
cooling air still arriving (1.0 with every fan at speed). Fan-wall fans cool the bays near them
(a Gaussian of the distance in bays); exhaust fans help every bay a little. A dead fan takes its
share away, so the bays in front of it heat up over the next half hour.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import NamedTuple

from nastui.model import DriveClass, Fan, Sensor
from nastui.sim.grid import DAY_S, round_half_up

HEAT_IDLE = 1.0
HEAT_BUSY = 1.15
HEAT_STANDBY = 0.2

TAU_S: dict[DriveClass, float] = {
    DriveClass.HDD: 1200.0,
    DriveClass.SSD: 900.0,
    DriveClass.NVME: 300.0,
}
"""Thermal time constant per drive class, in seconds."""

_WALL_SHARE = 0.8  # share of a bay's cooling that comes from the fan wall when exhaust fans exist
_MIN_FLOW = 0.15
_FLOW_EXPONENT = 0.55
_AMBIENT_SWING = 0.8  # degrees either side of the mean over a day


class FanSpec(NamedTuple):
    """A fan of the simulated box.

    Attributes:
        name: fan name ("fan-wall-2").
        zone: fan zone ("drives", "exhaust").
        rpm: tachometer reading at `duty` when healthy.
        duty: PWM duty in percent.
        center: (row, column) of the bay grid the fan blows through; None for an exhaust fan
            that draws air through the whole box.
        reach: spread of its airflow, in bays.
    """

    name: str
    zone: str
    rpm: int
    duty: float
    center: tuple[float, float] | None = None
    reach: float = 1.5


class SensorSpec(NamedTuple):
    """A non-drive temperature sensor.

    Attributes:
        name: sensor name ("CPU package").
        offset: degrees above ambient when the box idles.
        busy: extra degrees while a scrub or resilver runs.
    """

    name: str
    offset: float
    busy: float = 0.0


def airflow_shares(cell: tuple[float, float] | None, fans: Sequence[FanSpec]) -> tuple[float, ...]:
    """How much of a bay's cooling air each fan supplies (summing to 1; empty for no bay)."""
    if cell is None:
        return ()
    wall = [
        math.exp(-((cell[0] - f.center[0]) ** 2 + (cell[1] - f.center[1]) ** 2) / (2 * f.reach**2))
        if f.center is not None
        else 0.0
        for f in fans
    ]
    exhaust = sum(1 for f in fans if f.center is None)
    wall_share = _WALL_SHARE if exhaust else 1.0
    total = sum(wall) or 1.0
    return tuple(
        wall_share * w / total if f.center is not None else (1.0 - wall_share) / exhaust
        for f, w in zip(fans, wall, strict=True)
    )


def flow(shares: Sequence[float], alive: Sequence[bool]) -> float:
    """The share of a bay's cooling air still arriving, given which fans run."""
    if not shares:
        return 1.0
    return sum(s for s, up in zip(shares, alive, strict=True) if up)


def equilibrium(ambient: float, rise: float, heat: float, air: float) -> float:
    """The temperature a drive settles at with these inputs."""
    return ambient + rise * heat * math.pow(max(air, _MIN_FLOW), -_FLOW_EXPONENT)


def relax(temp: float, target: float, seconds: float, tau: float) -> float:
    """First-order approach of `temp` towards `target` after `seconds`."""
    return relax_by(temp, target, kept(seconds, tau))


def kept(seconds: float, tau: float) -> float:
    """The share of a gap to the target still left after `seconds` (time constant `tau`)."""
    return math.exp(-seconds / tau)


def relax_by(temp: float, target: float, left: float) -> float:
    """`relax` with the share of the gap left (`kept`) worked out already."""
    return target + (temp - target) * left


def ambient_at(mean: float, phase: float, t: float) -> float:
    """Room temperature at `t`: `mean`, swinging gently over the day."""
    return mean + _AMBIENT_SWING * math.sin(2 * math.pi * (t - phase) / DAY_S)


def fan_reading(spec: FanSpec, dead: bool, rng: random.Random) -> Fan:
    """The fan as the hardware reports it: tach jitter of a percent or two, 0 RPM when dead."""
    jitter = rng.uniform(0.985, 1.015)  # drawn for dead fans too, so the others keep theirs
    rpm = 0 if dead else round_half_up(spec.rpm * jitter)
    return Fan(spec.name, rpm, spec.duty, spec.zone, driver="sim", controllable=True)


def sensor_reading(spec: SensorSpec, ambient: float, busy: bool, rng: random.Random) -> Sensor:
    """The sensor's reading in whole degrees, as coretemp and IPMI report them."""
    value = ambient + spec.offset + (spec.busy if busy else 0.0) + rng.uniform(-1.0, 1.0)
    return Sensor(spec.name, float(round_half_up(value)), unit="C", source="sim")
