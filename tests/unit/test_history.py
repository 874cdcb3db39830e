"""The history database: what is kept of snapshots, across a reopen, and its errors."""

from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path

import pytest

from nastui.history.db import History, HistoryError
from nastui.history.record import KEEP_EVERY_S, counters
from nastui.model import (
    Acknowledgement,
    Alert,
    Drive,
    DriveIdentity,
    Health,
    HostSnapshot,
    Notice,
    NoticeKind,
    NvmeHealth,
    Pool,
    PoolKind,
    PoolState,
    ScanKind,
    ScanProgress,
    ScanState,
    SmartAttribute,
    Subject,
    Temperature,
    TempSource,
    Vdev,
)

T0 = 2_000_000_000.0


def drive(temp: float, at: float, pending: int = 0) -> Drive:
    return Drive(
        "sda",
        DriveIdentity(model="WDC WD40EFRX", serial="WD-1"),
        attributes=(
            SmartAttribute(9, "Power_On_Hours", 100, 100, 0, 1234),
            SmartAttribute(197, "Current_Pending_Sector", 200, 200, 0, pending),
        ),
        temperature=Temperature(temp, at, TempSource.SMART),
    )


def snap(temp: float, at: float, pending: int = 0, pools: tuple[Pool, ...] = ()) -> HostSnapshot:
    return HostSnapshot("nas", at, drives=(drive(temp, at, pending),), pools=pools)


def scrubbed(started: float, ended: float) -> Pool:
    scan = ScanProgress(ScanKind.SCRUB, ScanState.FINISHED, started, ended, errors=0)
    root = Vdev("tank", "root", PoolState.ONLINE)
    return Pool("tank", PoolKind.ZFS, PoolState.ONLINE, root, scan=scan, last_scrub=scan)


def test_temperatures_are_thinned_but_keep_their_shape(tmp_path: Path) -> None:
    history = History.open(tmp_path / "h.sqlite")
    temps = [35, 35.2, 35.4, 37, 37, 37]
    for i, t in enumerate(temps):
        history.record(snap(t, T0 + 30 * i))
    history.record(snap(37, T0 + KEEP_EVERY_S + 200))
    kept = history.samples("nas", "temp:WD-1", 0)
    assert kept == ((T0, 35.0), (T0 + 90, 37.0), (T0 + KEEP_EVERY_S + 200, 37.0))


def test_history_survives_a_reopen_and_does_not_repeat_itself(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    first = History.open(path)
    first.record(snap(35, T0, pending=0))
    first.record(snap(35, T0 + 30, pending=8))
    first.close()
    second = History.open(path)
    assert second.record(snap(35, T0 + 60, pending=8)) == 0  # nothing new
    assert second.samples("nas", "temp:WD-1", 0) == ((T0, 35.0),)
    changes = second.counter_changes("nas", "WD-1")
    assert [(c.counter, c.previous, c.value) for c in changes] == [
        ("attr:197", None, 0),
        ("attr:197", 0, 8),
    ]


def test_power_on_hours_are_not_a_watched_counter() -> None:
    assert "attr:9" not in counters(drive(35, T0))
    nvme = dataclasses.replace(drive(35, T0), attributes=(), nvme=NvmeHealth(media_errors=2))
    assert counters(nvme)["nvme:media_errors"] == ("media_errors", 2)


def test_each_finished_scrub_is_kept_once_with_its_duration(tmp_path: Path) -> None:
    history = History.open(tmp_path / "h.sqlite")
    for i in range(3):
        history.record(snap(35, T0 + i, pools=(scrubbed(T0 - 7200, T0 - 3600),)))
    history.record(snap(35, T0 + 99, pools=(scrubbed(T0 - 100, T0 - 50),)))
    scans = history.scans("nas", "tank")
    assert [(s.started_at, s.ended_at) for s in scans] == [
        (T0 - 100, T0 - 50),
        (T0 - 7200, T0 - 3600),
    ]


def test_acks_state_and_notices_round_trip(tmp_path: Path) -> None:
    history = History.open(tmp_path / "h.sqlite")
    ack = Acknowledgement("drive:WD-1:attr:197", 8, T0, "replacing Monday", T0 + 86400)
    history.add_ack(ack)
    assert history.acks() == (ack,)
    assert history.remove_ack(ack.key) and not history.remove_ack(ack.key)
    history.put_state("book", "{}")
    history.put_state("book", '{"v": 1}')
    assert history.state("book") == '{"v": 1}' and history.state("nothing") is None
    alert = Alert("pool:tank:state", Health.WARNING, Subject.POOL, "tank", "pool DEGRADED", T0)
    history.log_notices("nas", [Notice(NoticeKind.FIRING, alert, T0)], "email: sent")
    ((at, host, kind, health, key, _name, message, delivery),) = history.notices(0)
    assert (at, host, kind, health, key, message, delivery) == (
        T0,
        "nas",
        "firing",
        "WARNING",
        "pool:tank:state",
        "pool DEGRADED",
        "email: sent",
    )


def test_prune_forgets_old_rows(tmp_path: Path) -> None:
    history = History.open(tmp_path / "h.sqlite")
    history.record(snap(35, T0))
    history.record(snap(45, T0 + 10 * 86400))
    assert history.prune(T0 + 10 * 86400, keep_days=5) >= 1
    assert history.samples("nas", "temp:WD-1", 0) == ((T0 + 10 * 86400, 45.0),)


def test_a_reader_cannot_create_and_says_who_does(tmp_path: Path) -> None:
    with pytest.raises(HistoryError, match=r"not there yet: `nastui daemon` creates it"):
        History.open(tmp_path / "none.sqlite", readonly=True)


def test_a_reader_reads_what_the_writer_wrote(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    History.open(path).record(snap(35, T0))
    reader = History.open(path, readonly=True)
    assert reader.metrics("nas") == ("temp:WD-1",)
    with pytest.raises(HistoryError, match="cannot open or write"):
        reader.put_state("x", "y")


def test_garbage_and_foreign_databases_are_one_line_errors(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(HistoryError, match="not a nastui history database"):
        History.open(garbage)
    foreign = tmp_path / "foreign.sqlite"
    conn = sqlite3.connect(foreign)
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    conn.execute("INSERT INTO meta VALUES ('schema', '99')")
    conn.commit()
    with pytest.raises(HistoryError, match="schema 99, this nastui reads 1: move the file aside"):
        History.open(foreign)


def test_an_unwritable_directory_names_the_fix(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("")
    with pytest.raises(HistoryError, match="NASTUI_STATE_DIR"):
        History.open(blocked / "sub" / "h.sqlite")
