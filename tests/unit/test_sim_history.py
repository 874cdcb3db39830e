"""The demo's history: the scenario's simulator over the day before the session, recorded the
daemon's way. Same arguments, same rows; each session gets its own copy."""

from __future__ import annotations

import itertools
from pathlib import Path

from nastui.history.db import History
from nastui.model import Acknowledgement
from nastui.sim.clock import SIM_EPOCH
from nastui.sim.history import EARLIER_SCRUBS, SPAN_S, demo_history, record_day

Rows = tuple[object, ...]


def _everything(history: History, host: str) -> Rows:
    samples = tuple((m, history.samples(host, m, 0.0)) for m in history.metrics(host))
    drives = sorted({m.split(":", 1)[1] for m in history.metrics(host) if m.startswith("temp:")})
    counters = tuple(history.counter_changes(host, d) for d in drives)
    return samples, counters, history.scans(host, limit=100)


def _fresh(scenario: str, seed: int) -> History:
    history = History.open(Path(":memory:"))
    record_day(history, scenario, seed=seed, host="nas", end=SIM_EPOCH)
    return history


def test_same_scenario_and_seed_give_the_same_rows() -> None:
    first, second = _fresh("failing-drive", 3), _fresh("failing-drive", 3)
    assert _everything(first, "nas") == _everything(second, "nas")
    assert _everything(first, "nas") != _everything(_fresh("failing-drive", 4), "nas")


def test_the_day_before_the_session_is_recorded() -> None:
    history = _fresh("healthy-24-bay", 0)
    metrics = history.metrics("nas")
    assert sum(m.startswith("temp:") for m in metrics) == 24
    assert {"fan:fan-wall-1", "fan:rear-1"} <= set(metrics)
    for metric in metrics:
        times = [t for t, _ in history.samples("nas", metric, 0.0)]
        assert times[0] >= SIM_EPOCH - SPAN_S and times[-1] < SIM_EPOCH
        assert times == sorted(set(times))


def test_the_failing_drive_leaves_counter_changes() -> None:
    history = _fresh("failing-drive", 0)
    drives = {m.split(":", 1)[1] for m in history.metrics("nas") if m.startswith("temp:")}
    moved = {
        d: [c for c in history.counter_changes("nas", d) if c.previous is not None] for d in drives
    }
    failing = [d for d, changes in moved.items() if changes]
    assert len(failing) == 1
    pending = [c for c in moved[failing[0]] if c.counter == "attr:197"]
    assert pending and all(c.value > (c.previous or 0) for c in pending)


def test_past_scrubs_grow_a_little_longer_each_month() -> None:
    scans = _fresh("healthy-24-bay", 0).scans("nas")
    assert len(scans) == EARLIER_SCRUBS + 1
    durations = [(s.ended_at or 0.0) - (s.started_at or 0.0) for s in scans]  # newest first
    assert durations == sorted(durations, reverse=True)
    gaps = [(a.started_at or 0.0) - (b.started_at or 0.0) for a, b in itertools.pairwise(scans)]
    assert all(27 * 86400 < gap < 34 * 86400 for gap in gaps[1:])
    assert all(s.kind == "scrub" and s.errors == 0 for s in scans)


def test_each_demo_history_is_its_own_copy() -> None:
    one = demo_history("healthy-24-bay", seed=0, host="nas", end=SIM_EPOCH)
    two = demo_history("healthy-24-bay", seed=0, host="nas", end=SIM_EPOCH)
    assert (
        _everything(one, "nas")
        == _everything(two, "nas")
        == _everything(_fresh("healthy-24-bay", 0), "nas")
    )
    one.add_ack(Acknowledgement("temp:x", 40, SIM_EPOCH))
    assert [a.key for a in one.acks()] == ["temp:x"] and two.acks() == ()
    two.add_ack(Acknowledgement("temp:y", 40, SIM_EPOCH))  # the first built, the rest copied
    three = demo_history("healthy-24-bay", seed=0, host="nas", end=SIM_EPOCH)
    assert three.acks() == () and _everything(three, "nas") == _everything(one, "nas")
