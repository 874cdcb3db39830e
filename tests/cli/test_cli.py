"""The headless CLI, run the way an operator or cron runs it (in process: tests/cli/conftest.py;
a closed pipe and the import probe in real processes)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakesys import build, wd_red_disks

CELL = r"[^|]+"


def nastui(
    *argv: str, env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, "NO_COLOR": "1", **(env or {})}
    full_env.pop("NASTUI_CONFIG", None)
    return subprocess.run(
        [sys.executable, "-m", "nastui", *argv],
        capture_output=True,
        text=True,
        env=full_env,
        cwd=cwd,
        timeout=60,
        check=False,
    )


def grid_rows(text: str, columns: int) -> list[list[str]]:
    pattern = re.compile(r"^\|" + rf"({CELL}\|)" * columns + "$")
    return [
        [c.strip() for c in line.strip("|").split("|")]
        for line in text.splitlines()
        if pattern.match(line)
    ]


def test_version() -> None:
    result = nastui("--version")
    assert result.returncode == 0
    assert result.stdout.startswith("nastui ")


def test_every_registry_entry_names_a_command_module() -> None:
    import importlib

    from nastui.cli.registry import COMMANDS

    assert len({entry.name for entry in COMMANDS}) == len(COMMANDS)
    for entry in COMMANDS:
        module = importlib.import_module(f"nastui.cli.{entry.module}")
        assert callable(module.add_arguments) and callable(module.run), entry.module


def test_a_command_run_imports_only_its_own_command_module() -> None:
    probe = (
        "import sys; sys.argv = ['nastui', 'snmp-agent', '--help']\n"
        "from nastui.entry import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.startswith('nastui.cli.cmd_')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip().splitlines()[-1] == "['nastui.cli.cmd_snmp_agent']"


def test_bays_temp_view_is_the_rv4324_six_by_four() -> None:
    result = nastui("bays", "--demo", "--view", "temp")
    assert result.returncode == 0, result.stderr
    rows = grid_rows(result.stdout, 4)
    assert len(rows) == 6
    for row in rows:
        for cell in row:
            assert re.fullmatch(r"\d{2}~?", cell), cell
    top, bottom = rows[0], rows[-1]
    assert sum(int(c.rstrip("~")) for c in top) > sum(int(c.rstrip("~")) for c in bottom)


def test_bays_dev_view_matches_the_source_nas_table() -> None:
    result = nastui("bays", "--demo", "--view", "dev")
    assert result.returncode == 0, result.stderr
    assert "| sdr | sds | sdt | sdq |" in result.stdout
    assert "| sda | sdd | sdh | sdg |" in result.stdout
    assert len(grid_rows(result.stdout, 4)) == 6


def test_global_options_work_before_the_command() -> None:
    before = nastui("--demo", "bays", "--view", "dev")
    after = nastui("bays", "--view", "dev", "--demo")
    assert before.returncode == after.returncode == 0
    assert before.stdout == after.stdout


def test_bays_json_has_one_entry_per_bay() -> None:
    result = nastui("bays", "--demo", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert (data["schema"], data["host"], data["chassis"]) == (1, "nano", "Ri-vier RV-4324")
    entries = data["bays"]
    assert len(entries) == 24
    assert [e["bay"] for e in entries] == list(range(24))
    assert {e["state"] for e in entries} == {"OK"}
    first = entries[0]["drive"]
    assert first["dev"] == "sdr"
    assert first["model"].startswith("HGST")
    assert first["pool"] == "storage" and first["vdev"] == "raidz3-0"
    assert isinstance(first["temperature_c"], int | float)


@pytest.mark.parametrize("view", ["dev", "temp", "health", "serial", "pool"])
def test_ascii_output_is_pure_ascii(view: str) -> None:
    result = nastui("bays", "--demo", "--ascii", "--view", view)
    assert result.returncode == 0
    assert result.stdout.isascii()


def test_vt100_chooses_ascii_by_itself() -> None:
    result = nastui("bays", "--demo", env={"TERM": "vt100", "LANG": "en_US.UTF-8"})
    assert result.stdout.isascii()
    assert "|" in result.stdout


def test_mixed_box_shows_missing_bay_and_drives_outside_bays() -> None:
    result = nastui("bays", "--scenario", "mixed", "--view", "health")
    assert result.returncode == 0, result.stderr
    assert "MISSING" in result.stdout
    assert "not in a bay:" in result.stdout
    assert result.stdout.count("nvme") >= 2
    assert len(grid_rows(result.stdout, 4)) == 3


def test_102_bay_top_loader() -> None:
    result = nastui("bays", "--scenario", "datacenter-102", "--view", "temp")
    assert result.returncode == 0, result.stderr
    assert "top" in result.stdout
    assert len(grid_rows(result.stdout, 14)) == 8
    data = json.loads(nastui("bays", "--scenario", "datacenter-102", "--json").stdout)
    entries = data["bays"]
    assert len(entries) == 102
    assert sum(1 for e in entries if e["drive"] is None) == 1


def test_status_healthy_exits_ok() -> None:
    result = nastui("status", "--demo", "--scenario", "healthy-24-bay")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("NASTUI OK - nano:")
    assert "storage zfs ONLINE" in result.stdout


def test_status_failing_drive_names_drive_bay_and_reason() -> None:
    result = nastui("status", "--scenario", "failing-drive")
    assert result.returncode in (1, 2), result.stdout
    first_line = result.stdout.splitlines()[0]
    assert first_line.startswith(("NASTUI WARNING", "NASTUI CRITICAL"))
    match = re.search(r"bay (\d+) (sd[a-z]+)", first_line)
    assert match, first_line
    reasons = ("Current_Pending_Sector", "Reallocated_Sector_Ct", "self-test")
    assert any(reason in first_line for reason in reasons), first_line
    data = json.loads(nastui("status", "--scenario", "failing-drive", "--json").stdout)
    assert data["exit_code"] == result.returncode
    sick = [d for d in data["drives"] if d["health"] != "OK"]
    assert len(sick) == 1
    assert sick[0]["bay"] == int(match.group(1)) and sick[0]["dev"] == match.group(2)
    assert any("Pending" in r for r in sick[0]["reasons"])


@pytest.mark.parametrize(
    ("scenario", "codes"),
    [
        ("scrubbing", {0}),
        ("resilvering", {1, 2}),
        ("hot-bay", {2}),
        ("sleeping", {0}),
        ("mixed", {2}),
        ("datacenter-102", {0}),
    ],
)
def test_status_exit_codes_per_scenario(scenario: str, codes: set[int]) -> None:
    result = nastui("status", "--scenario", scenario)
    assert result.returncode in codes, result.stdout + result.stderr
    assert result.stdout.startswith("NASTUI ")
    assert len(result.stdout.splitlines()) <= 24  # one screen


def test_unknown_scenario_is_a_usage_error() -> None:
    result = nastui("bays", "--scenario", "nope")
    assert result.returncode == 64
    assert "healthy-24-bay" in result.stderr
    assert "Traceback" not in result.stderr


def test_status_usage_errors_are_unknown_with_a_plugin_line() -> None:
    """A monitoring system runs `status`: whatever is wrong with the command line, it gets
    UNKNOWN (3) and a status line saying what, never 64 (out of the plugin range)."""
    for argv in (["--bogus"], ["--scenario", "nope"], ["--json", "--colors", "mauve"]):
        result = nastui("status", *argv)
        assert result.returncode == 3, (argv, result.stdout, result.stderr)
        first = result.stdout.splitlines()[0]
        assert first.startswith("NASTUI UNKNOWN - "), first
        assert "|" not in first
        assert "Traceback" not in result.stderr
    unknown = nastui("--scenario", "nope", "status")
    assert "unknown scenario" in unknown.stdout.splitlines()[0]


def test_bad_option_is_a_usage_error_not_critical() -> None:
    result = nastui("bays", "--view", "sideways")
    assert result.returncode == 64
    assert "Traceback" not in result.stderr


def test_wrong_type_in_config_is_one_line_exit_78(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('# my NAS\n\n[chassis]\nname = "Box"\nrows = "six"\ncolumns = 4\n')
    for argv, code in (
        (["--config", str(config), "status", "--demo"], 3),  # a plugin: UNKNOWN, with a line
        (["config", "check", str(config)], 78),
    ):
        result = nastui(*argv)
        assert result.returncode == code, result.stderr
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1
        assert "config.toml:5:" in lines[0]
        assert "chassis.rows" in lines[0]
        assert "six" in lines[0]
        assert "Traceback" not in result.stderr


def test_config_check_accepts_the_example(tmp_path: Path) -> None:
    example = Path(__file__).resolve().parents[2] / "config.example.toml"
    result = nastui("--demo", "config", "check", str(example))  # against the demo box
    assert result.returncode == 0, result.stderr
    assert "OK" in result.stdout
    assert "Ri-vier RV-4324" in result.stdout


def test_missing_config_file_is_a_config_error(tmp_path: Path) -> None:
    result = nastui("--config", str(tmp_path / "nope.toml"), "bays")
    assert result.returncode == 78
    assert "nope.toml" in result.stderr
    status = nastui("--config", str(tmp_path / "nope.toml"), "status")
    assert status.returncode == 3
    assert status.stdout.startswith("NASTUI UNKNOWN - cannot check: ")
    assert "nope.toml" in status.stdout


def fake_box(tmp_path: Path) -> tuple[Path, Path]:
    disks = wd_red_disks(3)
    root = build(tmp_path / "root", disks, extra_block=("loop0",))
    (root / "etc").mkdir()
    (root / "etc/hostname").write_text("fakebox\n")
    config = tmp_path / "config.toml"
    config.write_text(
        '[chassis]\npreset = "desktop-4"\n'
        '[[chassis.bay]]\nbay = 0\nserial = "WD-WCC4E0000002"\n'
        '[[chassis.bay]]\nbay = 1\nby_id = "ata-WDC_WD40EFRX-68WT0N0_WD-WCC4E0000000"\n'
        '[[chassis.bay]]\nbay = 3\nserial = "WD-GONE"\n'
    )
    return root, config


def test_root_reads_a_fake_tree(tmp_path: Path) -> None:
    root, config = fake_box(tmp_path)
    result = nastui("--root", str(root), "--config", str(config), "bays", "--view", "dev")
    assert result.returncode == 0, result.stderr
    assert "fakebox" in result.stdout
    assert grid_rows(result.stdout, 4) == [["sdc", "sda", "-", "MISSING"]]
    assert "sdb" in result.stdout  # not in a bay, but listed
    temps = nastui(
        "bays", "--view", "temp", "--config", str(config), env={"NASTUI_ROOT": str(root)}
    )
    assert grid_rows(temps.stdout, 4) == [["32", "30", "-", "MISSING"]]


def test_status_on_a_fake_tree_says_what_is_missing(tmp_path: Path) -> None:
    root, config = fake_box(tmp_path)
    result = nastui("--root", str(root), "--config", str(config), "status")
    assert result.returncode == 2  # bay 3's configured drive is missing
    assert "bay 3" in result.stdout
    assert "SMART" in result.stdout  # says plainly that SMART is not read


def test_output_into_a_closed_pipe_is_quiet() -> None:
    proc = subprocess.run(
        f"{sys.executable} -m nastui bays --scenario datacenter-102 --view serial | head -1",
        shell=True,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0
    assert "Traceback" not in proc.stderr
    assert "Error" not in proc.stderr


def test_interface_without_a_terminal_says_so() -> None:
    result = nastui("--demo")
    assert result.returncode == 64
    assert "needs a terminal" in result.stderr
    assert "Traceback" not in result.stderr
