"""`SnapshotStore.seed`: older samples from the history file go in front of a metric's ring,
never duplicating or reordering what the store already holds, and the ring stays bounded."""

from __future__ import annotations

from nastui.core.store import SnapshotStore
from nastui.model import HostSnapshot, Sensor


def _snapshot(at: float, value: float) -> HostSnapshot:
    return HostSnapshot("nas", at, sensors=(Sensor("cpu", value),))


def test_seed_an_empty_store_sorts_and_drops_repeated_times() -> None:
    store = SnapshotStore()
    added = store.seed("nas", "temp:A", [(30.0, 36.0), (10.0, 35.0), (30.0, 36.0), (20.0, 35.0)])
    assert added == 3
    assert store.history("nas", "temp:A") == ((10.0, 35.0), (20.0, 35.0), (30.0, 36.0))
    assert store.hosts() == ()  # seeding publishes nothing


def test_seed_after_polls_keeps_only_older_samples_in_front() -> None:
    store = SnapshotStore()
    store.publish(_snapshot(100.0, 50.0))
    store.publish(_snapshot(130.0, 51.0))
    history = [(40.0, 47.0), (70.0, 48.0), (100.0, 49.0), (130.0, 99.0), (160.0, 99.0)]
    assert store.seed("nas", "sensor:cpu", history) == 2
    assert store.history("nas", "sensor:cpu") == (
        (40.0, 47.0),
        (70.0, 48.0),
        (100.0, 50.0),
        (130.0, 51.0),
    )


def test_seeding_twice_adds_nothing_the_second_time() -> None:
    store = SnapshotStore()
    samples = [(float(t), 30.0) for t in range(0, 600, 60)]
    assert store.seed("nas", "temp:A", samples) == 10
    assert store.seed("nas", "temp:A", samples) == 0
    assert len(store.history("nas", "temp:A")) == 10


def test_polls_after_seeding_append_as_usual() -> None:
    store = SnapshotStore()
    store.seed("nas", "sensor:cpu", [(10.0, 40.0), (20.0, 41.0)])
    store.publish(_snapshot(30.0, 42.0))
    store.publish(_snapshot(30.0, 43.0))  # same time again: ignored, as without seeding
    assert store.history("nas", "sensor:cpu") == ((10.0, 40.0), (20.0, 41.0), (30.0, 42.0))


def test_a_full_ring_keeps_its_newest_samples() -> None:
    store = SnapshotStore(history_len=4)
    for t in (100.0, 110.0, 120.0):
        store.publish(_snapshot(t, t))
    added = store.seed("nas", "sensor:cpu", [(70.0, 1.0), (80.0, 2.0), (90.0, 3.0)])
    assert added == 1
    assert store.history("nas", "sensor:cpu") == (
        (90.0, 3.0),
        (100.0, 100.0),
        (110.0, 110.0),
        (120.0, 120.0),
    )
    store.publish(_snapshot(130.0, 130.0))
    assert store.history("nas", "sensor:cpu")[0] == (100.0, 100.0)
    store2 = SnapshotStore(history_len=2)
    store2.publish(_snapshot(100.0, 1.0))
    store2.publish(_snapshot(110.0, 2.0))
    assert store2.seed("nas", "sensor:cpu", [(50.0, 0.0)]) == 0


def test_seed_with_nothing_older_changes_nothing() -> None:
    store = SnapshotStore()
    store.publish(_snapshot(100.0, 50.0))
    assert store.seed("nas", "sensor:cpu", []) == 0
    assert store.seed("nas", "sensor:cpu", [(100.0, 1.0), (200.0, 2.0)]) == 0
    assert store.history("nas", "sensor:cpu") == ((100.0, 50.0),)
