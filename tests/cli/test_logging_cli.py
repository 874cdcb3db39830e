"""`--verbose` / `--debug`: log lines on stderr, journald priorities under systemd."""

from __future__ import annotations

import io
import logging
import re
from pathlib import Path

import pytest

from nastui.cli.logsetup import LineFormatter, configure, level_for
from tests.cli.test_export_cli import nastui
from tests.smartbox import FakeBox, fake_box

RUN_LINE = re.compile(r"debug nastui\.collectors\.runner: \S.*: .+ in \d+\.\d\d s")


@pytest.fixture
def box(tmp_path: Path) -> FakeBox:
    """A fake box with a fake smartctl: commands run, none of this machine's."""
    return fake_box(tmp_path)


def test_debug_logs_every_command_run(box: FakeBox) -> None:
    done = nastui(*box.where, "status", "--debug", env=box.env)
    assert done.returncode in (0, 1, 2, 3), done.stderr
    lines = done.stderr.splitlines()
    assert any(RUN_LINE.fullmatch(line) for line in lines), lines[:5]
    assert done.stdout.startswith("NASTUI ")  # the output itself is unchanged


def test_quiet_by_default_and_journald_priorities(box: FakeBox) -> None:
    plain = nastui(*box.where, "status", env=box.env)
    assert "nastui.collectors.runner" not in plain.stderr
    journal = nastui(*box.where, "status", "--debug", env={**box.env, "JOURNAL_STREAM": "8:1234"})
    runs = [line for line in journal.stderr.splitlines() if "collectors.runner" in line]
    assert runs and all(line.startswith("<7>nastui.collectors.runner: ") for line in runs)


def test_verbose_is_info_debug_is_debug() -> None:
    assert level_for(False, False) is None
    assert level_for(True, False) == logging.INFO
    assert level_for(True, True) == logging.DEBUG


def test_formatter_and_handler() -> None:
    record = logging.LogRecord("nastui.x", logging.WARNING, "f", 1, "two\nlines", None, None)
    assert LineFormatter(journal=True).format(record) == "<4>nastui.x: two lines"
    assert LineFormatter(journal=False).format(record) == "warning nastui.x: two lines"
    assert configure(None, io.StringIO(), {}) is None
    out = io.StringIO()
    root = logging.getLogger()
    level = root.level
    handler = configure(logging.INFO, out, {})
    assert handler is not None
    try:
        logging.getLogger("nastui.test").info("hello %s", "there")
        logging.getLogger("nastui.test").debug("not shown")
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
    assert out.getvalue() == "info nastui.test: hello there\n"
