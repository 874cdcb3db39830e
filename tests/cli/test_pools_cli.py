"""`nastui pools` and `nastui scrub` as commands: on the simulator, and on a fake tree
with fake `zpool`/`btrfs` on PATH (no ZFS here: `zpool` missing is one line, md still shows)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from nastui.collectors.btrfs import collector as btrfs
from nastui.collectors.zfs import collector as zfs
from tests.fakepools import FIXTURES, FakeTools, install, md_tree

MDSTAT = (FIXTURES / "mdstat/riemann/example-12").read_text()


def nastui(*argv: str, path: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("NASTUI_CONFIG", None)
    if path is not None:
        env["PATH"] = path
    return subprocess.run(
        [sys.executable, "-m", "nastui", *argv],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


@pytest.fixture
def tools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeTools:
    return install(tmp_path, monkeypatch)


def degraded_tank(tools: FakeTools) -> None:
    """No btrfs; a text-only `zpool` with riemann_degraded's pool "tank"."""
    tools.answer("btrfs", " ".join(btrfs.show_argv()[1:]), "")
    tools.answer("zpool", " ".join(zfs.status_json_argv()[1:]), "", "invalid option 'j'\n", 2)
    status = FIXTURES / "zpool/status/riemann_degraded.txt"
    tools.answer_file("zpool", " ".join(zfs.status_text_argv()[1:]), status)
    tools.answer("zpool", " ".join(zfs.list_argv()[1:]), "tank\t1\t1\t1\tDEGRADED\n")
    tools.answer("zfs", " ".join(zfs.space_argv()[1:]), "tank\t1\t1\n")


def test_pools_on_the_mixed_demo() -> None:
    result = nastui("pools", "--scenario", "mixed", "--ascii")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.startswith("tank zfs ONLINE, 52% of 21.1 TiB, frag 2%\n")
    assert "  scrub finished 12 days ago in 2h53m, 0 errors" in out
    assert "  schedule: zfs-scrub-monthly@tank.timer" in out
    assert "md0 mdraid ONLINE, 466 GiB" in out and "fast btrfs ONLINE" in out
    assert "  `-raid1" in out  # ASCII tree
    assert all(ord(c) < 128 for c in out)


def test_pools_json_during_a_scrub() -> None:
    result = nastui("pools", "--scenario", "scrubbing", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    (pool,) = data["pools"]
    scan = pool["scan"]
    assert (scan["kind"], scan["state"]) == ("scrub", "running")
    assert 35 < scan["percent"] < 45 and scan["eta_seconds"] > 0 and scan["rate_bytes_per_s"] > 0
    assert pool["last_scrub"]["state"] == "finished" and pool["last_scrub_age_s"] > 86400
    group = pool["vdevs"]["children"][0]
    assert group["name"] == "raidz3-0" and len(group["children"]) == 24
    leaf = group["children"][0]
    assert leaf["dev"] and leaf["bay"] is not None and leaf["read_errors"] == 0
    assert [e for e in data["errors"] if e["source"] == "zfs"] == []


def test_scrub_on_the_simulator() -> None:
    stopped = nastui("scrub", "stop", "storage", "--scenario", "scrubbing")
    assert (stopped.returncode, stopped.stdout) == (0, "storage: scrub stopped (simulated)\n")
    paused = nastui("scrub", "pause", "fast", "--scenario", "mixed")
    assert paused.returncode == 64
    assert paused.stderr == "fast: btrfs has no scrub pause (stop ends it)\n"
    unknown = nastui("scrub", "start", "nope", "--demo")
    assert unknown.returncode == 64
    assert unknown.stderr == "nastui: no pool 'nope' (pools: storage)\n"
    nothing = nastui("scrub", "stop", "storage", "--demo")
    assert nothing.returncode == 69 and "no scrub running" in nothing.stderr
    bad = nastui("scrub", "frobnicate", "storage", "--demo")
    assert bad.returncode == 64


def test_real_tree_without_zfs(tools: FakeTools, tmp_path: Path) -> None:
    root = md_tree(tmp_path / "root", MDSTAT, {"md3": {"sync_action": "check"}})
    tools.answer("btrfs", " ".join(btrfs.show_argv()[1:]), "")
    path = os.environ["PATH"]
    text = nastui("pools", "--root", str(root), path=path)
    assert text.returncode == 0, text.stderr
    assert "md3 mdraid ONLINE" in text.stdout and "check 19.8%" in text.stdout
    assert "zpool" not in text.stdout  # no zpool and no zfs module: ZFS is off, not an error
    data = json.loads(nastui("pools", "--root", str(root), "--json", path=path).stdout)
    assert [p["name"] for p in data["pools"]] == ["md3", "md2"]
    assert [e for e in data["errors"] if e["source"] == "zfs"] == []
    config = tmp_path / "zfs-on.toml"
    config.write_text("[collectors]\nzfs = true\n")  # switched on: a missing zpool is news
    forced = nastui("pools", "--root", str(root), "--config", str(config), path=path)
    assert forced.stdout.endswith(f"\nzfs: {zfs.NOT_INSTALLED}\n")


def test_scrub_through_fake_zpool_and_md_sysfs(tools: FakeTools, tmp_path: Path) -> None:
    root = md_tree(tmp_path / "root", MDSTAT, {"md2": {"sync_action": "idle"}})
    degraded_tank(tools)
    tools.answer("zpool", "scrub tank")
    path = os.environ["PATH"]
    started = nastui("scrub", "start", "tank", "--root", str(root), path=path)
    assert started.returncode == 0, started.stderr
    assert started.stdout == (
        "tank: scrub started (pyzfs (python3-pyzfs) is not installed; used zpool scrub)\n"
    )
    assert "zpool scrub tank" in tools.calls
    checked = nastui("scrub", "start", "/dev/md2", "--root", str(root), path=path)
    assert checked.stdout == "md2: check started (sync_action=check)\n"
    assert (root / "sys/block/md2/md/sync_action").read_text() == "check\n"


def test_overdue_scrub_warns_in_status(tools: FakeTools, tmp_path: Path) -> None:
    """riemann_degraded's last scrub finished in April 2022: far past the 35-day limit."""
    root = md_tree(tmp_path / "root", MDSTAT)
    degraded_tank(tools)
    result = nastui("status", "--root", str(root), "--json", path=os.environ["PATH"])
    alerts = {a["key"]: a for a in json.loads(result.stdout)["alerts"]}
    age = alerts["pool:tank:scrub-age"]
    assert age["health"] == "WARNING" and age["message"].endswith("(limit 35 days)")
    assert alerts["pool:tank:state"]["message"] == "pool DEGRADED"
    assert not any(key.startswith("pool:md") for key in alerts)  # md keeps no record: no alert


def test_remove_progress_notes_and_zpools_time_left(tools: FakeTools, tmp_path: Path) -> None:
    """A real `remove:` capture with a line zpool never prints slipped into its tree: the pool,
    its removal with zpool's own time left, and one line naming what was not understood."""
    root = md_tree(tmp_path / "root", MDSTAT)
    tools.answer("btrfs", " ".join(btrfs.show_argv()[1:]), "")
    tools.answer("zpool", " ".join(zfs.status_json_argv()[1:]), "", "invalid option 'j'\n", 2)
    lines = (FIXTURES / "zpool/public/blog_remove_mirror_running.txt").read_text().splitlines()
    lines.insert(11, "          sdz9")
    tools.answer("zpool", " ".join(zfs.status_text_argv()[1:]), "\n".join(lines) + "\n")
    tools.answer("zpool", " ".join(zfs.list_argv()[1:]), "main\t1\t1\t1\tONLINE\n")
    tools.answer("zfs", " ".join(zfs.space_argv()[1:]), "main\t1\t1\n")
    path = os.environ["PATH"]
    text = nastui("pools", "--root", str(root), path=path)
    assert text.returncode == 0, text.stderr
    assert "main zfs ONLINE" in text.stdout
    assert "  remove 0.6% of 940 GiB, 98.6 MiB/s, ETA 2h41m (zpool)\n" in text.stdout
    assert "  not understood: zpool status line 12: vdev without a state: 'sdz9'\n" in text.stdout
    data = json.loads(nastui("pools", "--root", str(root), "--json", path=path).stdout)
    (pool,) = [p for p in data["pools"] if p["name"] == "main"]
    change = pool["layout_change"]
    assert (change["kind"], change["state"]) == ("remove", "running")
    assert change["reported_eta_seconds"] == 9660
    assert pool["notes"] == ["zpool status line 12: vdev without a state: 'sdz9'"]
    assert pool["last_scrub"]["state"] == "finished"
