"""A thermal plant: drive temperatures that answer to fan duty, for testing fan control.

First order, like a drive in an airflow: the drive settles where its heat matches what the air
carries away, and the air carries more the faster the fans turn:

    C dT/dt = P - (h0 + h1 * duty/100) (T - T_ambient)

With the defaults a 24-bay box idles around 30 °C at full speed and passes 50 °C with the fans
stopped; at 45 % duty it sits near 38 °C, as the source NAS's table did. Deterministic; a seeded
noise term gives sensor-like readings.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from nastui.sim.thermal import relax


@dataclass(frozen=True, slots=True)
class PlantSpec:
    """The plant's constants.

    Attributes:
        ambient_c: room temperature.
        power_w: heat the drive makes.
        h0: cooling with fans stopped (W/K).
        h1: extra cooling at full duty (W/K).
        capacity_j_per_k: heat capacity (how slowly it moves).
        noise_c: reading noise, +- degrees (0 for none).
    """

    ambient_c: float = 25.0
    power_w: float = 8.0
    h0: float = 0.3
    h1: float = 1.0
    capacity_j_per_k: float = 600.0
    noise_c: float = 0.0


class Plant:
    """The plant's state, stepped by the control loop under test."""

    def __init__(
        self, spec: PlantSpec = PlantSpec(), *, start_c: float | None = None, seed: int = 0
    ) -> None:
        self.spec = spec
        self.temp_c = start_c if start_c is not None else self.equilibrium(50.0)
        self._rng = random.Random(seed)

    def equilibrium(self, duty: float) -> float:
        """Where the temperature settles at a fixed duty."""
        s = self.spec
        return s.ambient_c + s.power_w / (s.h0 + s.h1 * duty / 100.0)

    def step(self, duty: float, dt: float) -> None:
        """Advance `dt` seconds at `duty` percent (exactly: the equation is linear per step)."""
        s = self.spec
        h = s.h0 + s.h1 * max(0.0, min(100.0, duty)) / 100.0
        target = s.ambient_c + s.power_w / h
        self.temp_c = relax(self.temp_c, target, dt, s.capacity_j_per_k / h)

    def reading(self) -> float:
        """What a sensor reports: the temperature plus noise, in whole degrees like a drive."""
        noise = (
            self._rng.uniform(-self.spec.noise_c, self.spec.noise_c) if self.spec.noise_c else 0.0
        )
        return float(round(self.temp_c + noise))
