"""`SampleRing`: the newest `capacity` (time, value) samples of one metric, 16 bytes each.

The store keeps one ring per metric (every drive's temperature, read and write rates, every
pool's usage, every fan): 82 metrics on a 24-bay box, 312 on the 102-bay one, 2,880 samples
each once the interface or the daemon has run for a day. A `deque` of `(float, float)` tuples
takes 112 bytes a sample (the tuple, two float objects, the slot): 26 MB for the 24-bay box and
100 MB for the 102-bay one. Here the times and the values are two `array('d')`: 16 bytes a
sample, allocated as samples come (a metric polled once holds one), then overwritten in place
from the oldest once full.

    ring = SampleRing(3)
    for when, value in [(1.0, 30.0), (2.0, 31.0), (3.0, 32.0), (4.0, 33.0)]:
        ring.append(when, value)
    ring.samples()  # ((2.0, 31.0), (3.0, 32.0), (4.0, 33.0))
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable

Sample = tuple[float, float]


class SampleRing:
    """At most `capacity` samples, oldest first; not thread-safe (one event loop owns it)."""

    __slots__ = ("_start", "_times", "_values", "capacity")

    def __init__(self, capacity: int, samples: Iterable[Sample] = ()) -> None:
        if capacity < 1:
            raise ValueError(f"a sample ring holds at least one sample, not {capacity}")
        self.capacity = capacity
        self._times = array("d")
        self._values = array("d")
        self._start = 0  # where the oldest sample is, once the ring is full
        for when, value in samples:
            self.append(when, value)

    def __len__(self) -> int:
        return len(self._times)

    def append(self, when: float, value: float) -> None:
        """Add the newest sample; a full ring forgets its oldest."""
        if len(self._times) < self.capacity:
            self._times.append(when)
            self._values.append(value)
            return
        self._times[self._start] = when
        self._values[self._start] = value
        self._start = (self._start + 1) % self.capacity

    def first_time(self) -> float | None:
        """When the oldest sample was taken (None when empty)."""
        return self._times[self._start] if self._times else None

    def last_time(self) -> float | None:
        """When the newest sample was taken (None when empty)."""
        return self._times[self._start - 1] if self._times else None

    def samples(self) -> tuple[Sample, ...]:
        """Every sample, oldest first."""
        cut = self._start
        times = self._times[cut:] + self._times[:cut]
        values = self._values[cut:] + self._values[:cut]
        return tuple(zip(times, values, strict=True))
