"""`nastui export --prometheus`, run the way cron or a systemd timer runs it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from nastui.control.latest import write_latest
from nastui.model import HostSnapshot
from tests.unit.test_prometheus import parse


def nastui(*argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, "NO_COLOR": "1", **(env or {})}
    full_env.pop("NASTUI_CONFIG", None)
    return subprocess.run(
        [sys.executable, "-m", "nastui", *argv],
        capture_output=True,
        text=True,
        env=full_env,
        timeout=60,
        check=False,
    )


def test_demo_to_a_textfile(tmp_path: Path) -> None:
    target = tmp_path / "textfile" / "nastui.prom"
    target.parent.mkdir()
    done = nastui("export", "--scenario", "scrubbing", "--prometheus", str(target))
    assert done.returncode == 0, done.stderr
    assert done.stdout == "" and done.stderr == ""
    assert target.stat().st_mode & 0o777 == 0o644
    assert [p.name for p in target.parent.iterdir()] == ["nastui.prom"]
    parsed = parse(target.read_text())
    assert any(m == "nastui_pool_scan_progress_ratio" for m, _ in parsed.samples)
    assert any(m == "nastui_pool_capacity_limit_ratio" for m, _ in parsed.samples)


def test_a_missing_directory_is_an_error_not_a_mkdir(tmp_path: Path) -> None:
    target = tmp_path / "textfile_colector" / "nastui.prom"
    done = nastui("--demo", "export", "--prometheus", str(target))
    assert done.returncode == 73
    assert done.stderr == (
        f"nastui: {target.parent} does not exist: create it (node_exporter's "
        "--collector.textfile.directory), or fix the path\n"
    )
    assert not target.parent.exists()
    daemon = nastui("--demo", "daemon", "--once", "--no-notify", "--prometheus", str(target))
    assert daemon.returncode == 73
    assert daemon.stderr == done.stderr
    assert not target.parent.exists()


def test_stdout(tmp_path: Path) -> None:
    done = nastui("--demo", "export", "--prometheus", "-")
    assert done.returncode == 0, done.stderr
    assert ("nastui_drive_health", (("drive", "x"),)) not in parse(done.stdout).samples
    assert "nastui_drive_temperature_celsius{" in done.stdout


def test_from_state(tmp_path: Path) -> None:
    state = tmp_path / "latest.json"
    write_latest(state, HostSnapshot("far", 123.0))
    done = nastui("export", "--from-state", str(state), "--prometheus", "-")
    assert done.returncode == 0, done.stderr
    parsed = parse(done.stdout)
    assert parsed.samples[("nastui_snapshot_timestamp_seconds", (("host", "far"),))] == 123
    # the configuration's limits go with the saved snapshot too (built-in defaults here)
    assert "nastui_pool_capacity_limit_ratio" not in parsed.help  # no pools in it

    env = {"NASTUI_STATE_DIR": str(tmp_path)}
    default = nastui("export", "--prometheus", "-", "--from-state", env=env)
    assert default.returncode == 0 and default.stdout == done.stdout


def test_from_state_with_a_bad_configuration_is_one_line(tmp_path: Path) -> None:
    state = tmp_path / "latest.json"
    write_latest(state, HostSnapshot("far", 123.0))
    config = tmp_path / "config.toml"
    config.write_text("[chassis]\nrows = 'six'\n")
    done = nastui(
        "--config", str(config), "export", "--from-state", str(state), "--prometheus", "-"
    )
    assert done.returncode == 78
    assert done.stderr.startswith("nastui: config.toml:1: ") and done.stderr.count("\n") == 1


def test_missing_state_is_one_line(tmp_path: Path) -> None:
    done = nastui(
        "export", "--prometheus", "-", "--from-state", env={"NASTUI_STATE_DIR": str(tmp_path)}
    )
    assert done.returncode == 69
    assert done.stderr == (
        f"nastui: no snapshot at {tmp_path / 'latest.json'}: is `nastui daemon` running?\n"
    )


def test_unwritable_target_is_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    done = nastui("--demo", "export", "--prometheus", str(blocker / "nastui.prom"))
    assert done.returncode == 73
    assert done.stderr.startswith(f"nastui: cannot write {blocker / 'nastui.prom'}")
    assert done.stderr.count("\n") == 1
