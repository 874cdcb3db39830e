"""The systemd units shipped in `systemd/`: each passes `systemd-analyze verify`, and the fan
daemon's keeps its fail-safe and its sandbox.

`verify` checks that every Exec*= binary exists, so each unit is verified as a copy whose
`.../bin/nastui` (`/usr/local/bin/nastui` where the README installs it) is this environment's
`nastui` script; nothing else in the copy changes (every other binary must exist as written),
and the file keeps its name (the unit name is checked too).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, require_tool

pytestmark = pytest.mark.integration

UNITS = sorted((REPO / "systemd").glob("*.service"))
# Sample: ExecStart=/usr/local/bin/nastui fand --config /etc/nastui/config.toml
NASTUI_BINARY = re.compile(r"/[^\s'\"]*/bin/nastui(?=[\s'\"]|$)", re.M)
FAND_MAX_EXPOSURE = 12  # systemd-analyze's scale is 0-100: 1.2 OK (the README's unit: 9.6)


def _local_copy(unit: Path, tmp_path: Path) -> Path:
    nastui = Path(sys.executable).parent / "nastui"
    assert nastui.is_file(), f"{nastui} missing: install the package into this environment"
    copy = tmp_path / unit.name
    copy.write_text(NASTUI_BINARY.sub(str(nastui), unit.read_text()))
    return copy


def test_the_units_are_there() -> None:
    assert "nastui-fand.service" in [u.name for u in UNITS]


@pytest.mark.parametrize("unit", UNITS, ids=[u.name for u in UNITS])
def test_unit_verifies(unit: Path, tmp_path: Path) -> None:
    analyze = require_tool("systemd-analyze", "systemd")
    assert NASTUI_BINARY.search(unit.read_text()), f"{unit.name} runs no nastui"
    result = subprocess.run(
        [analyze, "verify", str(_local_copy(unit, tmp_path))],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert unit.name not in result.stderr, result.stderr  # no warning about the unit


def _settings(unit: Path) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for line in unit.read_text().splitlines():
        if match := re.fullmatch(r"(?P<key>[A-Za-z]+)=(?P<value>.*)", line.strip()):
            found.setdefault(match["key"], []).append(match["value"])
    return found


def test_fand_unit_keeps_its_fail_safe() -> None:
    unit = _settings(REPO / "systemd/nastui-fand.service")
    assert unit["Type"] == ["notify"]
    assert unit["WatchdogSec"] == ["90s"]
    (stop_post,) = unit["ExecStopPost"]
    assert stop_post == (
        '/bin/sh -c \'test "$$SERVICE_RESULT" = success || exec /usr/local/bin/nastui fand '
        "--full-speed --config /etc/nastui/config.toml'"
    )
    assert unit["Restart"] == ["on-failure"]
    assert unit["ProtectKernelTunables"] == ["no"]  # /sys must stay writable for pwmN
    assert "char-ipmidev rw" in unit["DeviceAllow"]


def test_fand_unit_exposure(tmp_path: Path) -> None:
    analyze = require_tool("systemd-analyze", "systemd")
    copy = _local_copy(REPO / "systemd/nastui-fand.service", tmp_path)
    result = subprocess.run(
        [analyze, "security", "--offline=true", f"--threshold={FAND_MAX_EXPOSURE}", str(copy)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    summary = result.stdout.strip().splitlines()[-1]
    assert result.returncode == 0, summary
