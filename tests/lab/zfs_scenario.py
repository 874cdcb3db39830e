"""Scenario 1, ZFS raidz2 on the six hot-swap bays, as steps shared by the OpenZFS 2.3 guest
(`make lab`) and the 2.1 guest (`make lab-full`).

Each step changes the pool with the real tools (or through nastui), then reads one moment:
`zpool status` before and after `nastui pools --json` in one guest script; the assertions
compare nastui's JSON with what zpool said (tests/lab/zfs_truth.py reads that on its own).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nastui.collectors.zfs.json_status import parse_zpool_status_json
from nastui.collectors.zfs.text import parse_zpool_status_report
from nastui.model import Vdev
from tests.lab import zfs_truth
from tests.lab.guest import Guest, Moment

POOL = "tank"
BAYS = tuple(range(7, 13))
MIB = 1 << 20
THROTTLE = 16 * 1024  # bytes/s read per disk: its 12 MiB take 12 minutes to scrub
LABELS = 4 * MIB  # the two front labels and the boot block; two more labels in the last 512 KiB


@dataclass(frozen=True)
class ZfsBox:
    """The pool as built: the OpenZFS version and each bay's vdev name."""

    version: tuple[int, int]
    vdevs: dict[int, str]  # bay -> vdev name as zpool prints it

    @property
    def has_json(self) -> bool:
        return self.version >= (2, 3)

    def truth_commands(self) -> dict[str, str]:
        commands = {"text": f"zpool status -p -v {POOL}"}
        if self.has_json:
            commands["json"] = f"zpool status -j --json-int -v {POOL}"
        return commands

    def truths(self, outputs: dict[str, str]) -> list[zfs_truth.PoolTruth]:
        found = [zfs_truth.from_text(outputs["text"])]
        if "json" in outputs:
            found.append(zfs_truth.from_json(outputs["json"], POOL))
        return found


def build(lab: Guest) -> ZfsBox:
    """raidz2 over bays 7-12 by their by-id names, 48 MiB of random data in 6 files."""
    lab.refill()
    result = lab.sh(
        f"""
        set -e
        lab_reset
        ids=""
        for bay in {" ".join(map(str, BAYS))}; do ids="$ids $(bay_id $bay)"; done
        zpool create -f -o cachefile=none -O compression=off -O atime=off {POOL} raidz2 $ids
        for i in $(seq 1 6); do
            dd if=/dev/urandom of=/{POOL}/f$i bs=1M count=8 status=none
        done
        zpool export {POOL} && zpool import -d /dev/disk/by-id {POOL}  # nothing left in the ARC
        # A scrub's progress counts reads issued, not done: with the default 16 MiB in flight
        # per disk it reads 99.9 % at once on throttled bays. 128 KiB keeps the two together.
        echo 131072 >/sys/module/zfs/parameters/zfs_scan_vdev_limit
        zpool version | head -1
        for bay in {" ".join(map(str, BAYS))}; do echo "bay $bay $(basename $(bay_id $bay))"; done
        """,
        timeout=900,
    )
    version = re.search(r"zfs-(\d+)\.(\d+)", result.out)
    assert version, result
    vdevs = {int(b): name for b, name in re.findall(r"^bay (\d+) (\S+)$", result.out, re.M)}
    return ZfsBox((int(version.group(1)), int(version.group(2))), vdevs)


def nastui_pool(moment: Moment) -> dict[str, Any]:
    """The pool's entry in `nastui pools --json`, with nastui's exit status checked."""
    assert moment.nastui.rc == 0, moment.nastui
    data = moment.nastui.json()
    assert not data["errors"], data["errors"]
    pools: dict[str, dict[str, Any]] = {p["name"]: p for p in data["pools"]}
    assert POOL in pools, data
    return pools[POOL]


def nastui_leaves(vdev: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every leaf of nastui's vdev tree by name."""
    if not vdev["children"]:
        return {vdev["name"]: vdev} if vdev["kind"] not in ("root",) else {}
    found: dict[str, dict[str, Any]] = {}
    for child in vdev["children"]:
        found.update(nastui_leaves(child))
    return found


def assert_tree(box: ZfsBox, pool: dict[str, Any], truth: zfs_truth.PoolTruth) -> None:
    """Pool state, each leaf's state and counters as zpool says, and each leaf in its bay."""
    assert pool["state"] == truth.state
    leaves = nastui_leaves(pool["vdevs"])
    assert set(leaves) == set(truth.leaves), (leaves.keys(), truth.leaves.keys())
    for name, leaf in truth.leaves.items():
        mine = leaves[name]
        seen = (mine["state"], mine["read_errors"], mine["write_errors"], mine["checksum_errors"])
        assert seen == (leaf.state, leaf.read, leaf.write, leaf.cksum), (name, seen, leaf)
    for bay, name in box.vdevs.items():
        if truth.leaves[name].state != "OFFLINE":
            assert leaves[name]["bay"] == bay, (name, leaves[name])


def scrub_line(lab: Guest, action: str, *, pyzfs: bool = True) -> str:
    """`nastui scrub ACTION tank` (without Debian's pyzfs when asked); its line."""
    hide = "export PYTHONPATH=${PYTHONPATH%%:*}\n" if not pyzfs else ""
    result = lab.sh(f"{hide}nastui scrub {action} {POOL}")
    return result.out.strip()


def history_scrubs(lab: Guest) -> list[str]:
    """The `zpool scrub` command lines in the pool's history (libzfs_core calls leave none)."""
    out = lab.sh(f"zpool history {POOL}").out
    return re.findall(r"zpool scrub.*$", out, re.M)


def data_chunks(image: Path) -> list[int]:
    """Offsets of the 1 MiB chunks of a disk image that hold anything, labels left out."""
    size = image.stat().st_size
    found = []
    with image.open("rb") as handle:
        for offset in range(LABELS, size - LABELS, MIB):
            handle.seek(offset)
            if handle.read(MIB).strip(b"\0"):
                found.append(offset)
    return found


def corrupt(images: Sequence[Path], offsets: Sequence[int]) -> None:
    """Overwrite 1 MiB at each offset of each image with random bytes (the pool exported)."""
    for image in images:
        with image.open("r+b") as handle:
            for offset in offsets:
                handle.seek(offset)
                handle.write(os.urandom(MIB))


def _running_percent(truths: list[float | None]) -> tuple[float, float]:
    known = [p for p in truths if p is not None]
    assert known, "zpool printed no progress"
    return min(known), max(known)


def scrub_through_nastui(lab: Guest, box: ZfsBox, moments: list[Moment]) -> None:
    """Start, pause and stop through nastui, the scrub read running and paused."""
    for bay in BAYS:
        lab.throttle(bay, read=THROTTLE)
    lzc = box.version >= (2, 2)  # lzc_scrub came with OpenZFS 2.2
    method = "libzfs_core" if lzc else "zpool scrub"

    started = scrub_line(lab, "start")
    assert started.startswith(f"{POOL}: scrub started") and method in started, started
    running = lab.moment(box.truth_commands(), "pools --json")
    moments.append(running)
    pool = nastui_pool(running)
    for truth in (*box.truths(running.before), *box.truths(running.after)):
        assert (truth.scan_function, truth.scan_state) == ("scrub", "running"), truth
    scan = pool["scan"]
    assert (scan["kind"], scan["state"]) == ("scrub", "running"), scan
    low, high = _running_percent(
        [t.percent for t in (*box.truths(running.before), *box.truths(running.after))]
    )
    assert low - 0.5 <= scan["percent"] <= high + 0.5, (scan, low, high)
    assert scan["bytes_total"] and scan["bytes_done"] is not None
    if box.has_json:  # the text's rate is rounded to 3 digits and may read 0 at this pace
        assert scan["rate_bytes_per_s"] and scan["rate_bytes_per_s"] > 0, scan

    paused = scrub_line(lab, "pause")
    assert f"{POOL}: scrub paused" in paused and method in paused, paused
    moment = lab.moment(box.truth_commands(), "pools --json")
    moments.append(moment)
    for truth in (*box.truths(moment.before), *box.truths(moment.after)):
        assert truth.scan_state == "paused", truth
    scan = nastui_pool(moment)["scan"]
    assert (scan["kind"], scan["state"]) == ("scrub", "paused"), scan
    assert scan["eta_seconds"] is None, scan

    stopped = scrub_line(lab, "stop", pyzfs=False)
    assert f"{POOL}: scrub stopped" in stopped and "zpool scrub" in stopped, stopped
    assert "pyzfs" in stopped, stopped  # says why it did not use libzfs_core
    history = history_scrubs(lab)
    expected = (
        [f"zpool scrub -s {POOL}"]
        if lzc
        else [f"zpool scrub {POOL}", f"zpool scrub -p {POOL}", f"zpool scrub -s {POOL}"]
    )
    assert history == expected, history


def errors_files_degraded(lab: Guest, box: ZfsBox, moments: list[Moment]) -> None:
    """Corruption from the host (repairable and not) and an offlined disk, in one read."""
    for bay in BAYS:
        lab.throttle(bay)
    lab.sh(f"zpool scrub -w {POOL} && zpool export {POOL}", timeout=900)
    images = {bay: lab.slots[bay].image for bay in BAYS}
    shared = sorted(set.intersection(*(set(data_chunks(images[b])) for b in (8, 9, 10))))
    assert len(shared) >= 6, shared
    middle = len(shared) // 2
    lost = shared[middle : middle + 2]  # three columns of raidz2 stripes: beyond repair
    mended = [o for o in data_chunks(images[7]) if o not in lost][:6]  # one column: repaired
    corrupt([images[8], images[9], images[10]], lost)
    corrupt([images[7]], mended)
    offline = box.vdevs[12]
    lab.sh(
        f"zpool import -d /dev/disk/by-id {POOL} && zpool scrub -w {POOL}; "
        f"zpool offline {POOL} {offline}",
        timeout=900,
    )
    moment = lab.moment(box.truth_commands(), "pools --json")
    moments.append(moment)
    pool = nastui_pool(moment)
    truths = box.truths(moment.after)
    for truth in truths:
        assert truth.state == "DEGRADED" and truth.leaves[offline].state == "OFFLINE", truth
        assert truth.scan_state == "finished", truth
        assert truth.leaves[box.vdevs[7]].cksum > 0, truth
        assert truth.files, f"no permanent errors: {moment.after['text']}"
        assert_tree(box, pool, truth)
        assert sorted(pool["error_files"]) == sorted(truth.files), (pool["error_files"], truth)
    last = pool["last_scrub"] or pool["scan"]
    assert last["kind"] == "scrub" and last["state"] == "finished", last
    assert last["errors"] and last["errors"] > 0, last
    assert pool["error_count"] is None or pool["error_count"] > 0, pool


def json_and_text_agree(moments: list[Moment]) -> None:
    """Every moment's `zpool status -p -v` text and `-j` JSON through nastui's two parsers."""
    assert moments, "the scenario's moments did not run"
    for moment in moments:
        for outputs in (moment.before, moment.after):
            assert_same_reading(outputs["text"], outputs["json"])


def assert_same_reading(text: str, document: str) -> None:
    """nastui reads one moment's text and JSON as the same pool: state, tree, counters,
    permanent-error files, the scan's kind and state, its percent within a point."""
    (text_pool,), stray = parse_zpool_status_report(text)
    (json_pool,) = parse_zpool_status_json(document)
    assert not stray and not text_pool.notes and not json_pool.notes
    assert text_pool.state == json_pool.state
    assert text_pool.error_files == json_pool.error_files
    assert _tree(text_pool.root) == _tree(json_pool.root)
    text_scan, json_scan = text_pool.scan, json_pool.scan
    assert (text_scan is None) == (json_scan is None)
    if text_scan is not None and json_scan is not None:
        assert (text_scan.kind, text_scan.state) == (json_scan.kind, json_scan.state)
        if text_scan.percent is not None and json_scan.percent is not None:
            assert abs(text_scan.percent - json_scan.percent) < 1.0


def _tree(vdev: Vdev) -> object:
    counters = (vdev.read_errors, vdev.write_errors, vdev.checksum_errors)
    return (vdev.name, vdev.kind, vdev.state, counters, tuple(_tree(c) for c in vdev.children))
