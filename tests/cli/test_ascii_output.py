"""Every command's text output, run as an operator on a serial console runs it (TERM=vt100),
and with --ascii in a UTF-8 terminal: not one byte outside ASCII, on stdout or stderr."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

SMART_REPORT = (
    REPO / "tests/fixtures/smartctl/linuxhw_enterprise/HDD__HGST__HUS726040ALE614__73832C26B317.txt"
)
# (scenario, command): every command with text output; `hot-bay` has alerts in degrees,
# `mixed` a missing drive and drives in no bay, `failing-drive` findings and a self-test LBA.
COMMANDS: tuple[tuple[str, str], ...] = (
    *(
        (scenario, command)
        for scenario in ("hot-bay", "mixed", "failing-drive")
        for command in ("status", "drives", "pools", "fans", "alert list", "bays --view temp")
    ),
    *(("failing-drive", f"bays --view {view}") for view in ("dev", "health", "serial", "pool")),
    ("hot-bay", "config check"),
    ("hot-bay", "config check config.example.toml"),
    ("hot-bay", f"smart explain {SMART_REPORT}"),
    ("hot-bay", "locate 3"),
    ("hot-bay", "locate 3 --off"),
    ("scrubbing", "scrub pause storage"),
    ("hot-bay", "fand --once --dry-run"),
    ("hot-bay", "daemon --once --no-notify --history {tmp}/history.sqlite"),
    ("hot-bay", "alert log --since 7d"),
    ("hot-bay", "alert test"),
    ("failing-drive", "smart ack 10"),
    ("hot-bay", "bench list"),
    ("hot-bay", "--help"),
    ("hot-bay", "bench --help"),
)


def run(argv: list[str], tmp: Path, term: str) -> subprocess.CompletedProcess[bytes]:
    env = {
        **os.environ,
        "TERM": term,
        "LANG": "C.UTF-8",
        "NASTUI_CONFIG": "/nonexistent",
        "NASTUI_STATE_DIR": str(tmp),
        "NASTUI_BENCH_DIR": str(tmp / "bench"),
    }
    env.pop("NO_COLOR", None)
    return subprocess.run(
        [sys.executable, "-m", "nastui", *argv],
        capture_output=True,
        env=env,
        cwd=REPO,
        timeout=120,
        check=False,
    )


def assert_ascii(result: subprocess.CompletedProcess[bytes], what: str) -> None:
    for name, data in (("stdout", result.stdout), ("stderr", result.stderr)):
        bad = [line for line in data.splitlines() if not line.isascii()]
        assert not bad, f"{what} {name}: {bad[:3]}"


# fand leaves its reader thread (a daemon thread by design) to the process's exit: a real one
CASES = [
    pytest.param(
        scenario,
        command,
        id=f"{scenario}-{command}",
        marks=[pytest.mark.subprocess] if command.startswith("fand") else [],
    )
    for scenario, command in COMMANDS
]


@pytest.mark.parametrize(("scenario", "command"), CASES)
def test_text_output_is_ascii_on_a_console(scenario: str, command: str, tmp_path: Path) -> None:
    argv = ["--scenario", scenario, *command.format(tmp=tmp_path).split()]
    result = run(argv, tmp_path, "vt100")
    assert result.returncode not in (64, 70), result.stderr.decode(errors="replace")
    assert result.stdout or result.stderr
    assert_ascii(result, command)


def test_bench_runs_shown_and_compared_in_ascii(tmp_path: Path) -> None:
    """bench show drew box lines, bullets and a times sign under TERM=vt100."""
    for profile in ("cdm", "randrw"):
        made = run(["--demo", "bench", "run", profile, "/tmp"], tmp_path, "xterm-256color")
        assert made.returncode == 0, made.stderr.decode(errors="replace")
    runs = sorted(p.stem for p in (tmp_path / "bench").glob("*.json"))
    assert len(runs) == 2
    for term, extra in (("vt100", []), ("xterm-256color", ["--ascii"])):
        for argv in (
            ["bench", "show", runs[0]],
            ["bench", "show", runs[1]],
            ["bench", "compare", *runs],
        ):
            result = run(["--demo", *extra, *argv], tmp_path, term)
            assert result.returncode == 0, result.stderr.decode(errors="replace")
            assert b"IOPS" in result.stdout or b"iops" in result.stdout.lower()
            assert_ascii(result, f"{term} {' '.join(argv)}")


def test_ascii_flag_in_a_utf8_terminal(tmp_path: Path) -> None:
    """--ascii holds on every path, also for text a command did not draw with the glyph set
    (config check's limits in degrees)."""
    argv = ["--demo", "config", "check", "config.example.toml"]
    result = run(["--ascii", *argv], tmp_path, "xterm")
    assert result.returncode == 0, result.stderr.decode(errors="replace")
    assert b" C, SSD " in result.stdout
    assert_ascii(result, "config check --ascii")
    unicode = run(argv, tmp_path, "xterm")
    assert " °C, SSD ".encode() in unicode.stdout  # without it, a UTF-8 terminal keeps the sign
