"""The state at time t is a pure function of (scenario, seed, t)."""

from __future__ import annotations

import random
import time

import pytest

from nastui.model import HostSnapshot
from nastui.sim import SCENARIOS, SimBackend
from nastui.sim.clock import FakeClock

DAY = 86_400.0


def at(name: str, seed: int, seconds: float) -> HostSnapshot:
    """A fresh backend's snapshot `seconds` after t0, reached in one jump."""
    clock = FakeClock()
    backend = SimBackend(name, seed=seed, clock=clock)
    clock.advance(seconds)
    return backend.snapshot()


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_same_seed_same_snapshots(name: str) -> None:
    assert at(name, 7, 0) == at(name, 7, 0)
    assert at(name, 7, 4321.5) == at(name, 7, 4321.5)


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_different_seeds_different_temperatures(name: str) -> None:
    def temps(seed: int) -> list[float | None]:
        return [d.temperature.celsius if d.temperature else None for d in at(name, seed, 0).drives]

    assert temps(1) != temps(2)


@pytest.mark.parametrize("name", ["failing-drive", "sleeping", "hot-bay", "resilvering"])
def test_polling_pattern_does_not_matter(name: str) -> None:
    clock = FakeClock()
    polled = SimBackend(name, seed=3, clock=clock)
    for step in (7.0, 13.3, 301.0, 29.0) * 20:
        clock.advance(step)
        polled.snapshot()
    assert polled.snapshot() == at(name, 3, clock.now() - FakeClock().now())


def test_a_poll_in_between_changes_nothing() -> None:
    clock = FakeClock()
    backend = SimBackend("failing-drive", clock=clock)
    clock.advance(DAY / 3)
    backend.snapshot()
    clock.advance(DAY / 3)
    assert backend.snapshot() == at("failing-drive", 0, 2 * DAY / 3)


def test_a_day_long_jump_takes_under_a_second() -> None:
    clock = FakeClock()
    backend = SimBackend("failing-drive", clock=clock)
    backend.snapshot()
    clock.advance(DAY)
    start = time.perf_counter()
    backend.snapshot()
    assert time.perf_counter() - start < 1.0


def test_the_global_random_state_and_wall_clock_are_left_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_wall_clock() -> float:
        raise AssertionError("the simulator read the wall clock")

    monkeypatch.setattr(time, "time", no_wall_clock)
    state = random.getstate()
    clock = FakeClock()
    backend = SimBackend("sleeping", clock=clock)
    for _ in range(3):
        backend.snapshot()
        clock.advance(600)
    assert random.getstate() == state
