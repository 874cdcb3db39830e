"""A whole drive swap on a real btrfs RAID1 of loop devices: a member goes bad (one of its
copies overwritten while unmounted, found by a scrub), the plan, the new device checked by the
benchmark guard's real inspection, `btrfs replace start -r` run by nastui's write side through
the runner, the rebuild followed by the state machine on real pool polls to the end; then every
file's checksum verified after a remount and a clean scrub.

No bay can be pulled here: the drives are the loop devices (one "inserted" when the swap sees
it), and the swap runs in place, the old device still present. Loop devices and the mount are
removed in the fixture's teardown whatever happens. Needs root, btrfs and loop.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import os
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from nastui.collectors.pools import PoolCollector
from nastui.collectors.runner import run
from nastui.model import BaySlot, Drive, DriveIdentity, HostSnapshot, PoolKind
from nastui.swap.io.machine import run_ops
from nastui.swap.io.probe import in_use, sectors
from nastui.swap.logic.argv import argv_for
from nastui.swap.logic.check import check_new_drive
from nastui.swap.logic.names import Stage, stable_disk
from nastui.swap.logic.plan import make_plan
from nastui.swap.logic.state import DriveRef, Swap, SwapPhase, advance
from tests.integration.test_btrfs_loop import quiet, raid1_on_loops, sh

pytestmark = pytest.mark.integration

MIB = 2**20
FILES = 12
FILE_MIB = 8


@dataclass
class Lab:
    """A mounted RAID1 of two loop devices, a third one unused, and the files' checksums."""

    mnt: Path
    images: list[Path]
    loops: list[str]
    uuid: str
    sums: dict[str, str]


def _sums(mnt: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(mnt.glob("f*"))}


def _files(mnt: Path) -> None:
    for i in range(FILES):
        (mnt / f"f{i:02d}").write_bytes(os.urandom(FILE_MIB * MIB))


@pytest.fixture
def lab(tmp_path: Path) -> Iterator[Lab]:
    with raid1_on_loops(tmp_path, "swap", _files) as (mnt, images, loops, uuid):
        yield Lab(mnt, images, loops, uuid, _sums(mnt))


def loop_drive(loop: str) -> Drive:
    """A loop device as the swap sees a drive (its serial: the loop's name)."""
    dev = Path(loop).name
    size = int(Path(f"/sys/block/{dev}/size").read_text()) * 512
    return Drive(
        dev=dev,
        identity=DriveIdentity(model="loop", serial=f"LOOP-{dev}", capacity_bytes=size),
        smart_passed=None,
    )


def snap(lab: Lab, collector: PoolCollector, present: list[str]) -> HostSnapshot:
    """A snapshot of the real pool with the present loop devices in bays 0.. (one each)."""
    drives = [loop_drive(loop) for loop in present]
    report = asyncio.run(collector.collect(time.time(), drives))
    pools = [p for p in report.pools if p.uuid == lab.uuid]
    assert len(pools) == 1, report
    slots = [BaySlot(i, d.key) for i, d in enumerate(drives)]
    slots.append(BaySlot(len(drives), None))
    return HostSnapshot(
        "lab", time.time(), slots=tuple(slots), drives=tuple(drives), pools=tuple(pools)
    )


def break_a_copy(lab: Lab) -> None:
    """Overwrite part of the second device while unmounted; a scrub then finds it."""
    sh("umount", str(lab.mnt))
    with lab.images[1].open("r+b") as image:
        for offset in (128, 256):
            image.seek(offset * MIB)
            image.write(os.urandom(16 * MIB))
    sh("mount", lab.loops[0], str(lab.mnt))
    quiet("btrfs", "scrub", "start", "-B", str(lab.mnt))


def test_swap_a_bad_member_in_place_to_the_end(lab: Lab) -> None:
    break_a_copy(lab)
    collector = PoolCollector(Path("/"), interval=0.0)
    old_loop, new_loop = lab.loops[1], lab.loops[2]
    before = snap(lab, collector, lab.loops[:2])
    assert before.pools[0].kind is PoolKind.BTRFS
    plan = make_plan(before, f"LOOP-{Path(old_loop).name}")
    assert plan.refusal is None, plan.refusal
    assert plan.redundancy is not None and plan.redundancy.left_after == 0
    assert plan.in_place and plan.free_bays == (2,)
    [op] = plan.ops
    assert op.force  # the old device has errors: read it only where no other copy exists
    old = plan.drive
    assert old is not None
    swap = Swap(
        host="lab",
        phase=SwapPhase.PREPARED,
        in_place=True,
        old=DriveRef.of(old, plan.bay, stable_disk(old)),
        pool=before.pools[0].name,
        pool_kind="btrfs",
        group=plan.group.name if plan.group else None,
        member=plan.member.name if plan.member else None,
        ops=plan.ops,
        members=tuple((m.pool.name, m.op_target, m.member.name) for m in plan.memberships),
        present=tuple((d.key, before.bay_of(d.key)) for d in before.drives),
        started_at=before.taken_at,
    )
    # the new device appears and is checked with the guard's real inspection and sysfs
    inserted = snap(lab, collector, lab.loops)
    swap = advance(swap, inserted)
    assert swap.phase is SwapPhase.INSERTED and swap.new is not None
    new = inserted.drive(swap.new.key)
    assert new is not None and new.dev == Path(new_loop).name
    uses = asyncio.run(in_use(new_loop, Path("/")))
    found = check_new_drive(new, plan.needs, in_use=uses, sectors=sectors(Path("/"), new.dev))
    assert [f.text for f in found if f.blocks] == []
    # and the old one is refused as a new drive: it is in use
    busy = asyncio.run(in_use(old_loop, Path("/")))
    assert busy
    # the replace, run for real through the runner
    ops = [o.with_new(stable_disk(new) or "") for o in swap.ops if o.stage is Stage.REPLACE]
    assert [argv_for(o) for o in ops] == [
        ("btrfs", "replace", "start", "-r", old_loop, new_loop, str(lab.mnt))
    ]
    ran = asyncio.run(run_ops(ops, run, timeout=60))
    assert [r.ok for r in ran] == [True], ran
    swap = dataclasses.replace(swap, phase=SwapPhase.REPLACING, replaced_at=time.time())
    deadline = time.monotonic() + 120
    while swap.phase is not SwapPhase.DONE and time.monotonic() < deadline:
        time.sleep(1.0)
        swap = advance(swap, snap(lab, collector, lab.loops))
    assert swap.phase is SwapPhase.DONE, swap.events
    assert swap.wrong_pulls == () and swap.failures == ()
    members = sh("btrfs", "filesystem", "show", str(lab.mnt))
    assert new_loop in members and old_loop not in members
    # the data: every file as written, read from the disks after a remount; a clean scrub
    sh("umount", str(lab.mnt))
    sh("mount", new_loop, str(lab.mnt))
    assert _sums(lab.mnt) == lab.sums
    scrub = subprocess.run(
        ["btrfs", "scrub", "start", "-B", str(lab.mnt)],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert scrub.returncode == 0, scrub.stdout + scrub.stderr
    assert "no errors found" in scrub.stdout
