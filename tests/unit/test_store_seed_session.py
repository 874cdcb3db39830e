"""`open_session` and the history file: the demo gets its simulated day, a real machine the
daemon's file read-only (or nothing, which is normal), and the store starts with the last day
of every metric of the local host."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from nastui.history.db import HISTORY_FILE, History, HistoryError
from nastui.model import Acknowledgement, HostSnapshot, Sensor
from nastui.session import HISTORY_SEED_S, Source, open_session
from nastui.sim.clock import SIM_EPOCH


@pytest.fixture
def machine(tmp_path: Path) -> tuple[Source, dict[str, str], Path]:
    config = tmp_path / "config.toml"
    config.write_text('hostname = "nas1"\n')
    state = tmp_path / "state"
    return Source(root=tmp_path, config=config), {"NASTUI_STATE_DIR": str(state)}, state


def test_the_demo_starts_with_a_day_of_history_in_the_store() -> None:
    session = open_session(Source(demo=True, scenario="hot-bay"), {})
    history = session.history
    assert history is not None
    host = session.backend.host
    metrics = history.metrics(host)
    assert any(m.startswith("temp:") for m in metrics) and "fan:fan-wall-2" in metrics
    for metric in metrics:
        seeded = session.store.history(host, metric)
        assert seeded, metric
        assert seeded[0][0] >= SIM_EPOCH - HISTORY_SEED_S and seeded[-1][0] < SIM_EPOCH
    assert history.scans(host)  # the last scrub and the made-up earlier ones


def test_a_real_machine_without_a_history_file_has_none(
    machine: tuple[Source, dict[str, str], Path],
) -> None:
    source, env, state = machine
    session = open_session(source, env)
    assert session.history is None
    assert session.store.history("nas1", "sensor:cpu") == ()
    assert not state.exists()  # nothing created by looking


def test_a_real_machine_reads_the_daemon_file_and_seeds_the_store(
    machine: tuple[Source, dict[str, str], Path],
) -> None:
    source, env, state = machine
    writer = History.open(state / HISTORY_FILE)
    now = time.time()
    for age, value in ((2 * HISTORY_SEED_S, 30.0), (7200.0, 41.0), (3600.0, 45.0)):
        writer.record(HostSnapshot("nas1", now - age, sensors=(Sensor("cpu", value),)))
    writer.record(HostSnapshot("other", now - 60, sensors=(Sensor("cpu", 99.0),)))
    writer.close()
    session = open_session(source, env)
    assert session.history is not None
    values = [v for _, v in session.store.history("nas1", "sensor:cpu")]
    assert values == [41.0, 45.0]  # the last day only, of the local host only
    with pytest.raises(HistoryError):
        session.history.add_ack(Acknowledgement("x", 1, now))  # opened read-only


def test_a_broken_history_file_is_no_history(
    machine: tuple[Source, dict[str, str], Path],
) -> None:
    source, env, state = machine
    state.mkdir()
    (state / HISTORY_FILE).write_bytes(b"not a database, just bytes" * 100)
    session = open_session(source, env)
    assert session.history is None
