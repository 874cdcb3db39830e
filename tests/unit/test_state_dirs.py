"""Directories nastui makes for its state, its history and its benchmark results have the
modes it chose, not the caller's umask (umask 000 would make them 0777)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from nastui.bench import store
from nastui.control.statefile import write_atomic
from nastui.entry import main
from nastui.history.db import History
from nastui.history.dirs import make_dir
from nastui.swap.io.store import SwapStore
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


@pytest.mark.usefixtures("open_umask")
def test_bench_result_files_are_0600_under_umask_000(tmp_path: Path) -> None:
    # before: 0666, readable and writable by every user
    json_path, csv_path = store.save(run("r1", 1000.0, 2e6), tmp_path / "bench")
    assert (mode(json_path), mode(csv_path)) == (0o600, 0o600)
    assert store.load(json_path).run_id == "r1"


@pytest.mark.usefixtures("open_umask")
def test_the_demos_state_directories_are_0700_under_umask_000(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # before: nastui/ and demo/ were 0777 (mkdir's parents take the umask)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("NASTUI_STATE_DIR", raising=False)
    assert main(["--scenario", "failing-drive", "smart", "ack", "10"]) == 0, capsys.readouterr()
    made = [tmp_path / "xdg/nastui", tmp_path / "xdg/nastui/demo"]
    made.append(tmp_path / "xdg/nastui/demo/failing-drive")
    assert [mode(p) for p in made] == [0o700, 0o700, 0o700]
    assert all(mode(p) & 0o022 == 0 for p in made[-1].iterdir())  # nothing writable by others


@pytest.mark.usefixtures("open_umask")
def test_config_init_writes_0644_in_a_0755_directory_under_umask_000(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # before: the configuration (which names the commands the daemons run) was 0666
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    monkeypatch.delenv("NASTUI_CONFIG", raising=False)
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    box = tmp_path / "box"  # an empty tree: the demo writes only into its own scratch state
    box.mkdir()
    assert main(["--root", str(box), "config", "init"]) == 0, capsys.readouterr()
    assert mode(tmp_path / "cfg") == 0o755
    assert mode(tmp_path / "cfg/nastui") == 0o755
    assert mode(tmp_path / "cfg/nastui/config.toml") == 0o644


@pytest.mark.usefixtures("open_umask")
def test_swap_files_are_0644_under_umask_000(tmp_path: Path) -> None:
    swaps = SwapStore(tmp_path / "state")
    with swaps.lock("starting a swap of 1"):
        swaps.save(None)
    names = ("swap.json", "swap.json.bak", "swap.lock")
    assert [mode(tmp_path / "state" / n) for n in names] == [0o644] * 3
    assert mode(tmp_path / "state") == 0o750
