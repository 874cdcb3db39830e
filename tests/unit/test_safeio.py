"""`nastui.safeio`: only regular files are read, and only up to the caller's bound."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from nastui.safeio import UnsafeFileError, read_bounded, read_text_bounded


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
