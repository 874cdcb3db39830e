"""Errors at the boundary (issue 23 §1): a command that cannot open its source raises
`CommandExit` where it finds out and `run_headless` says it once, in one line, with the exit
code; no command passes an exit code back as a `Result | int`."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from nastui import exits
from nastui.cli.args import parse_args
from nastui.cli.main import run_headless
from tests.conftest import REPO

COMMANDS = [
    ["bays"],
    ["drives"],
    ["pools"],
    ["smart", "ack", "sda"],
    ["swap"],
    ["selftest", "status"],
    ["locate", "1"],
    ["scrub", "start", "tank"],
    ["export", "--prometheus", "-"],
    ["alert", "list"],
    ["alert", "test"],
    ["alert", "log"],
]


@pytest.mark.parametrize("argv", COMMANDS, ids=" ".join)
def test_a_bad_configuration_ends_every_command_in_one_line(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "config.toml"
    config.write_text("[poll]\nsmart_s = -1\n")
    out = io.StringIO()
    code = run_headless(parse_args(["--config", str(config), *argv]), out)
    err = capsys.readouterr().err
    assert code == exits.EX_CONFIG
    assert err == "nastui: config.toml:2: unknown key poll.smart_s (did you mean smart?)\n"
    assert out.getvalue() == ""


def test_status_stays_a_monitoring_plugin(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = io.StringIO()
    code = run_headless(parse_args(["--demo", "--scenario", "no-such-box", "status"]), out)
    assert code == exits.UNKNOWN
    assert out.getvalue().startswith("NASTUI UNKNOWN - cannot check: unknown scenario")
    assert capsys.readouterr().err.startswith("nastui: unknown scenario")


def test_no_command_returns_an_exit_code_as_a_value_to_test() -> None:
    union = re.compile(r"isinstance\((?:session|opened|config|standing|found), int\)|\| int:")
    found = [
        f"{path.name}:{n}"
        for path in sorted((REPO / "nastui").rglob("*.py"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if union.search(line)
    ]
    assert found == []
