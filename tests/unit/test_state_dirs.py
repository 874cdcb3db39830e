"""Directories nastui makes for its state, its history and its benchmark results have the
modes it chose, not the caller's umask (umask 000 would make them 0777)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from nastui.bench import store
from nastui.control.statefile import write_atomic
from nastui.history.db import History
from nastui.history.dirs import make_dir
from tests.unit.test_bench_chart import run


@pytest.fixture
def open_umask() -> Iterator[None]:
    previous = os.umask(0)
    try:
        yield
    finally:
        os.umask(previous)


def mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


@pytest.mark.usefixtures("open_umask")
def test_history_directories_are_0750_under_umask_000(tmp_path: Path) -> None:
    path = tmp_path / "var/lib/nastui/history.sqlite"
    History.open(path).close()
    assert mode(tmp_path / "var") == 0o750
    assert mode(tmp_path / "var/lib") == 0o750
    assert mode(tmp_path / "var/lib/nastui") == 0o750
    assert mode(path) == 0o644


@pytest.mark.usefixtures("open_umask")
def test_state_files_directory_is_0750_and_the_file_keeps_its_mode(tmp_path: Path) -> None:
    path = tmp_path / "state/acks.json"
    write_atomic(path, "{}")
    assert mode(tmp_path / "state") == 0o750
    assert mode(path) == 0o600
    assert path.read_text() == "{}"


@pytest.mark.usefixtures("open_umask")
def test_bench_results_directory_is_0700(tmp_path: Path) -> None:
    directory = tmp_path / "state/bench"
    json_path, _ = store.save(run("r1", 1000.0, 2e6), directory)
    assert mode(directory) == 0o700
    assert json_path.parent == directory


def test_existing_directories_are_left_as_they_are(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o2775)  # an administrator's choice (setgid group directory)
    make_dir(shared / "nastui")
    assert shared.stat().st_mode & 0o7777 == 0o2775
    assert mode(shared / "nastui") == 0o750


def test_a_file_in_the_way_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    with pytest.raises(OSError):
        make_dir(tmp_path / "file/sub")
