"""Issue 24's end to end: `nastui status` on a box with OpenZFS 2.3's tools and no kernel
module (a fake `zpool`/`zfs` first on PATH printing the real 2.3.2 words, exit 1). With no
ZFS pool ever known it exits 0 and `status -v` says why zfs is off; with pools in the daemon's
history (written by the history's own `record`), or in /etc/zfs/zpool.cache, it exits 2
naming them."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from nastui.history.db import HISTORY_FILE, History
from nastui.model import HostSnapshot, Pool, PoolKind, PoolState, Vdev
from tests.cli.test_cli import nastui
from tests.cli.test_status_plugin import virtual_box
from tests.fakepools import FIXTURES, real_programs
from tests.zfswords import capture

LOST = (
    "ZFS module cannot be loaded: pools tank, backup not readable; "
    "a DKMS build after a kernel update?"
)


def zfs_tools_without_module(bin_dir: Path, release: str = "2.3.2") -> dict[str, str]:
    """`zpool` and `zfs` that print what `release` printed here without a module."""
    run = capture(release, "no-module")
    bin_dir.mkdir(parents=True)
    for tool in ("zpool", "zfs"):
        script = bin_dir / tool
        body = f"import sys\nsys.stderr.write({run.text!r})\nsys.exit({run.returncode})\n"
        script.write_text(f"#!{sys.executable}\n{body}")
        script.chmod(0o755)
    path = f"{bin_dir}{os.pathsep}{real_programs(bin_dir.parent / 'sysbin')}"
    return {"PATH": path, "NASTUI_ROOT_TOOLS": "path"}


def status(root: Path, config: Path, env: dict[str, str], *args: str) -> tuple[int, str]:
    result = nastui("--root", str(root), "--config", str(config), "status", *args, env=env)
    assert "Traceback" not in result.stderr, result.stderr
    return result.returncode, result.stdout


def zfs_pool(name: str) -> Pool:
    return Pool(name, PoolKind.ZFS, PoolState.ONLINE, Vdev(name, "root", PoolState.ONLINE))


def test_no_module_and_no_pool_history_is_ok_and_says_why(tmp_path: Path) -> None:
    root, config = virtual_box(tmp_path)
    env = {
        **zfs_tools_without_module(tmp_path / "bin"),
        "NASTUI_STATE_DIR": str(tmp_path / "state"),
    }
    code, out = status(root, config, env)
    assert code == 0, out
    assert out.startswith("NASTUI OK - vm: 2 drives, 0 pools, all OK | ")
    code, verbose = status(root, config, env, "-v")
    assert code == 0
    why = "zfs module not loaded, no ZFS pool known (zpool: The ZFS modules cannot be auto-loaded.)"
    assert f"zfs      off: {why}" in verbose.splitlines()
    data = json.loads(status(root, config, env, "--json")[1])
    assert {"name": "zfs", "state": "off", "detail": why} in data["collectors"]


def test_no_module_with_pools_in_the_history_is_critical_naming_them(tmp_path: Path) -> None:
    root, config = virtual_box(tmp_path)
    state = tmp_path / "state"
    history = History.open(state / HISTORY_FILE)
    history.record(HostSnapshot("vm", 1000.0, pools=(zfs_pool("tank"), zfs_pool("backup"))))
    history.record(HostSnapshot("other-box", 1000.0, pools=(zfs_pool("elsewhere"),)))
    history.close()
    env = {**zfs_tools_without_module(tmp_path / "bin"), "NASTUI_STATE_DIR": str(state)}
    code, out = status(root, config, env)
    assert code == 2, out
    assert out.startswith(
        f"NASTUI CRITICAL - vm: 1 critical: zfs: {LOST.replace('tank, backup', 'backup, tank')} | "
    )
    data = json.loads(status(root, config, env, "--json")[1])
    assert [(a["key"], a["health"]) for a in data["alerts"]] == [("collect:zfs", "CRITICAL")]


def test_no_module_with_pools_in_zpool_cache_is_critical(tmp_path: Path) -> None:
    root, config = virtual_box(tmp_path)
    cache = root / "etc/zfs/zpool.cache"
    cache.parent.mkdir(parents=True)
    cache.write_bytes((FIXTURES / "zpool/cache/zpool.cache__tank_backup__native").read_bytes())
    env = {
        **zfs_tools_without_module(tmp_path / "bin"),
        "NASTUI_STATE_DIR": str(tmp_path / "state"),
    }
    code, out = status(root, config, env)
    assert code == 2, out
    assert f"CRITICAL zfs: {LOST}" in out.splitlines()


def test_2_1_words_give_the_same_verdicts(tmp_path: Path) -> None:
    root, config = virtual_box(tmp_path)
    env = {
        **zfs_tools_without_module(tmp_path / "bin", "2.1.11"),
        "NASTUI_STATE_DIR": str(tmp_path / "state"),
    }
    assert status(root, config, env)[0] == 0
    config.write_text('[[pools.pool]]\nname = "tank"\ncapacity_warning = 85\n')
    code, out = status(root, config, env)
    assert code == 2, out
    assert "CRITICAL zfs: ZFS module not loaded: pools tank not readable; " in out
