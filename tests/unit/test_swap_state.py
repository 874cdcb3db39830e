"""The swap state machine on snapshots, its JSON round trip, and the new drive's check."""

from __future__ import annotations

import dataclasses

from nastui.model import (
    HostSnapshot,
    Pool,
    PoolKind,
    PoolState,
    ScanKind,
    ScanProgress,
    ScanState,
    SmartAttribute,
    Vdev,
)
from nastui.swap.flow.box import replace_ops
from nastui.swap.logic.argv import argv_for
from nastui.swap.logic.check import blocking, check_new_drive
from nastui.swap.logic.codec import decode_swap, encode_swap, failed_serials, log_record
from nastui.swap.logic.names import NEW, Op, OpKind, Stage
from nastui.swap.logic.plan import Needs, Sectors, make_plan
from nastui.swap.logic.state import DriveRef, Swap, SwapPhase, advance
from tests.swapcorpus import TB4, drive_for, snapshot, zpool_pool

NEEDS = Needs(TB4, Sectors(512, 4096), no_smr=True)


def start() -> tuple[Swap, HostSnapshot]:
    pool, drives = zpool_pool("zpool_mirror_raidz123.txt")
    snap = snapshot([pool], drives)
    target = drives[2]
    plan = make_plan(snap, target.key)
    swap = Swap(
        host="test",
        phase=SwapPhase.PREPARED,
        in_place=False,
        old=DriveRef.of(target, 2, None),
        pool=pool.name,
        pool_kind="zfs",
        group=plan.group.name if plan.group else None,
        member=plan.member.name if plan.member else None,
        ops=plan.ops,
        members=(("eden", "eden", plan.member.name if plan.member else ""),),
        present=tuple((d.key, snap.bay_of(d.key)) for d in drives),
        started_at=snap.taken_at,
    )
    return swap, snap


def without(snap: HostSnapshot, *keys: str) -> HostSnapshot:
    return dataclasses.replace(
        snap,
        drives=tuple(d for d in snap.drives if d.key not in keys),
        slots=tuple(
            dataclasses.replace(s, drive=None) if s.drive in keys else s for s in snap.slots
        ),
        taken_at=snap.taken_at + 60,
    )


def test_pull_then_insert_then_the_new_drive_out_again() -> None:
    swap, snap = start()
    pulled = without(snap, swap.old.key)
    swap = advance(swap, pulled)
    assert swap.phase is SwapPhase.PULLED and swap.pulled_at == pulled.taken_at
    new = drive_for("sdz")
    slots = tuple(dataclasses.replace(s, drive=new.key) if s.bay == 2 else s for s in pulled.slots)
    inserted = dataclasses.replace(pulled, drives=(*pulled.drives, new), slots=slots)
    swap = advance(swap, inserted)
    assert swap.phase is SwapPhase.INSERTED and swap.new is not None
    assert swap.new.key == new.key and swap.new.bay == 2
    swap = advance(swap, pulled)
    assert swap.phase is SwapPhase.PULLED and swap.new is None


def test_a_wrong_pull_is_named_until_the_drive_is_back() -> None:
    swap, snap = start()
    other = snap.drives[5]
    swap = advance(swap, without(snap, other.key))
    assert swap.phase is SwapPhase.PREPARED
    assert swap.wrong_pulls == (f"bay 5 {other.key}",)
    swap = advance(swap, snap)
    assert swap.wrong_pulls == ()
    assert [t for _, t in swap.events][-2:] == [
        f"WRONG DRIVE PULLED: bay 5 {other.key}: put it back now",
        "the wrongly pulled drive is back",
    ]


def test_rebuild_progress_then_done() -> None:
    swap, snap = start()
    new = drive_for("sdz")
    swap = dataclasses.replace(
        swap, phase=SwapPhase.REPLACING, new=DriveRef.of(new, 2, None), replaced_at=snap.taken_at
    )
    pool = snap.pools[0]
    member = swap.member

    def with_leaf(note: str | None) -> HostSnapshot:
        def swap_leaf(v: Vdev) -> Vdev:
            if v.name == member and not v.children:
                return Vdev("sdz", "disk", PoolState.ONLINE, drive=new.key, note=note)
            return dataclasses.replace(v, children=tuple(swap_leaf(c) for c in v.children))

        root = swap_leaf(pool.root)
        return dataclasses.replace(snap, pools=(dataclasses.replace(pool, root=root),))

    running = with_leaf("(resilvering)")
    scan = ScanProgress(ScanKind.RESILVER, ScanState.RUNNING, 0.0, None, 50, 100, 10.0, 5.0)
    running = dataclasses.replace(
        running, pools=(dataclasses.replace(running.pools[0], scan=scan),)
    )
    swap = advance(swap, running)
    assert swap.phase is SwapPhase.REBUILDING
    assert swap.progress is not None and swap.progress.percent == 50.0
    done = with_leaf(None)
    swap = advance(swap, done)
    assert swap.phase is SwapPhase.DONE
    record = log_record(swap)
    assert record["bay"] == 2 and record["new"]["serial"] == new.identity.serial
    assert failed_serials([record]) == {swap.old.serial}


def test_json_round_trip_and_a_broken_file() -> None:
    swap, snap = start()
    swap = advance(swap, without(snap, snap.drives[7].key))
    assert decode_swap(encode_swap(swap)) == swap
    assert decode_swap("{not json") is None
    assert decode_swap('{"version": 1, "swap": {"host": "x"}}') is None
    assert decode_swap(encode_swap(None)) is None


def test_check_of_a_good_new_drive_finds_nothing() -> None:
    drive = dataclasses.replace(drive_for("sdz"), power_on_hours=12)
    assert check_new_drive(drive, NEEDS, sectors=Sectors(512, 4096)) == ()


def test_check_flags_use_history_size_sectors_smr_and_smart() -> None:
    base = drive_for("sdz")
    used = dataclasses.replace(
        base,
        power_on_hours=30_000,
        identity=dataclasses.replace(
            base.identity, model="WDC WD40EFAX-68JH4N0", capacity_bytes=TB4 // 2
        ),
        attributes=(SmartAttribute(197, "Current_Pending_Sector", raw=3),),
        smart_passed=False,
    )
    found = check_new_drive(
        used,
        NEEDS,
        in_use=("mounted on /srv",),
        failed_serials={"S-sdz"},
        sectors=Sectors(4096, 4096),
    )
    texts = [f.text for f in found]
    assert "in use: mounted on /srv" in texts
    assert "serial S-sdz failed before in this box: use another drive" in texts
    assert any(t.startswith("too small") for t in texts)
    assert any(t.startswith("logical sector 4096 B") for t in texts)
    assert any("drive-managed SMR" in t for t in texts)
    assert "SMART overall health: FAILED: send it back" in texts
    assert "3 pending sector(s): not a healthy drive" in texts
    assert "30,000 power-on hours: a used drive, not a new one" in texts
    assert len(blocking(found)) == 7  # all but the hours


def test_a_btrfs_device_pulled_first_is_replaced_by_its_missing_devid() -> None:
    old, new, kept = drive_for("loop1"), drive_for("loop3"), drive_for("loop0")
    leaves = (
        Vdev("loop0", "disk", PoolState.ONLINE, drive=kept.key),
        Vdev("devid 2", "disk", PoolState.UNAVAIL, note="missing"),
    )
    group = Vdev("raid1", "raid1", PoolState.DEGRADED, children=leaves)
    pool = Pool(
        "fs",
        PoolKind.BTRFS,
        PoolState.DEGRADED,
        Vdev("fs", "root", PoolState.DEGRADED, children=(group,)),
        mountpoint="/mnt",
    )
    snap = snapshot([pool], [kept, new])
    op = Op(OpKind.BTRFS_REPLACE, Stage.REPLACE, "/mnt", "/dev/loop1", NEW, force=True)
    swap = Swap(
        host="t",
        phase=SwapPhase.INSERTED,
        in_place=False,
        old=DriveRef.of(old, 1, "/dev/loop1"),
        pool="fs",
        pool_kind="btrfs",
        group="raid1",
        member="loop1",
        ops=(op,),
        members=(("fs", "/mnt", "loop1"),),
        present=(),
        started_at=0.0,
        new=DriveRef.of(new, 1, "/dev/loop3"),
    )
    [ready] = replace_ops(swap, snap)
    assert argv_for(ready) == ("btrfs", "replace", "start", "-r", "2", "/dev/loop3", "/mnt")
