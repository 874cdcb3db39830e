"""`SampleRing` keeps exactly what a `deque(maxlen=capacity)` of (time, value) tuples keeps,
in 16 bytes a sample instead of 112."""

from __future__ import annotations

from collections import deque

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nastui.core.ring import SampleRing
from tests.heldbytes import held_bytes

finite = st.floats(allow_nan=False, allow_infinity=False)


@given(
    capacity=st.integers(min_value=1, max_value=20),
    seeded=st.lists(st.tuples(finite, finite), max_size=40),
    appended=st.lists(st.tuples(finite, finite), max_size=60),
)
def test_the_ring_keeps_what_a_bounded_deque_keeps(
    capacity: int, seeded: list[tuple[float, float]], appended: list[tuple[float, float]]
) -> None:
    ring = SampleRing(capacity, seeded)
    model: deque[tuple[float, float]] = deque(seeded, maxlen=capacity)
    for when, value in appended:
        ring.append(when, value)
        model.append((when, value))
        assert ring.samples() == tuple(model)
        assert len(ring) == len(model)
        assert ring.first_time() == model[0][0]
        assert ring.last_time() == model[-1][0]


def test_an_empty_ring_has_no_times() -> None:
    ring = SampleRing(5)
    assert (len(ring), ring.samples(), ring.first_time(), ring.last_time()) == (0, (), None, None)


def test_a_ring_holds_at_least_one_sample() -> None:
    with pytest.raises(ValueError, match="at least one"):
        SampleRing(0)


def test_a_full_ring_takes_a_seventh_of_a_deque_of_tuples() -> None:
    samples = [(1.7e9 + i * 30.0, 30.0 + (i % 7) * 0.5) for i in range(2880)]

    def ring() -> SampleRing:
        return SampleRing(2880, iter(samples))

    def tuples() -> deque[tuple[float, float]]:
        return deque(((t + 0.0, v + 0.0) for t, v in samples), maxlen=2880)

    assert held_bytes(ring) * 6 < held_bytes(tuples)
    assert held_bytes(ring) < 2880 * 20
