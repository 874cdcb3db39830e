"""The simulator's state and how it advances: one 300-second block at a time from `ORIGIN`.

`SimState` holds, for the start of one block, each drive's modelled temperature and the
equilibrium it is heading for, its defect counters, and the last reading of each drive that has
spun down. Inputs (fans, load, room) are taken at the start of a block and held through it, so a
temperature inside the block is a closed form and the state at any time is a pure function of
(scenario, seed, time): a poll every second and a one-day jump land on the same numbers.
`Engine` caches the newest state and steps forward from it; a day is 288 steps.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from nastui.sim.activity import asleep_since, heats_at
from nastui.sim.grid import (
    BLOCK_S,
    ORIGIN,
    TEMP_S,
    block_of,
    block_start,
    floor_to,
    rng_for,
    round_half_up,
)
from nastui.sim.plan import Plan
from nastui.sim.thermal import (
    TAU_S,
    airflow_shares,
    ambient_at,
    equilibrium,
    flow,
    kept,
    relax,
    relax_by,
)


class Defects(NamedTuple):
    """A drive's growing defect counters (all 0 for a healthy drive)."""

    pending: int = 0
    realloc: int = 0
    realloc_events: int = 0
    offline_unc: int = 0
    read_errors: int = 0


FAILING_START = Defects(pending=2, realloc=12, realloc_events=3, offline_unc=2, read_errors=1)
"""Where the failing drive's counters stand when the simulation begins (six hours before t0)."""


class Reading(NamedTuple):
    """One temperature sample and the SMART read that went with it.

    Attributes:
        celsius: the temperature, in whole degrees.
        measured_at: when it was sampled.
        smart_at: when SMART data was last read.
        smart_celsius: the temperature the SMART read saw.
    """

    celsius: float
    measured_at: float
    smart_at: float
    smart_celsius: float


class SimState(NamedTuple):
    """The simulation at the start of one block.

    Attributes:
        block: block index (its start is `block_start(block)`).
        temps: each drive's modelled temperature at the block's start.
        targets: the equilibrium each drive heads for during the block.
        defects: each drive's defect counters.
        frozen: each drive's last reading before it spun down (None if it never did).
    """

    block: int
    temps: tuple[float, ...]
    targets: tuple[float, ...]
    defects: tuple[Defects, ...]
    frozen: tuple[Reading | None, ...]

    @property
    def start(self) -> float:
        """Unix time the block begins."""
        return block_start(self.block)


class Engine:
    """Advances a plan's state and reads temperatures off it."""

    def __init__(self, plan: Plan, seed: int, scenario: str) -> None:
        self.plan = plan
        self._seed = seed
        self._scenario = scenario
        self._shares = tuple(airflow_shares(d.cell, plan.fans) for d in plan.drives)
        self._tau = tuple(TAU_S[d.profile.drive_class] for d in plan.drives)
        self._kept = tuple(kept(BLOCK_S, tau) for tau in self._tau)  # over one block
        self._airs: dict[tuple[bool, ...], tuple[float, ...]] = {}
        self._noise: dict[int, tuple[float, ...]] = {}
        self._first = self._initial()
        self._state = self._first

    def state_at(self, t: float) -> SimState:
        """The state of the block holding `t`, stepping forward from the cached one."""
        block = block_of(t)
        if block < self._state.block:
            self._state = self._first
        while self._state.block < block:
            self._state = self._step(self._state)
        return self._state

    def fan_alive(self, t: float) -> tuple[bool, ...]:
        """Which fans turn at `t`."""
        dead = self.plan.dead_fan
        return tuple(dead is None or f.name != dead.name or t < dead.since for f in self.plan.fans)

    def ambient(self, t: float) -> float:
        """Room temperature at `t`."""
        return ambient_at(self.plan.ambient, self.plan.ambient_phase, t)

    def reading(self, state: SimState, index: int, t: float) -> Reading:
        """The drive's latest reading at `t` (frozen at spin-down while it sleeps)."""
        down = asleep_since(self.plan, index, t)
        if down is not None:
            return self._frozen(state, index, down)
        sample = floor_to(t, TEMP_S)
        smart = state.start
        wake = self.plan.sleep.wake[index] if self.plan.sleep else None
        if wake is not None and wake <= t:
            sample, smart = max(sample, wake), max(smart, wake)
        return self._sample(state, index, sample, smart)

    def _frozen(self, state: SimState, index: int, down: float) -> Reading:
        """The last reading before the drive spun down at `down`."""
        frozen = state.frozen[index]
        if frozen is None or down >= state.start:  # spun down during this block
            return self._sample(state, index, floor_to(down, TEMP_S), state.start)
        return frozen

    def _sample(self, state: SimState, index: int, sample: float, smart: float) -> Reading:
        return Reading(
            self._celsius(state, index, sample), sample, smart, self._celsius(state, index, smart)
        )

    def _celsius(self, state: SimState, index: int, when: float) -> float:
        """The drive's reading at `when` (inside the state's block): model plus sensor noise."""
        target = state.targets[index]
        model = relax(state.temps[index], target, when - state.start, self._tau[index])
        return float(round_half_up(model + self._noise_at(when)[index]))

    def _noise_at(self, when: float) -> tuple[float, ...]:
        tick = math.floor((when - ORIGIN) / TEMP_S)
        if tick not in self._noise:
            if len(self._noise) > 8:
                self._noise.clear()
            rng = rng_for(self._seed, self._scenario, "temp", tick)
            self._noise[tick] = tuple(rng.uniform(-0.6, 0.6) for _ in self.plan.drives)
        return self._noise[tick]

    def _targets(self, t: float) -> tuple[float, ...]:
        room = self.ambient(t)
        return tuple(
            equilibrium(room, d.rise, heat, air)
            for d, heat, air in zip(
                self.plan.drives, heats_at(self.plan, t), self._air(t), strict=True
            )
        )

    def _air(self, t: float) -> tuple[float, ...]:
        """Each drive's share of its cooling air arriving at `t` (worked out once per set of
        running fans: it changes only when a fan dies)."""
        alive = self.fan_alive(t)
        air = self._airs.get(alive)
        if air is None:
            air = self._airs[alive] = tuple(flow(shares, alive) for shares in self._shares)
        return air

    def _initial(self) -> SimState:
        targets = self._targets(ORIGIN)
        defects = tuple(
            FAILING_START if i == self.plan.failing else Defects()
            for i in range(len(self.plan.drives))
        )
        return SimState(0, targets, targets, defects, (None,) * len(targets))

    def _step(self, state: SimState) -> SimState:
        end = state.start + BLOCK_S
        temps = tuple(
            relax_by(temp, target, left)
            for temp, target, left in zip(state.temps, state.targets, self._kept, strict=True)
        )
        return SimState(
            state.block + 1,
            temps,
            self._targets(end),
            self._grow_defects(state),
            self._freeze(state, end),
        )

    def _freeze(self, state: SimState, end: float) -> tuple[Reading | None, ...]:
        """Keep the last reading of every drive that spins down during this block."""
        sleep = self.plan.sleep
        if sleep is None:
            return state.frozen
        return tuple(
            self._sample(state, i, floor_to(down, TEMP_S), state.start)
            if down is not None and state.start <= down < end
            else old
            for i, (down, old) in enumerate(zip(sleep.spin_down, state.frozen, strict=True))
        )

    def _grow_defects(self, state: SimState) -> tuple[Defects, ...]:
        """The failing drive finds new bad sectors every so often (a few an hour)."""
        index = self.plan.failing
        if index is None:
            return state.defects
        rng = rng_for(self._seed, self._scenario, "defects", state.block)
        old = state.defects[index]
        roll = [rng.random() for _ in range(4)]
        realloc = rng.randint(1, 8) if roll[1] < 0.06 else 0
        new = old._replace(
            pending=old.pending + (rng.randint(1, 2) if roll[0] < 0.2 else 0),
            realloc=old.realloc + realloc,
            realloc_events=old.realloc_events + (1 if realloc else 0),
            offline_unc=old.offline_unc + (1 if roll[2] < 0.08 else 0),
            read_errors=old.read_errors + (1 if roll[3] < 0.05 else 0),
        )
        return tuple(new if i == index else d for i, d in enumerate(state.defects))
