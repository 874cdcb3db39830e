"""The writes a swap plan makes, for each pool kind (pure).

ZFS: `zpool offline` before a pull (not in place), then `zpool replace POOL OLD NEW` (whole
disk, as ZFS partitions it; a member on partition 2 or later gets the partition table of a
healthy member first). md: `--fail`/`--remove` before a pull, the partition table copied with
sgdisk where members are partitions (once, for every array on the drive), then `--add` (pull
first) or `--add` and `--replace OLD --with NEW` (in place). btrfs: `replace start` (`-r` when
the old device fails).
"""

from __future__ import annotations

from collections.abc import Sequence

from nastui.model import Drive, HostSnapshot, Pool, PoolKind, PoolState, Vdev
from nastui.swap.logic.names import NEW, Op, OpKind, Stage, member_partition, stable_disk


def build_all_ops(
    snapshot: HostSnapshot,
    members: Sequence[tuple[Pool, Vdev, Vdev]],
    drive: Drive,
    *,
    in_place: bool,
) -> tuple[Op, ...]:
    """The writes for every (pool, group, leaf) the drive is in: all preparing writes first,
    then one partition-table copy, then the replaces."""
    ops: list[Op] = []
    for pool, group, leaf in members:
        ops += build_ops(snapshot, pool, group, leaf, drive, in_place=in_place)
    prepare = [o for o in ops if o.stage is Stage.PREPARE]
    copies = [o for o in ops if o.kind in (OpKind.SGDISK_REPLICATE, OpKind.SGDISK_NEW_GUIDS)]
    rest = [o for o in ops if o.stage is Stage.REPLACE and o not in copies]
    return (*prepare, *copies[:2], *rest)


def _healthy_source(snapshot: HostSnapshot, group: Vdev, drive: Drive) -> str | None:
    for _, node in group.walk():
        other = snapshot.drive(node.drive) if node.drive and node.drive != drive.key else None
        if other is not None and node.state is PoolState.ONLINE:
            return stable_disk(other)
    return None


def _new_member(partition: int | None) -> str:
    return f"{NEW}-part{partition}" if partition is not None else NEW


def _failing(leaf: Vdev, drive: Drive) -> bool:
    errors = (leaf.read_errors or 0) + (leaf.write_errors or 0) + (leaf.checksum_errors or 0)
    return errors > 0 or drive.smart_passed is False or leaf.state is not PoolState.ONLINE


def build_ops(
    snapshot: HostSnapshot, pool: Pool, group: Vdev, leaf: Vdev, drive: Drive, *, in_place: bool
) -> tuple[Op, ...]:
    """The writes, in order, for replacing `leaf` (on `drive`) of `pool`."""
    part = member_partition(leaf.name, drive)
    source = _healthy_source(snapshot, group, drive)
    copy_table: tuple[Op, ...] = ()
    if part is not None and source is not None and (pool.kind is PoolKind.MDRAID or part > 1):
        copy_table = (
            Op(
                OpKind.SGDISK_REPLICATE,
                Stage.REPLACE,
                "",
                new=NEW,
                source=source,
                why="copy the partition table of a healthy member",
            ),
            Op(
                OpKind.SGDISK_NEW_GUIDS,
                Stage.REPLACE,
                "",
                new=NEW,
                why="give the copy its own GUIDs",
            ),
        )
    if pool.kind is PoolKind.ZFS:
        new = _new_member(part) if copy_table else NEW
        offline = Op(
            OpKind.ZPOOL_OFFLINE, Stage.PREPARE, pool.name, leaf.name, why="take it out of service"
        )
        prepare: tuple[Op, ...] = (
            () if in_place or leaf.state is not PoolState.ONLINE else (offline,)
        )
        replace = Op(
            OpKind.ZPOOL_REPLACE,
            Stage.REPLACE,
            pool.name,
            leaf.name,
            new,
            why="resilver onto the new drive" + (" with the old one still in" if in_place else ""),
        )
        return (*prepare, *copy_table, replace)
    if pool.kind is PoolKind.MDRAID:
        return _md_ops(pool, leaf, drive, part, copy_table, in_place=in_place)
    missing = leaf.name.startswith("devid ")
    old = leaf.name.removeprefix("devid ") if missing else stable_disk(drive) or leaf.name
    mount = pool.mountpoint or pool.name
    return (
        Op(
            OpKind.BTRFS_REPLACE,
            Stage.REPLACE,
            mount,
            old,
            NEW,
            force=_failing(leaf, drive),
            why="copy its chunks to the new drive (-r: read the old one only when no other copy)",
        ),
    )


def _md_ops(
    pool: Pool,
    leaf: Vdev,
    drive: Drive,
    part: int | None,
    copy_table: tuple[Op, ...],
    *,
    in_place: bool,
) -> tuple[Op, ...]:
    array = f"/dev/{pool.name}"
    disk = stable_disk(drive)
    old = (
        f"{disk}-part{part}" if disk and part and disk.startswith("/dev/disk/") else disk
    ) or leaf.name
    new = _new_member(part)
    add = Op(OpKind.MD_ADD, Stage.REPLACE, array, new=new, why="add the new member (as a spare)")
    if in_place:
        swap = Op(
            OpKind.MD_REPLACE,
            Stage.REPLACE,
            array,
            old,
            new,
            why="copy onto it while the old member stays in the array",
        )
        return (*copy_table, add, swap)
    fail = Op(OpKind.MD_FAIL, Stage.PREPARE, array, old, why="mark it failed")
    remove = Op(OpKind.MD_REMOVE, Stage.PREPARE, array, old, why="remove it from the array")
    prepare: tuple[Op, ...] = () if leaf.state is PoolState.UNAVAIL else (fail, remove)
    return (*prepare, *copy_table, add)
