"""The snapshot store: the latest snapshot per host, bounded history per metric (seeded from
the history file when a session opens), subscribers.

Front ends read from here and never from collectors. `ingest` is the one path a raw snapshot
takes: note first-seen SMART values, assess (carrying each standing alert's `since` forward),
publish. Subscribers are called only when the new snapshot differs from the previous one in
something other than its timestamp.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator

from nastui.core.assess import assess
from nastui.core.capacity import metric as usage_metric
from nastui.core.health import first_seen
from nastui.core.ring import Sample, SampleRing
from nastui.model import Acknowledgement, HostSnapshot, Thresholds

Subscriber = Callable[[HostSnapshot], None]
DEFAULT_HISTORY = 2880  # 24 h of 30-second temperature samples


def metrics_of(snapshot: HostSnapshot) -> Iterator[tuple[str, float, float]]:
    """(metric name, sample time, value) for everything worth a trend line."""
    for drive in snapshot.drives:
        if drive.temperature is not None:
            yield f"temp:{drive.key}", drive.temperature.measured_at, drive.temperature.celsius
        if drive.io is not None:
            yield f"read:{drive.key}", snapshot.taken_at, drive.io.read_bytes_per_s
            yield f"write:{drive.key}", snapshot.taken_at, drive.io.write_bytes_per_s
    for pool in snapshot.pools:
        percent = pool.scan.percent if pool.scan is not None else None
        if percent is not None:
            yield f"scan:{pool.name}", snapshot.taken_at, percent
        if pool.used_percent is not None:
            yield usage_metric(pool.name), snapshot.taken_at, pool.used_percent
    for fan in snapshot.fans:
        if fan.rpm is not None:
            yield f"fan:{fan.name}", snapshot.taken_at, float(fan.rpm)
    for sensor in snapshot.sensors:
        if sensor.value is not None:
            yield f"sensor:{sensor.name}", snapshot.taken_at, sensor.value


class _HostState:
    def __init__(self) -> None:
        self.latest: HostSnapshot | None = None
        self.history: dict[str, SampleRing] = {}
        self.baselines: dict[str, dict[int, int]] = {}


class SnapshotStore:
    """Latest snapshot and history for every host; not thread-safe (one event loop owns it)."""

    def __init__(self, history_len: int = DEFAULT_HISTORY) -> None:
        self._hosts: dict[str, _HostState] = {}
        self._history_len = history_len
        self._subscribers: list[Subscriber] = []

    def _host(self, host: str) -> _HostState:
        return self._hosts.setdefault(host, _HostState())

    def hosts(self) -> tuple[str, ...]:
        """Hosts with at least one snapshot, in first-published order."""
        return tuple(h for h, s in self._hosts.items() if s.latest is not None)

    def latest(self, host: str) -> HostSnapshot | None:
        """The newest snapshot of `host`."""
        state = self._hosts.get(host)
        return state.latest if state else None

    def history(self, host: str, metric: str) -> tuple[Sample, ...]:
        """(time, value) samples of one metric, oldest first."""
        state = self._hosts.get(host)
        if state is None or metric not in state.history:
            return ()
        return state.history[metric].samples()

    def seed(self, host: str, metric: str, samples: Iterable[Sample]) -> int:
        """Put older samples (from the history file) in front of a metric's ring.

        Only samples older than the oldest one already held are taken, so seeding after some
        polls never duplicates or reorders; the ring keeps its newest `history_len` samples.
        Returns how many samples were added.
        """
        ring = self._host(host).history.get(metric)
        held = ring.samples() if ring is not None else ()
        oldest = held[0][0] if held else float("inf")
        older: list[Sample] = []
        for when, value in sorted(samples):
            if when < oldest and (not older or when > older[-1][0]):
                older.append((when, value))
        if not older:
            return 0
        kept = SampleRing(self._history_len, [*older[-self._history_len :], *held])
        self._host(host).history[metric] = kept
        return min(len(older), max(0, len(kept) - len(held)))

    def baseline(self, host: str, drive_key: str) -> dict[int, int]:
        """Raw SMART attribute values first seen for a drive."""
        return dict(self._host(host).baselines.get(drive_key, {}))

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Call `callback(snapshot)` on every changed snapshot; returns the unsubscribe call."""
        self._subscribers.append(callback)
        return lambda: self._subscribers.remove(callback)

    def note_baselines(self, snapshot: HostSnapshot) -> None:
        """Remember the first raw value seen of every attribute of every drive."""
        known = self._host(snapshot.host).baselines
        for drive in snapshot.drives:
            known[drive.key] = first_seen(drive, known.get(drive.key))

    def publish(self, snapshot: HostSnapshot) -> bool:
        """Make `snapshot` the latest for its host; True (and subscribers called) if it changed."""
        state = self._host(snapshot.host)
        previous = state.latest
        state.latest = snapshot
        self._record(state, snapshot)
        changed = previous is None or dataclasses.replace(previous, taken_at=0.0) != (
            dataclasses.replace(snapshot, taken_at=0.0)
        )
        if changed:
            for callback in list(self._subscribers):
                callback(snapshot)
        return changed

    def _record(self, state: _HostState, snapshot: HostSnapshot) -> None:
        for name, when, value in metrics_of(snapshot):
            ring = state.history.get(name)
            if ring is None:
                ring = state.history[name] = SampleRing(self._history_len)
            last = ring.last_time()
            if last is not None and last >= when:
                continue  # the same reading again (a standby drive's last temperature)
            ring.append(when, value)

    def ingest(
        self,
        raw: HostSnapshot,
        limits: Thresholds,
        now: float,
        acks: Iterable[Acknowledgement] = (),
    ) -> HostSnapshot:
        """Note baselines, assess (alerts standing since the host's latest snapshot keep their
        `since`; `acks` mark the alerts they cover) and publish a raw snapshot; returns the
        assessed one."""
        self.note_baselines(raw)
        state = self._host(raw.host)
        assessed = assess(raw, limits, now, state.baselines, previous=state.latest, acks=acks)
        self.publish(assessed)
        return assessed
