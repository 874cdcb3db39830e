"""`SimBackend`: a simulated NAS behind the same `Backend` seam as the real collectors.

It places drives in bays the way a real configuration does (serial bindings through
`assign_bays`), and reports raw collector output: verdicts stay unassessed and alerts empty, for
the core to fill in. The snapshot at a given clock time depends only on (scenario, seed, time).
"""

from __future__ import annotations

import math
from pathlib import Path

from nastui.config.presets import PRESETS
from nastui.core.clock import Clock
from nastui.core.layout import assign_bays, build_chassis
from nastui.model import (
    BayBinding,
    BaySlot,
    Chassis,
    Drive,
    Fan,
    HostSnapshot,
    LedState,
    Pool,
    PoolKind,
    ScrubAction,
    ScrubResult,
    Sensor,
)
from nastui.sim.activity import any_scan, io_at, power_at
from nastui.sim.clock import FakeClock
from nastui.sim.drives import build_drive
from nastui.sim.engine import Engine, SimState
from nastui.sim.grid import rng_for
from nastui.sim.pools import ScrubOverride, build_pools, scrub_action
from nastui.sim.scenarios import DEFAULT_SCENARIO, Scenario, get_scenario
from nastui.sim.swapsim import Hands, apply_hands, load_hands
from nastui.sim.thermal import fan_reading, sensor_reading


class SimBackend:
    """A seeded, deterministic simulated NAS (implements `nastui.collectors.base.Backend`)."""

    def __init__(
        self,
        scenario: str = DEFAULT_SCENARIO,
        *,
        seed: int = 0,
        clock: Clock | None = None,
        host: str | None = None,
    ) -> None:
        """Set up the scenario.

        Args:
            scenario: a name from `nastui.sim.SCENARIOS`.
            seed: varies serial numbers, temperatures and timings; same seed, same run.
            clock: where time comes from; a `FakeClock` at `SIM_EPOCH` by default.
            host: host name to publish under; the scenario's own by default ("nano"...).

        Raises:
            UnknownScenario: no scenario has that name.
        """
        self._scenario = get_scenario(scenario)
        self._seed = seed
        self._clock: Clock = clock if clock is not None else FakeClock()
        self._plan = self._scenario.plan(seed)
        self._engine = Engine(self._plan, seed, self._scenario.name)
        self._host = host or self._plan.host
        self._chassis = build_chassis(PRESETS[self._plan.preset])
        self._leds = {bay.number: LedState.OFF for bay in self._chassis.bays}
        self._scrubs: dict[str, ScrubOverride] = {}
        self.hands = Hands()
        """What the operator did to the box (`nastui.sim.swapsim`): pulls, inserts, swaps."""
        self.hands_dir: Path | None = None
        """Where the demo keeps them: read again at every snapshot when set, so a
        `nastui --demo swap sim ...` in another terminal shows in a running interface."""

    @property
    def host(self) -> str:
        """The host name snapshots are published under."""
        return self._host

    @property
    def seed(self) -> int:
        """The seed the run was made with."""
        return self._seed

    @property
    def scenario(self) -> Scenario:
        """The scenario being simulated."""
        return self._scenario

    @property
    def clock(self) -> Clock:
        """The clock snapshots are taken by."""
        return self._clock

    @property
    def chassis(self) -> Chassis:
        """The numbered chassis of the scenario's preset."""
        return self._chassis

    @property
    def bindings(self) -> tuple[BayBinding, ...]:
        """The bay bindings (by serial) the scenario's configuration would hold."""
        return self._plan.bindings

    @property
    def empty_bays(self) -> frozenset[int]:
        """Bays left empty on purpose."""
        return self._plan.empty_bays

    def snapshot(self) -> HostSnapshot:
        """Everything the collectors would report at `clock.now()`."""
        if self.hands_dir is not None:
            self.hands = load_hands(self.hands_dir)
        t = self._clock.now()
        state = self._engine.state_at(t)
        drives = self._drives(state, t)
        snapshot = HostSnapshot(
            host=self._host,
            taken_at=t,
            chassis=self._chassis,
            slots=self._slots(drives),
            drives=drives,
            pools=build_pools(self._plan, t, state.defects, self._scrubs),
            fans=self._fans(t),
            sensors=self._sensors(t),
            source=f"sim:{self._scenario.name}",
        )
        return apply_hands(snapshot, self.hands) if self.hands.done else snapshot

    async def collect(self) -> HostSnapshot:
        """The `Backend` protocol's collect: the same as `snapshot`."""
        return self.snapshot()

    def set_locate(self, bay: int, on: bool) -> LedState:
        """Switch a bay's locate LED on or off; returns its new state.

        Raises:
            ValueError: the chassis has no such bay.
        """
        if bay not in self._leds:
            raise ValueError(f"no bay {bay} in {self._chassis.name}")
        self._leds[bay] = LedState.LOCATE if on else LedState.OFF
        return self._leds[bay]

    def scrub(self, pool: str, action: ScrubAction) -> tuple[bool, str]:
        """Start, pause or stop a pool's scrub (an md array's check) at `clock.now()`.

        Returns whether it was done and the one line the tool would print. Pause is ZFS-only,
        as on real pools.
        """
        plan = next((p for p in self._plan.pools if p.name == pool), None)
        if plan is None:
            return False, f"no pool {pool} on {self._host}"
        if action is ScrubAction.PAUSE and plan.kind is not PoolKind.ZFS:
            return False, f"{pool}: {plan.kind.value} has no scrub pause (stop ends it)"
        changed, ok, message = scrub_action(
            plan, self._scrubs.get(pool), action.value, self._clock.now()
        )
        if changed is not None:
            self._scrubs[pool] = changed
        return ok, message

    def scrubber(self) -> SimScrubber:
        """The scrubber the front ends use on the simulator."""
        return SimScrubber(self)

    def _drives(self, state: SimState, t: float) -> tuple[Drive, ...]:
        io_rng = rng_for(self._seed, self._scenario.name, "io", math.floor(t))
        return tuple(
            build_drive(
                plan,
                power_at(self._plan, i, t),
                self._engine.reading(state, i, t),
                state.defects[i],
                io_at(self._plan, i, t, io_rng),
            )
            for i, plan in enumerate(self._plan.drives)
        )

    def _slots(self, drives: tuple[Drive, ...]) -> tuple[BaySlot, ...]:
        return assign_bays(
            self._chassis,
            drives,
            self._plan.bindings,
            empty_on_purpose=self._plan.empty_bays,
            leds=self._leds,
        )

    def _fans(self, t: float) -> tuple[Fan, ...]:
        rng = rng_for(self._seed, self._scenario.name, "fans", math.floor(t))
        alive = self._engine.fan_alive(t)
        return tuple(
            fan_reading(spec, not up, rng) for spec, up in zip(self._plan.fans, alive, strict=True)
        )

    def _sensors(self, t: float) -> tuple[Sensor, ...]:
        rng = rng_for(self._seed, self._scenario.name, "sensors", math.floor(t))
        room, busy = self._engine.ambient(t), any_scan(self._plan, t)
        return tuple(sensor_reading(spec, room, busy, rng) for spec in self._plan.sensors)


class SimScrubber:
    """Scrub actions on the simulator (a `nastui.control.scrub.Scrubber`)."""

    def __init__(self, backend: SimBackend) -> None:
        self._backend = backend

    async def scrub(self, pool: Pool, action: ScrubAction) -> ScrubResult:
        """Start, pause or stop the simulated scrub; the next snapshot shows it."""
        ok, message = self._backend.scrub(pool.name, action)
        supported = not (action is ScrubAction.PAUSE and pool.kind is not PoolKind.ZFS)
        return ScrubResult(pool.name, action, ok, "sim", message, supported=supported)
