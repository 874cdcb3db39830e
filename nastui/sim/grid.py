"""The simulator's time grid and its seeded randomness.

Simulated time is cut into fixed 300-second blocks aligned to `ORIGIN` (six hours before
`SIM_EPOCH`, so scenarios can have a history: a scrub that started three hours ago, a fan that died
twenty minutes ago). State advances one block at a time; inside a block every value is a closed
form of time, so the state at any moment depends only on (scenario, seed, time) and never on how
often it was polled. Temperatures are sampled on a 30-second grid, SMART data on the block grid.

Every random draw comes from a `random.Random` seeded with a string made of the seed, the scenario
name and what the draw is for; the global `random` module and the wall clock are never used.
"""

from __future__ import annotations

import math
import random

from nastui.sim.clock import SIM_EPOCH

BLOCK_S = 300
"""Length of one state step in seconds; also how often SMART data is read."""

TEMP_S = 30
"""How often drive temperatures are sampled, in seconds."""

WARMUP_S = 6 * 3600
"""How long before `SIM_EPOCH` the simulation starts."""

ORIGIN = SIM_EPOCH - WARMUP_S
"""Unix time of block 0. `SIM_EPOCH` lies on the block grid."""

DAY_S = 86_400


def rng_for(seed: int, scenario: str, *keys: object) -> random.Random:
    """A generator seeded from the run's seed, the scenario and the purpose of the draws.

    Args:
        seed: the run's seed.
        scenario: the scenario name.
        keys: what the numbers are for ("plan", "block", 17), so draws for one purpose never
            shift when another purpose draws more or fewer numbers.
    """
    return random.Random(":".join(str(k) for k in (seed, scenario, *keys)))


def block_of(t: float) -> int:
    """The index of the block holding time `t` (0 for anything before `ORIGIN`)."""
    return max(0, math.floor((t - ORIGIN) / BLOCK_S))


def block_start(block: int) -> float:
    """Unix time at which block `block` begins."""
    return ORIGIN + block * BLOCK_S


def floor_to(t: float, step: int) -> float:
    """`t` rounded down onto the grid of `step` seconds that runs through `ORIGIN`."""
    return ORIGIN + math.floor((t - ORIGIN) / step) * step


def round_half_up(value: float) -> int:
    """`value` rounded to the nearest integer, halves upwards (as drive firmware reports)."""
    return math.floor(value + 0.5)
