"""Files nastui reads a secret or a snapshot from are read like every other file someone may
have replaced: a FIFO or /dev/zero where the password, URL or latest.json belongs is refused
in one line at once, never waited on or read without end."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from nastui.collectors.latest import LatestError, read_latest
from nastui.config.alerting import EmailConfig
from nastui.notify import EmailNotifier, NotifyError


def _fifo(tmp_path: Path) -> Path:
    path = tmp_path / "secret"
    os.mkfifo(path)
    return path


def test_a_fifo_as_the_smtp_password_file_is_refused_at_once(tmp_path: Path) -> None:
    config = EmailConfig(
        to=("ops@example.org",),
        sender="nas@example.org",
        host="127.0.0.1",
        username="nas",
        password_file=_fifo(tmp_path),
    )
    with pytest.raises(NotifyError, match="is a FIFO, not a regular file"):
        EmailNotifier(config, {})._password()


def test_dev_zero_as_the_smtp_password_file_is_refused(tmp_path: Path) -> None:
    link = tmp_path / "secret"
    link.symlink_to("/dev/zero")
    config = EmailConfig(
        to=("ops@example.org",), sender="n@e.org", host="h", username="n", password_file=link
    )
    with pytest.raises(NotifyError, match="character device"):
        EmailNotifier(config, {})._password()


def test_a_fifo_as_latest_json_is_refused_at_once(tmp_path: Path) -> None:
    with pytest.raises(LatestError, match="is a FIFO, not a regular file"):
        read_latest(_fifo(tmp_path))
