"""`nastui capture` of this machine, with a real btrfs RAID1 on loop devices mounted, replayed
anywhere by `--root BUNDLE` to the same `drives`, `bays` and `pools --json`; the filesystems
are not touched (checksums of the images before and after). Needs root, btrfs and loop."""

from __future__ import annotations

import hashlib
import json
import re
import tarfile
from pathlib import Path

import pytest

from tests.cli.test_capture_cli import VIEWS, views
from tests.cli.test_cli import nastui
from tests.integration.test_btrfs_loop import raid1_on_loops

pytestmark = pytest.mark.integration


def _files(mnt: Path) -> None:
    (mnt / "data").write_bytes(b"nastui" * 100_000)


def _sums(images: list[Path]) -> list[str]:
    return [hashlib.sha256(image.read_bytes()).hexdigest() for image in images]


def test_this_machine_with_btrfs_on_loops_replays_the_same(tmp_path: Path) -> None:
    with raid1_on_loops(tmp_path, "capture", _files) as (mnt, _images, loops, uuid):
        config = tmp_path / "config.toml"
        config.write_text("")
        env = {"NASTUI_STATE_DIR": str(tmp_path / "state")}
        bundle = tmp_path / "host.tar.gz"
        done = nastui("--config", str(config), "capture", "-o", str(bundle), env=env)
        assert done.returncode == 0, done.stdout + done.stderr
    recorded = views(bundle)
    ours = [p for p in recorded["pools"]["pools"] if p["uuid"] == uuid]
    assert len(ours) == 1 and ours[0]["kind"] == "btrfs" and ours[0]["mountpoint"] == str(mnt)
    leaves = ours[0]["vdevs"]["children"][0]["children"]
    assert sorted(leaf["name"] for leaf in leaves) == sorted(Path(loop).name for loop in loops[:2])
    for view in VIEWS:  # the loops are gone now: only the bundle knows them
        replayed = nastui("--root", str(bundle), view, "--json", env=env)
        assert replayed.returncode == 0, replayed.stderr
        text = re.sub(r"/tmp/nastui-replay-[^/\"]+/nastui-capture-[^/\"]+", "", replayed.stdout)
        assert json.loads(text) == recorded[view], view
    with tarfile.open(bundle) as tar:
        names = tar.getnames()
    assert any(n.endswith(f"/sys/fs/btrfs/{uuid}") for n in names)
    assert any(n.endswith("/proc/self") for n in names)


def test_capturing_writes_nothing_to_the_filesystems(tmp_path: Path) -> None:
    with raid1_on_loops(tmp_path, "untouched", _files) as (_, images, _loops, _uuid):
        before = _sums(images[:2])
        config = tmp_path / "config.toml"
        config.write_text("")
        env = {"NASTUI_STATE_DIR": str(tmp_path / "state")}
        done = nastui("--config", str(config), "capture", "-o", str(tmp_path / "b.tar.gz"), env=env)
        assert done.returncode == 0, done.stderr
        assert _sums(images[:2]) == before
