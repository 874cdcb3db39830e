"""`nastui daemon` started on state files that cannot be used: it watches all the same.

Each case is a real daemon process on a fake box (`tests.daemonrig`) whose disk is hot from
the start, so a working daemon sends its temperature alert. Before: a history that was a
directory, an immutable file or a link to /dev/zero exited 73 before the first cycle (nothing
watched, nothing sent); an alert book of 100,000 `[` exited 70 (RecursionError) on every
start, and one that was a FIFO hung the start.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.conftest import STRICT, require_tool
from tests.daemonrig import HOT_C, TEMP_KEY, DaemonRig, Told

pytestmark = pytest.mark.integration
STORAGE = "daemon:storage"


@pytest.fixture
def rig(tmp_path: Path) -> DaemonRig:
    rig = DaemonRig(tmp_path)
    rig.state.mkdir(mode=0o750)
    rig.set_temp(HOT_C)
    return rig


def cycles(rig: DaemonRig) -> subprocess.CompletedProcess[str]:
    done = rig.run("--cycles", "4", timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    return done


def storage(told: list[Told]) -> list[Told]:
    return [t for t in told if t.key == STORAGE]


@pytest.fixture
def immutable(rig: DaemonRig) -> Iterator[Path]:
    require_tool("chattr", "e2fsprogs")
    if os.geteuid() != 0:
        (pytest.fail if STRICT else pytest.skip)("chattr +i needs root")
    path = rig.state / "history.sqlite"
    path.write_bytes(b"")
    subprocess.run(["chattr", "+i", str(path)], check=True)
    try:
        yield path
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=False)


def _directory(path: Path) -> None:
    path.mkdir()


def _zero(path: Path) -> None:
    path.symlink_to("/dev/zero")


def _fifo(path: Path) -> None:
    os.mkfifo(path)


@pytest.mark.parametrize("make", [_directory, _zero, _fifo], ids=["directory", "zero", "fifo"])
def test_an_unusable_history_is_watching_without_history(
    rig: DaemonRig, make: Callable[[Path], None]
) -> None:
    make(rig.state / "history.sqlite")
    done = cycles(rig)
    told = rig.told()
    assert TEMP_KEY in {t.key for t in told}, done.stdout
    (alert,) = storage(told)
    assert (alert.kind, alert.health) == ("firing", "critical")
    assert "cannot be used: watching without history" in done.stdout
    assert (rig.state / "alert-book.json").exists()  # the book is still kept beside it
    again = cycles(rig)  # a restart: nothing sent twice
    assert rig.told() == told, again.stdout


def test_an_immutable_history_is_watching_without_history(rig: DaemonRig, immutable: Path) -> None:
    done = cycles(rig)
    told = rig.told()
    assert TEMP_KEY in {t.key for t in told}, done.stdout
    (alert,) = storage(told)
    assert alert.health == "critical"


def test_a_history_that_comes_back_clears_the_alert(rig: DaemonRig) -> None:
    (rig.state / "history.sqlite").mkdir()
    proc = rig.start()
    try:
        assert rig.wait_for(lambda: bool(storage(rig.told())), 60), rig.output()
        (rig.state / "history.sqlite").rmdir()
        assert rig.wait_for((rig.state / "history.sqlite").is_file, 60)
        time.sleep(8)  # cycles on the file (the log reaches the file only at exit)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert "storage: history written again" in rig.output(), rig.output()[-1500:]


def _brackets(path: Path) -> None:
    path.write_text("[" * 100_000)


def _book_fifo(path: Path) -> None:
    os.mkfifo(path)


def _book_dir(path: Path) -> None:
    path.mkdir()


def _not_utf8(path: Path) -> None:
    path.write_bytes(b'{"version": 1, "alerts": [\xff\xfe]}')


def _sparse(path: Path) -> None:
    with path.open("wb") as handle:
        handle.truncate(1 << 30)


@pytest.mark.parametrize(
    "make",
    [_brackets, _book_fifo, _book_dir, _not_utf8, _sparse],
    ids=["nested", "fifo", "directory", "not-utf8", "sparse-1g"],
)
def test_a_bad_alert_book_is_moved_aside_and_said_once(
    rig: DaemonRig, make: Callable[[Path], None]
) -> None:
    first = cycles(rig)  # a book and its copy in the history
    sent = rig.told()
    assert TEMP_KEY in {t.key for t in sent}, first.stdout
    book = rig.state / "alert-book.json"
    book.unlink()
    make(book)
    done = cycles(rig)
    said = [line for line in done.stdout.splitlines() if "moved aside" in line]
    assert len(said) == 1 and "alert book" in said[0], done.stdout
    assert len(list(rig.state.glob("alert-book.json.damaged-*"))) == 1
    assert book.is_file()  # a good one written again
    assert rig.told() == sent  # the history's copy: nothing sent again


def test_an_acks_file_that_is_a_fifo_does_not_hang_the_cycle(rig: DaemonRig) -> None:
    os.mkfifo(rig.state / "acks.json")
    done = cycles(rig)
    assert TEMP_KEY in {t.key for t in rig.told()}, done.stdout
