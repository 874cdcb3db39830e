"""The demo behaves like one box across commands: what one command does (a locate LED, a scrub
started and paused) the next command sees, and everything is stamped on the wall clock. Each
test runs the CLI, command after command, with its own demo state directory."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from tests.cli.test_cli import nastui


def env_for(tmp_path: Path) -> dict[str, str]:
    return {"NASTUI_STATE_DIR": str(tmp_path / "demo-state")}


def bay(env: dict[str, str], number: int, *scenario: str) -> dict[str, Any]:
    shown = nastui("bays", "--json", *(scenario or ("--demo",)), env=env)
    assert shown.returncode == 0, shown.stderr
    data = json.loads(shown.stdout)
    bays = data["bays"] if isinstance(data, dict) else data
    found: dict[str, Any] = next(b for b in bays if b["bay"] == number)
    return found


def pool(env: dict[str, str], name: str, scenario: str) -> dict[str, Any]:
    shown = nastui("pools", "--json", "--scenario", scenario, env=env)
    assert shown.returncode == 0, shown.stderr
    data = json.loads(shown.stdout)
    pools = data["pools"] if isinstance(data, dict) else data
    found: dict[str, Any] = next(p for p in pools if p["name"] == name)
    return found


def test_locate_lights_the_bay_for_later_commands_until_switched_off(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    assert bay(env, 10)["led"] == "off"
    lit = nastui("locate", "10", "--demo", env=env)
    assert lit.returncode == 0, lit.stderr
    assert lit.stdout == "bay 10: locate LED on (simulated) [sim]\n"
    assert bay(env, 10)["led"] == "locate"
    assert bay(env, 11)["led"] == "off"
    off = nastui("locate", "10", "--off", "--demo", env=env)
    assert off.returncode == 0, off.stderr
    assert bay(env, 10)["led"] == "off"


def test_the_text_bays_table_marks_the_lit_bay_as_the_interface_does(tmp_path: Path) -> None:
    """The README audit: the interface shows `*` on a bay whose locate LED is lit, the text
    table showed nothing. ASCII, in every view, with its key; nothing once it is out."""
    env = env_for(tmp_path)
    dev = bay(env, 10)["drive"]["dev"]
    assert nastui("locate", "10", "--demo", env=env).returncode == 0
    for view in ("dev", "health", "temp"):
        table = nastui("bays", "--demo", "--ascii", "--view", view, env=env).stdout
        assert table.isascii() and table.count("*") == 2, table  # the bay and the key
        assert table.splitlines()[-1].endswith("*=locate LED lit")
    shown = nastui("bays", "--demo", env=env).stdout
    assert f" {dev}* |" in shown and f" {dev} " not in shown
    assert nastui("locate", "10", "--off", "--demo", env=env).returncode == 0
    assert "*" not in nastui("bays", "--demo", env=env).stdout


def test_a_scrub_started_by_one_command_is_paused_and_stopped_by_the_next(tmp_path: Path) -> None:
    env, scenario = env_for(tmp_path), ("--scenario", "mixed")
    idle = nastui("scrub", "pause", "tank", *scenario, env=env)
    assert idle.returncode == 69 and "there is no scrub running" in idle.stderr
    started = nastui("scrub", "start", "tank", *scenario, env=env)
    assert started.returncode == 0 and started.stdout == "tank: scrub started (simulated)\n"
    running = pool(env, "tank", "mixed")["scan"]
    assert running["kind"] == "scrub" and running["state"] == "running"
    paused = nastui("scrub", "pause", "tank", *scenario, env=env)
    assert paused.returncode == 0, paused.stderr
    assert paused.stdout == "tank: scrub paused (simulated)\n"
    assert pool(env, "tank", "mixed")["scan"]["state"] == "paused"
    resumed = nastui("scrub", "start", "tank", *scenario, env=env)
    assert resumed.stdout == "tank: scrub resumed (simulated)\n"
    stopped = nastui("scrub", "stop", "tank", *scenario, env=env)
    assert stopped.returncode == 0 and stopped.stdout == "tank: scrub stopped (simulated)\n"
    assert pool(env, "tank", "mixed")["scan"]["state"] == "canceled"
    kept = json.loads((tmp_path / "demo-state" / "demo.json").read_text(encoding="utf-8"))
    assert [s["action"] for s in kept["scrubs"]] == ["start", "pause", "start", "stop"]


def test_the_demo_runs_on_the_wall_clock(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    before = time.time()
    status = nastui("status", "--json", "--demo", env=env)
    data = json.loads(status.stdout)
    taken = data["taken_at"] if "taken_at" in data else data["hosts"][0]["taken_at"]
    assert before - 2 <= taken <= time.time() + 1
    ran = nastui("daemon", "--once", "--no-notify", "--scenario", "failing-drive", env=env)
    assert ran.returncode == 0, ran.stderr
    log = nastui("alert", "log", "--since", "7d", "--scenario", "failing-drive", env=env)
    assert log.returncode == 0, log.stderr
    assert "firing WARNING" in log.stdout and "just now" in log.stdout
