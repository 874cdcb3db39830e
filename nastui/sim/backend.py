"""`SimBackend`: a simulated NAS behind the same `Backend` seam as the real collectors.

It places drives in bays the way a real configuration does (serial bindings through
`assign_bays`), and reports raw collector output: verdicts stay unassessed and alerts empty, for
the core to fill in. The snapshot at a given sim time depends only on (scenario, seed, time).

A demo session on the wall clock gives an `offset`: the simulator runs at `clock - offset` and
every timestamp it reports is moved by `offset` (`nastui.core.timeshift`). With a `store`, the
LEDs lit and scrub actions taken (`nastui.core.demostate`) are read back before each snapshot
and saved after each action, so separate commands see one box.
"""

from __future__ import annotations

import functools
import math
from pathlib import Path
from typing import TYPE_CHECKING

from nastui.config.presets import PRESETS
from nastui.core.clock import Clock
from nastui.core.demostate import DemoState, DemoStore, ScrubStep
from nastui.core.layout import assign_bays, build_chassis
from nastui.core.timeshift import shift_snapshot
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
    Sensor,
)
from nastui.sim.activity import any_scan, io_at, power_at
from nastui.sim.clock import FakeClock
from nastui.sim.drives import SmartReads, build_drive
from nastui.sim.engine import Engine, SimState
from nastui.sim.grid import rng_for
from nastui.sim.hands import Hands, load_hands
from nastui.sim.pools import ScrubOverride, build_pools, scrub_action
from nastui.sim.scenarios import DEFAULT_SCENARIO, Scenario, get_scenario

if TYPE_CHECKING:
    from nastui.model import ScrubResult
    from nastui.sim.selftest import SimTester
    from nastui.sim.swap import SimSwap
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
        offset: float = 0.0,
        store: DemoStore | None = None,
    ) -> None:
        """Set up the scenario.

        Args:
            scenario: a name from `nastui.sim.SCENARIOS`.
            seed: varies serial numbers, temperatures and timings; same seed, same run.
            clock: where time comes from; a `FakeClock` at `SIM_EPOCH` by default.
            host: host name to publish under; the scenario's own by default ("nano"...).
            offset: clock time minus sim time (0: the clock is sim time).
            store: where LEDs and scrub actions are kept between processes (None: in memory).

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
        """What the operator did to the box (`nastui.sim.swap`): pulls, inserts, swaps."""
        self.hands_dir: Path | None = None
        """Where the demo keeps them: read again at every snapshot when set, so a
        `nastui --demo swap sim ...` in another terminal shows in a running interface."""
        self._offset = offset
        self._store = store
        self._synced: DemoState | None = None
        self._smart = SmartReads()

    # The swap's and the self-test's code is loaded when a feature first asks for it.
    @functools.cached_property
    def swap(self) -> SimSwap:
        """The swap's commands played as hands (the `Backend` protocol's swap)."""
        from nastui.sim.swap import SimSwap

        return SimSwap(self)

    @functools.cached_property
    def tester(self) -> SimTester:
        """Self-tests that progress with simulated time (the `Backend` protocol's tester)."""
        from nastui.sim.selftest import SimTester

        return SimTester()

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

    @property
    def offset(self) -> float:
        """Clock time minus sim time."""
        return self._offset

    def snapshot(self) -> HostSnapshot:
        """Everything the collectors would report at `clock.now()`."""
        if self.hands_dir is not None:
            self.hands = load_hands(self.hands_dir)
        self._sync()
        # `swap sim wait` moves the demo's time on: the state is that much further along, and
        # the snapshot's times with it (the hands are stamped in the same, shifted, time).
        t = self._clock.now() - self._offset + self.hands.offset_s
        state = self._engine.state_at(t)
        drives = self._drives(state, t)
        raw = HostSnapshot(
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
        shifted = shift_snapshot(raw, self._offset)
        if not self.hands.done:
            return shifted
        from nastui.sim.swap import apply_hands  # what hands do to the box, once there are any

        return apply_hands(shifted, self.hands)

    async def collect(self) -> HostSnapshot:
        """The `Backend` protocol's collect: the same as `snapshot`."""
        return self.snapshot()

    def collect_at_once(self) -> HostSnapshot:
        """The `Backend` protocol's collect without an event loop: `snapshot`, which waits
        for nothing."""
        return self.snapshot()

    def set_locate(self, bay: int, on: bool) -> LedState:
        """Switch a bay's locate LED on or off; returns its new state.

        Raises:
            ValueError: the chassis has no such bay.
        """
        if bay not in self._leds:
            raise ValueError(f"no bay {bay} in {self._chassis.name}")
        if self._store is None:
            self._leds[bay] = LedState.LOCATE if on else LedState.OFF
            return self._leds[bay]
        state = self._store.load().with_led(bay, on, self._clock.now())
        try:
            self._store.save(state)
        except OSError as exc:
            raise ValueError(f"bay {bay}: not switched, {exc}") from exc
        self._apply(state)
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
        self._sync()
        old = self._scrubs.get(pool)
        wall = self._clock.now()
        changed, ok, message = scrub_action(plan, old, action.value, wall - self._offset)
        if not ok or changed is None:
            return ok, message
        if self._store is None:
            self._scrubs[pool] = changed
            return ok, message
        fresh = changed.scan is not (old.scan if old is not None else plan.scan)
        state = self._store.load().with_scrub(ScrubStep(pool, action.value, wall), fresh=fresh)
        try:
            self._store.save(state)
        except OSError as exc:
            return False, f"{pool}: {action.value} not kept, {exc}"
        self._apply(state)
        return ok, message

    def _sync(self) -> None:
        """Apply the stored state if another command changed it."""
        if self._store is not None:
            state = self._store.load()
            if state != self._synced:
                self._apply(state)

    def _apply(self, state: DemoState) -> None:
        """LEDs and scrubs as `state` says: the scrub actions replayed at their times."""
        self._synced = state
        self._leds = {bay.number: LedState.OFF for bay in self._chassis.bays}
        for bay in state.leds:
            if bay in self._leds:
                self._leds[bay] = LedState.LOCATE
        self._scrubs = {}
        plans = {p.name: p for p in self._plan.pools}
        for step in state.scrubs:
            plan = plans.get(step.pool)
            if plan is None:
                continue
            old = self._scrubs.get(step.pool)
            changed, _, _ = scrub_action(plan, old, step.action, step.at - self._offset)
            if changed is not None:
                self._scrubs[step.pool] = changed

    def scrubber(self) -> SimScrubber:
        """The scrubber the front ends use on the simulator."""
        return SimScrubber(self)

    def _drives(self, state: SimState, t: float) -> tuple[Drive, ...]:
        io_rng = rng_for(self._seed, self._scenario.name, "io", math.floor(t))
        drives = []
        for i, plan in enumerate(self._plan.drives):
            reading, defects = self._engine.reading(state, i, t), state.defects[i]
            drives.append(
                build_drive(
                    plan,
                    power_at(self._plan, i, t),
                    reading,
                    defects,
                    io_at(self._plan, i, t, io_rng),
                    tables=self._smart.tables(i, plan, reading, defects),
                )
            )
        return tuple(drives)

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
        from nastui.model import ScrubResult  # with the actions' results, when one is done

        ok, message = self._backend.scrub(pool.name, action)
        supported = not (action is ScrubAction.PAUSE and pool.kind is not PoolKind.ZFS)
        return ScrubResult(pool.name, action, ok, "sim", message, supported=supported)
