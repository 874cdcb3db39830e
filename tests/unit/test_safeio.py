"""`nastui.safeio`: only regular files are read, and only up to the caller's bound."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from nastui.control.statefile import StateError, read_or_empty
from nastui.safeio import (
    UnsafeFileError,
    json_depth,
    loads_json,
    names,
    read_bounded,
    read_input_bounded,
    read_text_bounded,
    resolve,
    write_atomic,
    write_existing,
)


def test_a_regular_file_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "a"
    path.write_bytes(b"x" * 1000)
    assert read_bounded(path, 1000) == b"x" * 1000


def test_a_file_over_the_bound_is_refused_not_cut(tmp_path: Path) -> None:
    path = tmp_path / "a"
    path.write_bytes(b"x" * 1001)
    with pytest.raises(UnsafeFileError, match="larger than 1000 bytes"):
        read_bounded(path, 1000)


def test_a_sparse_gigabyte_is_refused_after_reading_only_the_bound(tmp_path: Path) -> None:
    path = tmp_path / "sparse"
    with path.open("wb") as handle:
        handle.truncate(1 << 30)
    with pytest.raises(UnsafeFileError, match="larger than 64 KiB"):
        read_bounded(path, 64 * 1024)


def test_a_fifo_is_refused_at_once(tmp_path: Path) -> None:
    path = tmp_path / "fifo"
    os.mkfifo(path)
    with pytest.raises(UnsafeFileError, match="is a FIFO, not a regular file"):
        read_bounded(path, 100)


def test_dev_zero_and_a_directory_are_refused(tmp_path: Path) -> None:
    with pytest.raises(UnsafeFileError, match="character device"):
        read_bounded("/dev/zero", 100)
    with pytest.raises(UnsafeFileError, match="a directory"):
        read_bounded(tmp_path, 100)


def test_a_link_is_refused_when_links_are_not_followed(tmp_path: Path) -> None:
    target = tmp_path / "t"
    target.write_text("hello")
    link = tmp_path / "l"
    link.symlink_to(target)
    assert read_text_bounded(link, 100) == "hello"
    with pytest.raises(UnsafeFileError, match="symbolic link"):
        read_bounded(link, 100, follow=False)


def test_proc_and_sysfs_files_read_although_they_report_odd_sizes() -> None:
    assert read_text_bounded("/proc/self/stat", 64 * 1024).startswith(str(os.getpid()))


def test_a_missing_file_is_an_ordinary_os_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_bounded(tmp_path / "missing", 100)


def test_resolve_follows_links_and_names_a_loop(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to("real")
    assert resolve(tmp_path / "link") == (tmp_path / "real").resolve()
    (tmp_path / "loop").symlink_to("loop")
    with pytest.raises(UnsafeFileError, match="loop is a symbolic link loop"):
        resolve(tmp_path / "loop")
    with pytest.raises(FileNotFoundError):
        resolve(tmp_path / "missing")


def test_a_loop_where_a_file_belongs_is_refused_as_one(tmp_path: Path) -> None:
    (tmp_path / "loop").symlink_to("loop")
    with pytest.raises(UnsafeFileError, match="symbolic link loop, not a regular file"):
        read_bounded(tmp_path / "loop", 100)


def test_names_are_sorted_and_bounded(tmp_path: Path) -> None:
    for name in ("b", "a", "c"):
        (tmp_path / name).touch()
    assert names(tmp_path) == ["a", "b", "c"]
    with pytest.raises(UnsafeFileError, match="holds more than 2 entries"):
        names(tmp_path, limit=2)
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(NotADirectoryError):
        names(tmp_path / "fifo")


def test_write_existing_writes_only_an_existing_regular_file(tmp_path: Path) -> None:
    target = tmp_path / "locate"
    target.write_text("0\n")
    write_existing(target, b"1\n")
    assert target.read_text() == "1\n"
    with pytest.raises(FileNotFoundError):
        write_existing(tmp_path / "new", b"1\n")
    assert not (tmp_path / "new").exists()
    os.mkfifo(tmp_path / "fifo")  # no reader: a plain open for writing would wait forever
    with pytest.raises(OSError, match=r"No such device or address"):
        write_existing(tmp_path / "fifo", b"1\n")
    (tmp_path / "link").symlink_to(target)
    with pytest.raises(UnsafeFileError, match="symbolic link"):
        write_existing(tmp_path / "link", b"0\n")
    assert target.read_text() == "1\n"


def test_write_atomic_replaces_the_whole_file_with_its_mode_and_leaves_no_temporary(
    tmp_path: Path,
) -> None:
    target = tmp_path / "state.json"
    target.write_text("old")
    write_atomic(target, "new", 0o640)
    assert target.read_text() == "new"
    assert target.stat().st_mode & 0o777 == 0o640
    write_atomic(target, "newer", durable=False)
    assert target.stat().st_mode & 0o777 == 0o600  # the temporary file's: never the umask's
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state.json"]


def test_write_atomic_that_cannot_rename_keeps_the_old_file_and_removes_its_temporary(
    tmp_path: Path,
) -> None:
    (tmp_path / "a-directory").mkdir()
    (tmp_path / "a-directory" / "inside").write_text("kept")
    with pytest.raises(OSError):
        write_atomic(tmp_path / "a-directory", "text")
    assert (tmp_path / "a-directory" / "inside").read_text() == "kept"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-directory"]


def test_write_atomic_in_place_only_where_no_file_can_be_created(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(**_: object) -> tuple[int, str]:
        raise PermissionError(13, "Permission denied")

    target = tmp_path / "config.toml"
    target.write_text("old")
    monkeypatch.setattr("tempfile.mkstemp", refuse)
    with pytest.raises(PermissionError):
        write_atomic(target, "new")
    assert target.read_text() == "old"
    write_atomic(target, "new", in_place=True)
    assert target.read_text() == "new"


def test_write_atomic_new_never_replaces_anything(tmp_path: Path) -> None:
    target = tmp_path / "run.json"
    write_atomic(target, "first", 0o640, new=True)
    assert target.read_text() == "first" and target.stat().st_mode & 0o777 == 0o640
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    for taken in (target, tmp_path / "dangling"):
        with pytest.raises(FileExistsError):
            write_atomic(taken, "second", new=True)
    assert target.read_text() == "first" and not (tmp_path / "nowhere").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dangling", "run.json"]


def test_write_atomic_new_without_hard_links_creates_the_file_exclusively(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_links(*_: object) -> None:
        raise OSError(1, "Operation not permitted")  # EPERM: FAT, some FUSE mounts

    monkeypatch.setattr("os.link", no_links)
    write_atomic(tmp_path / "run.json", "first", 0o640, new=True)
    assert (tmp_path / "run.json").read_text() == "first"
    assert (tmp_path / "run.json").stat().st_mode & 0o777 == 0o640
    with pytest.raises(FileExistsError):
        write_atomic(tmp_path / "run.json", "second", new=True)
    assert (tmp_path / "run.json").read_text() == "first"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.json"]


def test_read_input_bounded_takes_a_pipe_but_not_a_device(tmp_path: Path) -> None:
    read_end, write_end = os.pipe()
    os.write(write_end, b"report")
    os.close(write_end)
    try:
        assert read_input_bounded(f"/dev/fd/{read_end}", 100) == b"report"
    finally:
        os.close(read_end)
    with pytest.raises(UnsafeFileError, match="character device"):
        read_input_bounded("/dev/zero", 100)


def test_json_nested_past_the_bound_is_a_value_error_not_a_recursion_error() -> None:
    with pytest.raises(ValueError, match="nested 100000 levels deep"):
        loads_json("[" * 100_000)
    with pytest.raises(ValueError, match="nested 65 levels"):
        loads_json("[" * 65 + "]" * 65)
    assert json_depth("[" * 64 + "]" * 64) == 64 and loads_json("[" * 64 + "]" * 64)
    assert loads_json('{"a": "[[[[{{{{", "b": [1, {"c": "]]]"}]}') == {
        "a": "[[[[{{{{",
        "b": [1, {"c": "]]]"}],
    }
    assert json_depth('"\\"[[["') == 0 and json_depth("3") == 0 and json_depth("[{}]") == 2


def test_json_bytes_that_are_not_utf8_are_a_value_error() -> None:
    with pytest.raises(ValueError, match="not UTF-8"):
        loads_json(b'{"a": "\xff"}')
    assert loads_json(b'{"a": 1}') == {"a": 1}


def test_state_files_are_read_only_if_regular_and_bounded(tmp_path: Path) -> None:
    fifo = tmp_path / "acks.json"
    os.mkfifo(fifo)
    with pytest.raises(StateError, match="is a FIFO, not a regular file"):
        read_or_empty(fifo)
    bad = tmp_path / "swap.json"
    bad.write_bytes(b"\xff\xfe")
    with pytest.raises(StateError, match="not UTF-8"):
        read_or_empty(bad)
    assert read_or_empty(tmp_path / "none.json") == ""
    big = tmp_path / "big.json"
    big.write_bytes(b" " * 101)
    with pytest.raises(StateError, match="larger than 100 bytes"):
        read_or_empty(big, limit=100)


def test_package_text_reads_what_the_package_ships() -> None:
    from nastui.safeio import package_text

    assert "Screen" in package_text("nastui.ui", "app.tcss")
    assert package_text("nastui.sim", "data/drives.json").lstrip().startswith("{")
    with pytest.raises(FileNotFoundError):
        package_text("nastui.ui", "no-such.tcss")
