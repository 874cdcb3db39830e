"""The snapshot codec: lossless round trips of every simulated and assessed snapshot, and one-line
errors for garbage."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nastui.config.presets import PRESETS
from nastui.core import codec
from nastui.core.assess import assess
from nastui.model import (
    Acknowledgement,
    Alert,
    CollectorError,
    Health,
    HostSnapshot,
    Subject,
    Thresholds,
    Ups,
    UpsStatus,
)
from nastui.sim import SCENARIOS, SimBackend
from nastui.sim.clock import FakeClock


def sim_snapshot(name: str, seed: int = 0, seconds: float = 0.0) -> HostSnapshot:
    clock = FakeClock()
    backend = SimBackend(name, seed=seed, clock=clock)
    clock.advance(seconds)
    return backend.snapshot()


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_every_scenario_round_trips_raw_and_assessed(name: str) -> None:
    raw = sim_snapshot(name)
    assessed = assess(raw, Thresholds(), raw.taken_at)
    for snapshot in (raw, assessed):
        text = codec.dumps(snapshot)
        assert codec.loads(text) == snapshot
        assert codec.snapshot_from_json(codec.snapshot_to_json(snapshot)) == snapshot
        assert json.loads(text)["version"] == 1


@settings(max_examples=10, deadline=None)
@given(
    name=st.sampled_from(sorted(SCENARIOS)),
    seed=st.integers(0, 1000),
    seconds=st.floats(0, 30 * 86400, allow_nan=False),
)
def test_round_trip_property(name: str, seed: int, seconds: float) -> None:
    raw = sim_snapshot(name, seed, seconds)
    assessed = assess(raw, Thresholds(), raw.taken_at)
    assert codec.loads(codec.dumps(assessed)) == assessed


def test_fields_the_simulator_leaves_empty_round_trip() -> None:
    snapshot = HostSnapshot(
        host="x",
        taken_at=1.5,
        ups=(Ups("ups1", UpsStatus.ON_BATTERY, charge_percent=80.0, battery_replace=True),),
        alerts=(Alert("k", Health.CRITICAL, Subject.UPS, "ups1", "on battery", 1.0, value=3),),
        errors=(CollectorError("zfs", "zpool not found: install zfsutils-linux"),),
    )
    assert codec.loads(codec.dumps(snapshot, indent=2)) == snapshot


def test_generic_containers_round_trip() -> None:
    """frozensets (FaceLayout.holes), dicts with enum keys (Thresholds), Optional floats."""
    layout = next(p for p in PRESETS.values() if any(f.holes for f in p.faces))
    assert codec.decode(type(layout), codec.encode(layout)) == layout
    limits = Thresholds()
    assert codec.decode(Thresholds, json.loads(json.dumps(codec.encode(limits)))) == limits
    ack = Acknowledgement("attr:197", None, 1.0, expires_at=None)
    assert codec.decode(Acknowledgement, codec.encode(ack)) == ack


def test_equal_snapshots_give_equal_text() -> None:
    assert codec.dumps(sim_snapshot("mixed")) == codec.dumps(sim_snapshot("mixed"))


def test_missing_optional_fields_take_their_defaults() -> None:
    data = {"version": 1, "snapshot": {"host": "old", "taken_at": 5}}
    assert codec.snapshot_from_json(data) == HostSnapshot("old", 5.0)


GOOD = codec.snapshot_to_json(HostSnapshot("h", 1.0, errors=(CollectorError("a", "b"),)))


def broken(path: list[Any], value: Any) -> dict[str, Any]:
    data = json.loads(json.dumps(GOOD))
    node = data
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value
    return data  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        ([], "not a nastui snapshot"),
        ({"version": 2, "snapshot": {}}, "format version 2"),
        (broken(["snapshot", "taken_at"], "noon"), "snapshot.taken_at: expected float"),
        (broken(["snapshot", "host"], None), "snapshot.host: expected str"),
        (broken(["snapshot", "errors"], {}), "snapshot.errors: expected a list"),
        (broken(["snapshot", "errors", 0], {"source": "a"}), "lacks 'message'"),
        (broken(["snapshot", "drives"], [{"dev": "sda", "identity": {"transport": "x"}}]), "x"),
        (broken(["snapshot", "taken_at"], True), "expected float"),
    ],
)
def test_garbage_raises_value_error_naming_the_source(data: Any, needle: str) -> None:
    with pytest.raises(ValueError, match=r"^latest\.json: ") as info:
        codec.snapshot_from_json(data, "latest.json")
    assert needle in str(info.value)
    assert "\n" not in str(info.value)


def test_not_json_names_the_source() -> None:
    with pytest.raises(ValueError, match=r"^/x/latest.json: not JSON"):
        codec.loads("{nope", "/x/latest.json")
    with pytest.raises(ValueError, match="not JSON"):
        codec.loads(b"\xff\xfe", "f")
