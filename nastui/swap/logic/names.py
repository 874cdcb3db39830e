"""Stable device names for swap commands, and the operations a swap runs (pure).

Commands never name a drive by its kernel name (sdc moves on reboot): the new drive and any
member nastui names itself go by /dev/disk/by-vdev, else /dev/disk/by-id; a loop device (the
tests) keeps /dev/loopN. `Op` is one write a swap makes; `nastui.swap.logic.argv` turns it into
the argument list, and the plan prints those.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from nastui.model import Drive

NEW = "<new>"
"""Placeholder for the new drive's stable path in a planned command."""

# Sample: sdc  sdc1  nvme0n1  nvme0n1p2  vdb  xvda1  mmcblk0p1
_KERNEL = re.compile(r"^(sd[a-z]+|hd[a-z]+|vd[a-z]+|xvd[a-z]+|nvme\d+n\d+|mmcblk\d+)(p?\d+)?$")
# Sample: ata-HGST_HUS724040ALA640_PK2334PBHDJ2SR-part1
_BY_ID_PART = re.compile(r"^(?P<disk>.+)-part(?P<n>\d+)$")


def kernel_name(name: str) -> bool:
    """True for a kernel disk or partition name that may move on reboot ("sdc", "nvme0n1p1")."""
    return _KERNEL.match(name.removeprefix("/dev/")) is not None


def stable_disk(drive: Drive) -> str | None:
    """The drive's stable path: by-vdev, else by-id, else a non-moving kernel name (loop)."""
    if drive.by_vdev:
        return f"/dev/disk/by-vdev/{drive.by_vdev}"
    if drive.by_id:
        return f"/dev/disk/by-id/{drive.by_id[0]}"
    if drive.dev and not kernel_name(drive.dev):
        return f"/dev/{drive.dev}"
    return None


def partition_path(disk: str, number: int) -> str:
    """A partition of a disk named by `stable_disk` (by-id "-partN", loop "pN")."""
    if disk.startswith("/dev/disk/"):
        return f"{disk}-part{number}"
    return f"{disk}p{number}"


def member_partition(leaf_name: str, drive: Drive | None) -> int | None:
    """The partition number a pool member uses on its drive, None for the whole disk.

    "sdc1" on sdc is 1; "ata-X-part3" is 3; "sdc", "loop3" or a by-id name alone is None.
    """
    name = leaf_name.removeprefix("/dev/").removeprefix("disk/by-id/")
    match = _BY_ID_PART.match(name)
    if match is not None:
        return int(match.group("n"))
    if drive is not None and name in (drive.dev, *drive.by_id, drive.by_vdev):
        return None
    if drive is not None and name.startswith(drive.dev) and name != drive.dev:
        tail = name[len(drive.dev) :].removeprefix("p")
        return int(tail) if tail.isdigit() else None
    return None


class OpKind(StrEnum):
    """The writes a swap can make."""

    ZPOOL_OFFLINE = "zpool-offline"
    ZPOOL_REPLACE = "zpool-replace"
    MD_FAIL = "md-fail"
    MD_REMOVE = "md-remove"
    MD_ADD = "md-add"
    MD_REPLACE = "md-replace"
    SGDISK_REPLICATE = "sgdisk-replicate"
    SGDISK_NEW_GUIDS = "sgdisk-new-guids"
    BTRFS_REPLACE = "btrfs-replace"
    ZPOOL_ONLINE = "zpool-online"  # undoes an offline (an abort while preparing)
    MD_READD = "md-re-add"  # puts a failed or removed member back (an abort while preparing)


class Stage(StrEnum):
    """When an operation runs: preparing the pull, replacing once the new drive is in, or
    undoing a preparing write (`nastui.swap.logic.undo`)."""

    PREPARE = "prepare"
    REPLACE = "replace"
    UNDO = "undo"  # an abort while preparing: what puts a preparing write back


@dataclass(frozen=True, slots=True)
class Op:
    """One write of a swap.

    Attributes:
        kind: what it does.
        stage: prepare (before the pull), replace (after `--confirm SERIAL`) or undo.
        target: the pool, /dev/mdX or the btrfs mount point.
        old: the old member as the tool knows it (leaf name, GUID, by-id path, btrfs devid).
        new: the new drive or partition; `NEW` (optionally + "-partN") until it is known.
        source: the healthy drive whose partition table is copied (sgdisk).
        force: btrfs `-r` (read from the old device only when no other copy exists).
        why: one line for the plan.
    """

    kind: OpKind
    stage: Stage
    target: str
    old: str = ""
    new: str = ""
    source: str = ""
    force: bool = False
    why: str = ""

    def with_new(self, disk: str) -> Op:
        """This operation with the placeholder replaced by the new drive's stable path."""
        if NEW not in self.new:
            return self
        number = self.new.removeprefix(NEW).removeprefix("-part")
        path = partition_path(disk, int(number)) if number.isdigit() else disk
        return Op(
            self.kind, self.stage, self.target, self.old, path, self.source, self.force, self.why
        )
