"""`nastui daemon` as a real process when its own storage fails:

- its state directory a real tmpfs (`mount -t tmpfs -o size=...`), filled: every alert of the
  failing-drive scenario is sent once through a real exec hook writing outside the tmpfs, one
  storage alert is raised, and once the space is freed (by the hook, on the storage alert: no
  timing involved) the alert log and the alert book are caught up; a restart sends nothing, and
  neither does a restart while the disk is still full (the book's preallocated spare);
- /proc/diskstats with a line nobody expected (under `--root`): the daemon keeps cycling and
  says which line;
- a history file with damaged middle pages, and an empty one: one line saying so, the file moved
  aside or started anew, nothing sent twice.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from nastui.history.db import History
from tests.conftest import STRICT, require_tool
from tests.fakesys import build, wd_red_disks
from tests.unit.test_daemon_storage import corrupt_middle

pytestmark = pytest.mark.integration

PENDING = "drive:PK1331PLPX28B6:attr:197"
DEGRADED = "pool:cold:state"
STORAGE = "daemon:storage"
HOOK = """#!{python}
import json, os, sys
doc = json.load(sys.stdin)
with open(sys.argv[1], "a") as log:
    for n in doc["notices"]:
        log.write(f"{{doc['host']}} {{n['kind']}} {{n['key']}}\\n")
        if n["key"] == "daemon:storage" and len(sys.argv) > 2:
            os.unlink(sys.argv[2])  # the operator frees space on the storage alert
"""


def hook(tmp_path: Path, *args: Path) -> Path:
    """An exec-notifier configuration whose hook logs one line per notice to `notices.log`."""
    script = tmp_path / "hook.py"
    script.write_text(HOOK.format(python=sys.executable))
    script.chmod(0o755)
    argv = ", ".join(f'"{p}"' for p in (script, tmp_path / "notices.log", *args))
    config = tmp_path / "config.toml"
    config.write_text(f"[alerts]\nrepeat_interval = 86400\nexec = [{argv}]\n")
    return config


def notices(tmp_path: Path) -> Counter[str]:
    path = tmp_path / "notices.log"
    return Counter(path.read_text().splitlines() if path.exists() else [])


def daemon(state: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NASTUI_STATE_DIR": str(state)}
    return subprocess.run(
        [sys.executable, "-m", "nastui", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[Path]:
    """A 4 MiB tmpfs of its own, unmounted whatever happens."""
    require_tool("mount", "util-linux")
    if os.geteuid() != 0:
        (pytest.fail if STRICT else pytest.skip)("mounting a tmpfs needs root")
    mnt = tmp_path / "state"
    mnt.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mnt)], check=True)
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def fill(directory: Path) -> Path:
    """Fill the file system of `directory` to the last byte; the file that does it."""
    filler = directory / "fill"
    # Unbuffered: a buffered file keeps the bytes of the last partial write and raises ENOSPC
    # again on close, depending on how the free space happens to align with the chunk size.
    with filler.open("wb", buffering=0) as out:
        try:
            while True:
                out.write(b"\0" * 65536)
                out.flush()
        except OSError:
            pass
    return filler


def test_a_full_state_directory_sends_each_alert_once_and_catches_up(
    tmp_path: Path, tmpfs: Path
) -> None:
    config = str(hook(tmp_path))
    first = daemon(tmpfs, "daemon", "--once", "--scenario", "healthy-24-bay", "--config", config)
    assert first.returncode == 0, first.stderr
    (tmp_path / "notices.log").unlink(missing_ok=True)
    filler = fill(tmpfs)
    config = str(hook(tmp_path, filler))
    cycles = ("--cycles", "25", "--period", "0.2")
    full = daemon(tmpfs, "daemon", *cycles, "--scenario", "failing-drive", "--config", config)
    assert full.returncode == 0, full.stderr
    assert "Traceback" not in full.stderr + full.stdout
    sent = notices(tmp_path)
    assert all(count == 1 for count in sent.values()), sent  # nothing twice
    keys = {line.split()[2] for line in sent if line.split()[1] == "firing"}
    assert {PENDING, DEGRADED, STORAGE} <= keys, sent
    assert sum(1 for line in sent if line.endswith(STORAGE)) == 1
    assert not filler.exists()
    lines = full.stdout.splitlines()
    assert sum("storage: history" in line and "full" in line for line in lines) == 1
    assert "storage: history written again" in full.stdout
    history = History.open(tmpfs / "history.sqlite", readonly=True)
    logged = {row.key for row in history.notices(0)}
    history.close()
    assert {PENDING, DEGRADED, STORAGE} <= logged  # caught up
    assert PENDING in (tmpfs / "alert-book.json").read_text()
    again = daemon(tmpfs, "daemon", "--once", "--scenario", "failing-drive", "--config", config)
    assert again.returncode == 0, again.stderr
    assert notices(tmp_path) == sent  # a restart repeats nothing


def test_a_restart_on_a_still_full_disk_repeats_nothing(tmp_path: Path, tmpfs: Path) -> None:
    config = str(hook(tmp_path))
    first = daemon(tmpfs, "daemon", "--once", "--scenario", "healthy-24-bay", "--config", config)
    assert first.returncode == 0, first.stderr
    assert (tmpfs / "alert-book.spare").stat().st_size == 256 * 1024  # made while there is room
    (tmp_path / "notices.log").unlink(missing_ok=True)
    fill(tmpfs)
    args = ("daemon", "--cycles", "4", "--period", "0.2", "--scenario", "failing-drive")
    full = daemon(tmpfs, *args, "--config", config)
    assert full.returncode == 0, full.stderr
    assert "kept in alert-book.spare" in full.stdout
    sent = notices(tmp_path)
    assert {f"nano firing {PENDING}", f"nano firing {STORAGE}"} <= set(sent)
    again = daemon(tmpfs, *args, "--config", config)  # a reboot, the disk still full
    assert again.returncode == 0, again.stderr
    assert notices(tmp_path) == sent
    assert all(count == 1 for count in sent.values()), sent


def fake_root(tmp_path: Path) -> Path:
    disks = wd_red_disks(2)
    root = build(tmp_path / "root", disks)
    (root / "etc").mkdir()
    (root / "etc/hostname").write_text("fakebox\n")
    (root / "proc").mkdir()
    (root / "proc/diskstats").write_text(
        "   8       0 sda 70956 12642 4669682 55633 11724 62789 2183136 8265 0 11816 63899\n"
        "   8      16 sdb 1 2 3 4 5 6 7 8 9 10 11 0 0 0 0\n"  # 15 fields: psutil's ValueError
        "   8      32 sdc 1 2 3 4 5 6 7 8 9 10 11 0 -1\n"  # nobody's format: left out, said
    )
    return root


def test_an_unexpected_diskstats_line_is_reported_and_the_daemon_goes_on(tmp_path: Path) -> None:
    root = fake_root(tmp_path)
    result = daemon(
        tmp_path / "state",
        *("--root", str(root), "daemon", "--cycles", "4", "--period", "0.1", "--no-notify"),
    )
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr and "a cycle failed" not in result.stdout
    (line,) = [x for x in result.stdout.splitlines() if "not understood" in x]
    assert "sdc 1 2 3 4 5 6 7 8 9 10 11 0 -1" in line
    assert "daemon: stopped (exit 0)" in result.stdout


def test_a_damaged_history_is_moved_aside_and_nothing_is_sent_twice(tmp_path: Path) -> None:
    state = tmp_path / "state"
    config = str(hook(tmp_path))
    args = ("daemon", "--cycles", "3", "--period", "0.1", "--scenario", "failing-drive")
    first = daemon(state, *args, "--config", config)
    assert first.returncode == 0, first.stderr
    sent = notices(tmp_path)
    assert f"nano firing {PENDING}" in sent
    corrupt_middle(state / "history.sqlite")
    second = daemon(state, *args, "--config", config)
    assert second.returncode == 0, second.stderr
    said = [x for x in second.stdout.splitlines() if "damaged" in x and "moved aside" in x]
    assert len(said) == 1, second.stdout
    assert len(list(state.glob("history.sqlite.damaged-*"))) == 1
    assert notices(tmp_path) == sent
    (state / "history.sqlite").write_bytes(b"")
    third = daemon(state, *args, "--config", config)
    assert third.returncode == 0, third.stderr
    assert sum("was empty (0 bytes)" in x for x in third.stdout.splitlines()) == 1
    assert notices(tmp_path) == sent
