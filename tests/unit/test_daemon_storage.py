"""The daemon's cycle when its own storage fails (`nastui.daemon.keeper`): a full history file
(SQLite's real SQLITE_FULL, from `PRAGMA max_page_count`), an empty one, a damaged one. Alerts
are sent once each, one storage alert is raised, and what was not written is written later."""

from __future__ import annotations

import io
import sqlite3
from pathlib import Path

import pytest

from nastui.core.ack import ack_alert
from nastui.daemon.bookfile import BOOK_FILE
from nastui.daemon.keeper import STORAGE_KEY, Keeper
from nastui.daemon.monitor import CYCLE_KEY, Monitor
from nastui.daemonlog import Log
from nastui.model import HostSnapshot
from tests.unit.test_monitor import Recorder, monitor

PENDING = "drive:PK1331PLPX28B6:attr:197"


def fill(daemon: Monitor) -> None:
    """Make the history file full: it may not grow by a page (SQLITE_FULL on the next write)."""
    conn = daemon.history._conn
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {pages}")


def free(daemon: Monitor) -> None:
    daemon.history._conn.execute("PRAGMA max_page_count = 1073741823")


def sent(notifier: Recorder) -> list[tuple[str, str]]:
    return [(n.kind.value, n.alert.key) for _, batch in notifier.batches for n in batch]


def log_of(daemon: Monitor) -> str:
    out = daemon.log._out
    assert isinstance(out, io.StringIO)
    return out.getvalue()


def asides(directory: Path) -> list[Path]:
    return list(directory.glob("history.sqlite.damaged-*"))


def corrupt_middle(path: Path) -> None:
    """Overwrite the middle third of the file's pages (not page 1: the header stays valid)."""
    data = bytearray(path.read_bytes())
    size = 4096
    pages = len(data) // size
    assert pages >= 6
    for page in range(pages // 3, 2 * pages // 3):
        data[page * size : (page + 1) * size] = b"\xa5" * size
    path.write_bytes(bytes(data))


async def test_a_full_history_sends_each_alert_once_and_one_storage_alert(tmp_path: Path) -> None:
    notifier = Recorder()
    daemon = monitor(tmp_path, notifier)
    fill(daemon)
    for _ in range(6):
        await daemon.step()
    notices = sent(notifier)
    assert ("firing", PENDING) in notices
    assert len(notices) == len(set(notices)), notices  # nothing twice
    assert notices.count(("firing", STORAGE_KEY)) == 1
    log = log_of(daemon)
    assert log.count("storage: history") == 1  # said once, not every cycle
    assert "Traceback" not in log


async def test_space_back_catches_up_the_alert_log_and_the_book(tmp_path: Path) -> None:
    notifier = Recorder()
    daemon = monitor(tmp_path, notifier)
    fill(daemon)
    for _ in range(3):
        await daemon.step()
    assert daemon.history.state("latest:nano") is None  # could not be written
    free(daemon)
    await daemon.step()
    logged = {row.key for row in daemon.history.notices(0)}
    assert {PENDING, STORAGE_KEY} <= logged  # every batch sent while full, written now
    assert daemon.history.state("alert-book") is not None
    assert PENDING in (tmp_path / BOOK_FILE).read_text()
    assert "storage: history written again" in log_of(daemon)
    assert sent(notifier).count(("firing", PENDING)) == 1


async def test_the_book_beside_the_history_survives_an_empty_history(tmp_path: Path) -> None:
    first = Recorder()
    await monitor(tmp_path, first).step()
    assert ("firing", PENDING) in sent(first)
    (tmp_path / "history.sqlite").write_bytes(b"")  # what a crash on a full disk can leave
    second = Recorder()
    again = monitor(tmp_path, second)
    await again.step()
    assert second.batches == []  # nothing sent twice
    assert log_of(again).count("was empty (0 bytes)") == 1
    third = monitor(tmp_path, Recorder())
    assert "was empty" not in log_of(third)  # said once: the file is not empty any more


async def test_an_empty_history_without_a_book_says_alerts_go_out_again(tmp_path: Path) -> None:
    (tmp_path / "history.sqlite").write_bytes(b"")
    daemon = monitor(tmp_path, Recorder())
    assert "no alert-book.json beside it: standing alerts are sent again" in log_of(daemon)


async def test_a_damaged_history_is_moved_aside_keeping_acks_and_book(tmp_path: Path) -> None:
    notifier = Recorder()
    daemon = monitor(tmp_path, notifier)
    for _ in range(3):
        await daemon.step()
    snapshot = await daemon.session.poll()
    (hot,) = [a for a in snapshot.alerts if a.key.endswith(":attr:5")]
    daemon.history.add_ack(ack_alert(hot, daemon.session.clock.now()))
    daemon.history.close()
    path = tmp_path / "history.sqlite"
    corrupt_middle(path)
    again = Recorder()
    restarted = monitor(tmp_path, again)
    await restarted.step()
    log = log_of(restarted)
    (line,) = [x for x in log.splitlines() if "moved aside" in x]
    assert "damaged" in line and "\n" not in line
    (aside,) = asides(tmp_path)
    assert aside.stat().st_size > 0
    assert restarted.history.damage() is None
    assert ("firing", PENDING) not in sent(again)  # the book came from alert-book.json
    assert restarted.history.path == path


def test_a_history_that_is_not_sqlite_is_replaced_at_open(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite"
    path.write_bytes(b"not a database at all " * 400)
    out = io.StringIO()
    keeper = Keeper.open(path, Log(out))
    assert keeper.history.damage() is None
    assert "moved aside" in out.getvalue()
    assert asides(tmp_path)
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT value FROM meta").fetchone() == ("1",)


async def test_a_failing_cycle_is_said_and_sent_once_and_the_daemon_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    notifier = Recorder()
    daemon = monitor(tmp_path, notifier)
    poll = daemon.session.poll

    async def broken() -> HostSnapshot:
        raise ValueError("not sure how to interpret line '8 0 sda'")

    monkeypatch.setattr(daemon.session, "poll", broken)
    for _ in range(3):
        await daemon.cycle()
    assert sent(notifier) == [("firing", CYCLE_KEY)]
    (batch,) = [b for _, b in notifier.batches]
    assert "ValueError: not sure how to interpret line" in batch[0].alert.message
    assert log_of(daemon).count("a cycle failed") == 1
    monkeypatch.setattr(daemon.session, "poll", poll)
    await daemon.cycle()
    assert "daemon: cycles work again" in log_of(daemon)
    assert ("firing", PENDING) in sent(notifier)


def test_a_history_back_before_the_first_write_is_said_written_again(tmp_path: Path) -> None:
    """The file came back (a directory in its place removed) between the daemon's start and
    its first write: the first cycle opens it, and says so, as when a cycle had failed on it
    (the integration test lost this line 2 runs in 3 when it removed the directory early)."""
    path = tmp_path / "history.sqlite"
    path.mkdir()
    out = io.StringIO()
    keeper = Keeper.open(path, Log(out))
    assert [a.key for a in keeper.alerts(1.0)] == [STORAGE_KEY]  # known before any write
    path.rmdir()
    keeper.begin()
    keeper.keep([HostSnapshot("nano", 2.0)], None)
    keeper.end(2.0)
    assert path.is_file() and keeper.alerts(3.0) == []
    assert "storage: history written again" in out.getvalue()
    keeper.begin()
    keeper.keep([HostSnapshot("nano", 4.0)], None)
    keeper.end(4.0)
    assert out.getvalue().count("written again") == 1
