"""The swap plan on real `zpool status` and mdstat outputs: redundancy left, refusals, and the
exact commands (argv tuples) for mirror, raidz1-3, dRAID, hot spares and md 1/5/6/10."""

from __future__ import annotations

from nastui.model import HostSnapshot
from nastui.swap.logic.argv import argv_for, unsafe
from nastui.swap.logic.names import NEW, Stage
from nastui.swap.logic.plan import SwapPlan, make_plan
from tests.swapcorpus import md_snapshot, snapshot, zpool_snapshot

NEW_DISK = "/dev/disk/by-id/ata-NEW_4TB_N1"


def key_of(snap: HostSnapshot, leaf: str, group: str | None = None) -> str:
    """The drive key behind the leaf called `leaf` (in `group`, when names repeat)."""
    for pool in snap.pools:
        for top in pool.root.children:
            if group is not None and top.name != group:
                continue
            for _, node in top.walk():
                if node.name == leaf and node.drive:
                    return node.drive
    raise KeyError(leaf)


def commands(plan: SwapPlan, stage: Stage | None = None) -> list[tuple[str, ...]]:
    """The plan's commands with the new drive filled in."""
    return [argv_for(o.with_new(NEW_DISK)) for o in plan.ops if stage in (None, o.stage)]


def test_healthy_mirror_pull_first_offlines_then_replaces() -> None:
    snap = zpool_snapshot("zpool_mirror.txt")
    plan = make_plan(snap, key_of(snap, "c0t1d0"))
    assert plan.refusal is None and not plan.in_place
    assert plan.redundancy is not None and plan.redundancy.left_after == 0
    assert plan.redundancy.layout == "mirror of 2"
    assert commands(plan) == [
        ("zpool", "offline", "pool", "c0t1d0"),
        ("zpool", "replace", "pool", "c0t1d0", NEW_DISK),
    ]


def test_healthy_mirror_with_a_free_bay_replaces_in_place() -> None:
    snap = zpool_snapshot("zpool_mirror.txt", free_bays=1)
    plan = make_plan(snap, key_of(snap, "c0t4d0"))
    assert plan.in_place and plan.free_bays == (2,)
    assert commands(plan) == [("zpool", "replace", "pool", "c0t4d0", NEW_DISK)]


def test_mirror_whose_other_side_is_gone_is_refused() -> None:
    snap = zpool_snapshot("zpool_mirror_degraded.txt")
    plan = make_plan(snap, key_of(snap, "sda"))
    assert plan.refusal is not None
    assert "other side (7902075986954684628) is already gone" in plan.refusal
    assert plan.redundancy is not None and plan.redundancy.left_after == -1


def test_raidz_levels_leave_parity_minus_one() -> None:
    snap = zpool_snapshot("zpool_mirror_raidz123.txt")
    leaf = "gptid/d37ba27f-d17d-11e4-9eed-10c37b9d936f"
    for group, left in (("raidz1-1", 0), ("raidz2-2", 1), ("raidz3-3", 2)):
        plan = make_plan(snap, key_of(snap, leaf, group))
        assert plan.group is not None and plan.group.name == group
        assert plan.redundancy is not None and plan.redundancy.left_after == left
        assert plan.refusal is None
        assert commands(plan) == [
            ("zpool", "offline", "eden", leaf),
            ("zpool", "replace", "eden", leaf, NEW_DISK),
        ]


def test_raidz1_already_degraded_is_refused() -> None:
    snap = zpool_snapshot("zpool_raidz1_degraded.txt")
    plan = make_plan(snap, key_of(snap, "wwn-0x500000000000000c"))
    assert plan.refusal is not None
    assert "raidz1 of 3 can lose 1 member(s) and already misses replacing-0" in plan.refusal


def test_raidz1_refused_even_with_a_free_bay_unless_in_place_is_asked() -> None:
    snap = zpool_snapshot("zpool_raidz1_degraded.txt", free_bays=1)
    target = key_of(snap, "wwn-0x500000000000000c")
    assert make_plan(snap, target).refusal is not None
    forced = make_plan(snap, target, in_place=True)
    assert forced.refusal is None
    assert commands(forced) == [("zpool", "replace", "pool", "wwn-0x500000000000000c", NEW_DISK)]


def test_hot_spare_standing_in_keeps_the_group_whole() -> None:
    snap = zpool_snapshot("zpool_raidz1_spare_inuse.txt")
    failed = make_plan(snap, key_of(snap, "wwn-0x500000000000000a"))
    assert failed.redundancy is not None and failed.redundancy.left_after == 1
    assert any("in use: wwn-0x500000000000000d" in n for n in failed.notes)
    # a FAULTED member is not offlined first: ZFS already stopped using it
    assert commands(failed) == [
        ("zpool", "replace", "sparepool", "wwn-0x500000000000000a", NEW_DISK)
    ]
    healthy = make_plan(snap, key_of(snap, "wwn-0x500000000000000b"))
    assert healthy.redundancy is not None and healthy.redundancy.left_after == 0


def test_draid_with_its_distributed_spare_available() -> None:
    snap = zpool_snapshot("zpool_draid_spare_avail.txt")
    plan = make_plan(snap, key_of(snap, "sdg"))
    assert plan.redundancy is not None
    assert plan.redundancy.layout == "draid1 (1 distributed spare)"
    assert plan.redundancy.left_after == 0
    assert any("distributed spare" in n for n in plan.notes)
    assert commands(plan) == [
        ("zpool", "offline", "tank", "sdg"),
        ("zpool", "replace", "tank", "sdg", NEW_DISK),
    ]


def test_draid_while_the_distributed_spare_rebuilds_is_refused() -> None:
    snap = zpool_snapshot("zpool_draid_spare_rebuilding.txt")
    plan = make_plan(snap, key_of(snap, "sdh"))
    assert plan.refusal is not None and "already misses spare-6" in plan.refusal


def test_md_raid1_on_partitions_copies_the_table_and_adds() -> None:
    snap = md_snapshot("mdstat_raid1_raid10.txt")
    plan = make_plan(snap, key_of(snap, "sda1"), in_place=False)
    old1 = "/dev/disk/by-id/ata-TEST_4TB_S-sda-part1"
    old2 = "/dev/disk/by-id/ata-TEST_4TB_S-sda-part2"
    assert [m.pool.name for m in plan.memberships] == ["md1", "md0"]
    assert commands(plan) == [
        ("mdadm", "/dev/md1", "--fail", old2),
        ("mdadm", "/dev/md1", "--remove", old2),
        ("mdadm", "/dev/md0", "--fail", old1),
        ("mdadm", "/dev/md0", "--remove", old1),
        ("sgdisk", f"--replicate={NEW_DISK}", "/dev/disk/by-id/ata-TEST_4TB_S-sdb"),
        ("sgdisk", "--randomize-guids", NEW_DISK),
        ("mdadm", "/dev/md1", "--add", f"{NEW_DISK}-part2"),
        ("mdadm", "/dev/md0", "--add", f"{NEW_DISK}-part1"),
    ]


def test_md_raid1_in_place_uses_replace_with() -> None:
    snap = md_snapshot("mdstat_raid1_raid10.txt", free_bays=1)
    plan = make_plan(snap, key_of(snap, "sdb1"))
    assert plan.in_place
    assert commands(plan, Stage.REPLACE)[2:4] == [
        ("mdadm", "/dev/md1", "--add", f"{NEW_DISK}-part2"),
        (
            "mdadm",
            "/dev/md1",
            "--replace",
            "/dev/disk/by-id/ata-TEST_4TB_S-sdb-part2",
            "--with",
            f"{NEW_DISK}-part2",
        ),
    ]


def test_md_raid10_of_whole_disks_needs_no_partition_table() -> None:
    snap = md_snapshot("mdstat_raid1_raid10.txt")
    plan = make_plan(snap, key_of(snap, "sde"))
    assert plan.redundancy is not None and plan.redundancy.layout == "md raid10 of 12"
    old = "/dev/disk/by-id/ata-TEST_4TB_S-sde"
    assert commands(plan) == [
        ("mdadm", "/dev/md2", "--fail", old),
        ("mdadm", "/dev/md2", "--remove", old),
        ("mdadm", "/dev/md2", "--add", NEW_DISK),
    ]


def test_md_raid5_degraded_is_refused_and_in_place_is_not_offered_for_md() -> None:
    snap = md_snapshot("mdstat_raid5_degraded.txt", free_bays=1)
    plan = make_plan(snap, key_of(snap, "sdb1"))
    assert plan.refusal is not None and "md0 raid5" in plan.refusal
    assert "already misses slot 3" in plan.refusal
    assert make_plan(snap, key_of(snap, "sdb1"), in_place=True).refusal is not None


def test_md_raid5_and_raid6_left() -> None:
    raid5 = md_snapshot("mdstat_raid5.txt")
    plan5 = make_plan(raid5, key_of(raid5, "sdc1"))
    assert plan5.redundancy is not None and plan5.redundancy.left_after == 0
    raid6 = md_snapshot("mdstat_raid6.txt")
    plan6 = make_plan(raid6, key_of(raid6, "sdc6"))
    assert len(plan6.memberships) == 4  # sdc holds members of md0..md3
    assert [m.redundancy.left_after for m in plan6.memberships] == [1, 1, 6, 6]


def test_a_drive_in_no_pool_is_safe_to_pull() -> None:
    snap = zpool_snapshot("zpool_mirror.txt")
    loose = md_snapshot("mdstat_raid5.txt").drives[0]
    both = snapshot(list(snap.pools), [*snap.drives, loose])
    plan = make_plan(both, loose.key)
    assert plan.safe_to_pull and plan.refusal is None and plan.ops == ()
    assert plan.notes == ("nothing to rebuild, safe to pull",)


def test_unknown_target_and_empty_bay() -> None:
    snap = zpool_snapshot("zpool_mirror.txt", free_bays=1)
    assert make_plan(snap, "nosuch").refusal == "no drive 'nosuch': nothing to swap"
    assert make_plan(snap, "2").refusal == "bay 2 is empty: nothing to swap"


def test_targets_by_bay_serial_device_and_by_id() -> None:
    snap = zpool_snapshot("zpool_mirror.txt")
    key = key_of(snap, "c0t4d0")
    for name in ("1", key, "c0t4d0", "/dev/disk/by-id/ata-TEST_4TB_S-c0t4d0"):
        plan = make_plan(snap, name)
        assert plan.drive is not None and plan.drive.key == key


def test_rebuild_estimate_from_the_last_scrub_rate() -> None:
    snap = zpool_snapshot("zpool_mirror.txt")
    plan = make_plan(snap, key_of(snap, "c0t1d0"))
    assert plan.rebuild_bytes == 36 * 10**12
    assert plan.rebuild_rate == 1e9
    assert plan.rebuild_seconds == 36000.0


def test_commands_with_the_placeholder_or_a_kernel_name_never_run() -> None:
    snap = zpool_snapshot("zpool_mirror.txt")
    replace = make_plan(snap, key_of(snap, "c0t1d0")).ops[-1]
    assert NEW in replace.new
    assert unsafe(argv_for(replace)) is not None
    assert unsafe(argv_for(replace.with_new("/dev/sdq"))) is not None
    assert unsafe(argv_for(replace.with_new(NEW_DISK))) is None
