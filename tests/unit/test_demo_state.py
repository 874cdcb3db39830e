"""The demo's remembered state (`demo.json`), the session anchor that puts simulator time on the
wall clock, and the simulator applying both: LEDs and scrubs across backends, timestamps moved
by the offset while the simulated state stays the one of (scenario, seed, sim time)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from nastui.control.demostate import FileDemoStore, open_demo
from nastui.core.demostate import SESSION_S, DemoState, ScrubStep, begin, decode, encode
from nastui.core.timeshift import shift_snapshot
from nastui.model import LedState, ScanState, ScrubAction
from nastui.sim import SimBackend
from nastui.sim.clock import SIM_EPOCH, FakeClock

WALL = 1_795_600_000.0
OFFSET = WALL - SIM_EPOCH


def test_encode_decode_round_trip() -> None:
    state = DemoState(WALL, {10: WALL + 5}, (ScrubStep("tank", "start", WALL + 9),))
    assert decode(encode(state)) == state


@given(st.text(max_size=200))
def test_decode_never_raises(text: str) -> None:
    assert isinstance(decode(text), DemoState)


def test_decode_keeps_what_it_understands() -> None:
    text = json.dumps(
        {
            "anchor": "soon",
            "leds": [{"bay": 3, "since": 1.0}, {"bay": "x", "since": 2.0}, 7],
            "scrubs": [{"pool": "tank", "action": "rm -rf", "at": 1.0}, {"pool": "t", "at": 2}],
        }
    )
    assert decode(text) == DemoState(None, {3: 1.0}, ())


def test_a_session_lasts_until_it_is_old_then_starts_afresh() -> None:
    state = DemoState(WALL, {3: WALL}, (ScrubStep("tank", "start", WALL),))
    assert begin(state, WALL + 60) is state
    fresh = begin(state, WALL + SESSION_S + 0.5)
    assert fresh == DemoState(anchor=float(int(WALL + SESSION_S + 0.5)))
    assert begin(DemoState(), WALL + 0.7).anchor == WALL
    assert begin(state, WALL - 10).anchor == WALL - 10  # a clock set back: a new session


def test_open_demo_saves_a_new_anchor_once(tmp_path: Path) -> None:
    store = FileDemoStore(tmp_path / "demo")
    first = open_demo(store, WALL)
    assert first.anchor == WALL and store.load() == first
    assert open_demo(store, WALL + 100).anchor == WALL
    assert (tmp_path / "demo" / "demo.json").stat().st_mode & 0o777 == 0o600


def sim(store: FileDemoStore | None, wall: float) -> SimBackend:
    return SimBackend("mixed", clock=FakeClock(wall), offset=OFFSET, store=store)


def test_leds_and_scrubs_reach_another_backend_through_the_store(tmp_path: Path) -> None:
    store = FileDemoStore(tmp_path)
    one = sim(store, WALL + 10)
    one.set_locate(3, True)
    assert one.scrub("tank", ScrubAction.START) == (True, "tank: scrub started (simulated)")
    two = sim(store, WALL + 70)
    snap = two.snapshot()
    assert snap.slot(3) is not None and snap.slot(3).led is LedState.LOCATE  # type: ignore[union-attr]
    scan = next(p for p in snap.pools if p.name == "tank").scan
    assert scan is not None and scan.state is ScanState.RUNNING
    assert scan.started_at == WALL + 10  # wall clock, as it was started
    assert two.scrub("tank", ScrubAction.PAUSE)[0]
    three = sim(store, WALL + 500)
    paused = next(p for p in three.snapshot().pools if p.name == "tank").scan
    assert paused is not None and paused.state is ScanState.PAUSED
    assert paused.bytes_done == scan.bytes_done  # frozen at the pause (60 s in, both times)
    three.set_locate(3, False)
    assert sim(store, WALL + 501).snapshot().slot(3).led is LedState.OFF  # type: ignore[union-attr]


def test_the_offset_moves_timestamps_not_the_simulated_state() -> None:
    plain = SimBackend("scrubbing", clock=FakeClock(SIM_EPOCH + 30)).snapshot()
    moved = SimBackend("scrubbing", clock=FakeClock(WALL + 30), offset=OFFSET).snapshot()
    assert moved == shift_snapshot(plain, OFFSET)
    assert moved.taken_at == WALL + 30
    scan = moved.pools[0].scan
    assert scan is not None and scan.started_at is not None and scan.started_at > WALL - 86400
    assert dataclasses.replace(moved, taken_at=plain.taken_at).drives != plain.drives
    assert shift_snapshot(plain, 0.0) is plain


def test_a_demo_session_with_a_state_directory_runs_on_the_wall_clock(tmp_path: Path) -> None:
    import asyncio
    import time

    from nastui.session import Source, open_session

    env = {"NASTUI_STATE_DIR": str(tmp_path)}
    before = time.time()
    session = open_session(Source(demo=True, live=True, history=True, fleet=True), env)
    snapshot = asyncio.run(session.poll())
    assert before - 1 <= snapshot.taken_at <= time.time() + 1
    assert session.history is not None
    host = session.backend.host
    temps = [m for m in session.history.metrics(host) if m.startswith("temp")]
    samples = session.history.samples(host, temps[0], before - 2 * 86400)
    assert samples and before - 86400 - 700 <= samples[0][0] and samples[-1][0] <= before
    assert session.fleet is not None
    polled = asyncio.run(session.fleet.poll())
    assert all(
        h.polled_at is not None and before - 120 <= h.polled_at <= before + 5 for h in polled
    )
    again = open_session(Source(demo=True), env)  # a later command: the same session's anchor
    assert isinstance(again.backend, SimBackend) and isinstance(session.backend, SimBackend)
    assert again.backend.offset == session.backend.offset


def test_without_a_state_directory_the_demo_keeps_sim_time() -> None:
    from nastui.session import Source, open_session

    session = open_session(Source(demo=True), {})
    assert session.clock.now() == SIM_EPOCH and session.state_dir is None
