"""The simulated NAS: seeded, deterministic scenarios behind the real `Backend` seam.

    from nastui.sim import SimBackend, SCENARIOS
    backend = SimBackend("scrubbing", seed=1)
    snapshot = backend.snapshot()

Drive models, firmware and SMART tables come from real smartctl reports (`data/drives.json`,
each profile naming its sources); time comes from a `Clock`, a `FakeClock` at `SIM_EPOCH` unless
one is given.
"""

from __future__ import annotations

from nastui.sim.backend import SimBackend
from nastui.sim.scenarios import DEFAULT_SCENARIO, SCENARIOS, Scenario, UnknownScenario

__all__ = ["DEFAULT_SCENARIO", "SCENARIOS", "Scenario", "SimBackend", "UnknownScenario"]
