"""A real btrfs RAID1 on loop devices, read by the pool collector as `nastui` reads a NAS:

- a scrub started through nastui's own scrub action, followed from running (rate and ETA from
  consecutive samples) to finished, and a second one stopped through nastui;
- one copy of some blocks overwritten while unmounted: the scrub reports corrected errors and
  the damaged device's checksum counter;
- `btrfs replace` onto a fresh loop device, followed as a resilver to the end.

Scrubs are slowed through /sys/fs/btrfs/UUID/devinfo/N/scrub_speed_max so the running state
can be sampled (btrfs-progs refreshes its figures every 5 s). The replace is held at a crawl
until a sample shows it running with its target marked (polled with a bound, however loaded the
machine), then let go to finish: no sample can miss it. Loop devices and mounts are
removed in the fixture's teardown whatever happens. Needs root, btrfs and loop (CI runs as root).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from nastui.collectors.pools import PoolCollector
from nastui.collectors.runner import run
from nastui.control.scrub import LocalScrubber
from nastui.model import Pool, PoolKind, PoolState, ScanKind, ScanProgress, ScanState, ScrubAction
from tests.conftest import STRICT, require_tool

pytestmark = pytest.mark.integration

MIB = 2**20
DATA_MIB = 192
SLOW = "8m"  # bytes/s per device while a scan is being watched (btrfs refreshes every 5 s)
CRAWL = "1m"  # a replace of DATA_MIB takes minutes at this speed: long enough to be seen
UNLIMITED = "0"


@dataclass
class Lab:
    """A mounted two-device RAID1 and a spare loop device."""

    mnt: Path
    images: list[Path]
    loops: list[str]
    uuid: str

    def speed(self, limit: str) -> None:
        for device in (Path("/sys/fs/btrfs") / self.uuid / "devinfo").iterdir():
            (device / "scrub_speed_max").write_text(limit)


def sh(*argv: str) -> str:
    return subprocess.run(argv, check=True, capture_output=True, text=True, timeout=120).stdout


def quiet(*argv: str) -> None:
    subprocess.run(argv, check=False, capture_output=True, timeout=120)


def _needs() -> None:
    for tool, package in (("btrfs", "btrfs-progs"), ("mkfs.btrfs", "btrfs-progs")):
        require_tool(tool, package)
    require_tool("losetup", "util-linux")
    if os.geteuid() != 0:
        (pytest.fail if STRICT else pytest.skip)("btrfs on loop devices needs root")


def _unmount(mnt: Path) -> None:
    quiet("btrfs", "replace", "cancel", str(mnt))
    quiet("btrfs", "scrub", "cancel", str(mnt))
    for _ in range(20):
        if subprocess.run(["umount", str(mnt)], check=False, capture_output=True).returncode == 0:
            return
        time.sleep(0.5)
    quiet("umount", "-l", str(mnt))


@contextlib.contextmanager
def raid1_on_loops(
    tmp_path: Path, name: str, fill: Callable[[Path], None]
) -> Iterator[tuple[Path, list[Path], list[str], str]]:
    """A btrfs RAID1 of two 1 GiB loop devices (a third one attached, unused), mounted and
    filled by `fill`: (mount point, images, loop devices, uuid). Everything is unmounted and
    detached afterwards, whatever happens (leaked loop devices pile up)."""
    _needs()
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    images = [tmp_path / f"{name}{os.getpid()}-{i}.img" for i in range(3)]
    loops: list[str] = []
    mounted = False
    try:
        for image in images:
            with image.open("wb") as f:
                f.truncate(1024 * MIB)
            loops.append(sh("losetup", "-f", "--show", str(image)).strip())
        label = f"nastui-{name}-{os.getpid()}"
        sh("mkfs.btrfs", "-f", "-q", "-L", label, "-d", "raid1", "-m", "raid1", *loops[:2])
        sh("mount", loops[0], str(mnt))
        mounted = True
        fill(mnt)
        os.sync()
        uuid = sh("btrfs", "filesystem", "show", "--raw", str(mnt)).split("uuid: ")[1].split()[0]
        yield mnt, images, loops, uuid
    finally:
        if mounted:
            _unmount(mnt)
        for loop in loops:
            quiet("losetup", "-d", loop)


def _data(mnt: Path) -> None:
    with (mnt / "data").open("wb") as f:
        for _ in range(DATA_MIB):
            f.write(os.urandom(MIB))


@pytest.fixture
def lab(tmp_path: Path) -> Iterator[Lab]:
    with raid1_on_loops(tmp_path, "it", _data) as (mnt, images, loops, uuid):
        yield Lab(mnt, images, loops, uuid)


def ours(collector: PoolCollector, lab: Lab) -> Pool:
    report = asyncio.run(collector.collect(time.time()))
    found = [p for p in report.pools if p.uuid == lab.uuid]
    assert len(found) == 1, report
    return found[0]


def follow(collector: PoolCollector, lab: Lab, kind: ScanKind, limit: float) -> list[Pool]:
    """Poll once a second until the `kind` scan is no longer running (or `limit` s pass)."""
    seen: list[Pool] = []
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        pool = ours(collector, lab)
        seen.append(pool)
        scan = pool.scan
        if scan is not None and scan.kind is kind and scan.state is not ScanState.RUNNING:
            return seen
        time.sleep(1.0)
    raise AssertionError(f"{kind.value} still running after {limit} s: {seen[-1].scan}")


def until(collector: PoolCollector, lab: Lab, what: Callable[[Pool], bool], limit: float) -> Pool:
    """Poll once a second until a sample satisfies `what` (or fail after `limit` s)."""
    deadline = time.monotonic() + limit
    pool = ours(collector, lab)
    while not what(pool):
        assert time.monotonic() < deadline, f"not seen within {limit} s: {pool.scan}"
        time.sleep(1.0)
        pool = ours(collector, lab)
    return pool


def running(seen: list[Pool], kind: ScanKind) -> list[ScanProgress]:
    return [
        p.scan
        for p in seen
        if p.scan is not None and p.scan.kind is kind and p.scan.state is ScanState.RUNNING
    ]


def test_scrub_started_by_nastui_runs_to_finished(lab: Lab) -> None:
    collector = PoolCollector(Path("/"), interval=0.0)
    before = ours(collector, lab)
    assert (before.kind, before.state, before.mountpoint) == (
        PoolKind.BTRFS,
        PoolState.ONLINE,
        str(lab.mnt),
    )
    assert [leaf.name for leaf in before.root.leaves] == [Path(p).name for p in lab.loops[:2]]
    lab.speed(SLOW)
    started = asyncio.run(LocalScrubber(run).scrub(before, ScrubAction.START))
    assert started.ok, started.message
    assert started.method == "btrfs scrub"
    seen = follow(collector, lab, ScanKind.SCRUB, limit=120)
    samples = running(seen, ScanKind.SCRUB)
    percents = [s.percent for s in samples if s.percent is not None]
    assert len(set(percents)) >= 2, percents  # it was seen moving
    assert percents == sorted(percents)
    assert any(s.rate_bytes_per_s and s.eta_seconds is not None for s in samples)
    final = seen[-1]
    assert final.scan is not None and final.scan.state is ScanState.FINISHED
    assert final.last_scrub is final.scan and final.scan.errors == 0
    total = final.scan.bytes_total
    assert total is not None and total >= 2 * DATA_MIB * MIB  # both copies are read
    assert final.scan.bytes_done == pytest.approx(total, rel=0.01)
    assert final.scan.started_at is not None and final.scan.duration is not None


def test_scrub_stopped_by_nastui(lab: Lab) -> None:
    collector = PoolCollector(Path("/"), interval=0.0)
    pool = ours(collector, lab)
    lab.speed("4m")
    scrubber = LocalScrubber(run)
    assert asyncio.run(scrubber.scrub(pool, ScrubAction.START)).ok
    time.sleep(6)
    assert running([ours(collector, lab)], ScanKind.SCRUB)
    stopped = asyncio.run(scrubber.scrub(pool, ScrubAction.STOP))
    assert stopped.ok, stopped.message
    after = ours(collector, lab)
    assert after.scan is not None and after.scan.state is ScanState.CANCELED
    assert after.last_scrub is None
    paused = asyncio.run(scrubber.scrub(pool, ScrubAction.PAUSE))
    assert (paused.ok, paused.supported) == (False, False)


def test_corrupted_copy_is_corrected_by_the_scrub(lab: Lab) -> None:
    sh("umount", str(lab.mnt))
    with lab.images[1].open("r+b") as image:  # past the 64 MiB superblock copy
        for offset in (128, 320, 512):
            image.seek(offset * MIB)
            image.write(os.urandom(32 * MIB))
    sh("mount", lab.loops[0], str(lab.mnt))
    collector = PoolCollector(Path("/"), interval=0.0)
    pool = ours(collector, lab)
    assert asyncio.run(LocalScrubber(run).scrub(pool, ScrubAction.START)).ok
    final = follow(collector, lab, ScanKind.SCRUB, limit=120)[-1]
    scan = final.scan
    assert scan is not None and scan.state is ScanState.FINISHED
    assert scan.errors is not None and scan.errors > 0
    assert scan.repaired_bytes is not None and scan.repaired_bytes >= scan.errors * 4096
    assert final.status_text is None  # nothing uncorrectable
    damaged = {leaf.name: leaf.checksum_errors for leaf in final.root.leaves}
    assert damaged[Path(lab.loops[1]).name] == scan.errors
    assert damaged[Path(lab.loops[0]).name] == 0
    assert final.state is PoolState.ONLINE


def test_replace_followed_as_a_resilver(lab: Lab) -> None:
    collector = PoolCollector(Path("/"), interval=0.0)
    target = Path(lab.loops[2]).name

    def marked(pool: Pool) -> bool:
        return running([pool], ScanKind.REPLACE) != [] and any(
            leaf.name == target and (leaf.note or "").startswith("(replace target")
            for leaf in pool.root.leaves
        )

    lab.speed(CRAWL)
    subprocess.run(
        ["btrfs", "replace", "start", "-f", "2", lab.loops[2], str(lab.mnt)],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        timeout=60,
    )
    during = until(collector, lab, marked, limit=120)
    lab.speed(UNLIMITED)
    seen = [during, *follow(collector, lab, ScanKind.REPLACE, limit=180)]
    samples = running(seen, ScanKind.REPLACE)
    percents = [s.percent for s in samples if s.percent is not None]
    assert percents == sorted(percents)
    final = seen[-1]
    assert final.scan is not None and final.scan.state is ScanState.FINISHED
    assert final.scan.errors == 0 and final.scan.duration is not None
    # The kernel reports the replace finished a moment before it drops the old device.
    expected = [Path(lab.loops[0]).name, target]
    for _ in range(20):
        if [leaf.name for leaf in final.root.leaves] == expected:
            break
        time.sleep(0.5)
        final = ours(collector, lab)
    assert [leaf.name for leaf in final.root.leaves] == expected
    assert final.state is PoolState.ONLINE
