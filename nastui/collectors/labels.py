"""On-disk labels at every offset their formats use, found in the first and last 512 KiB (pure).

blkid and wipefs give up on an ambivalent device or look only where a probe expects the first
copy; RAID and volume managers also put labels at the end or at sector 1. `find_labels` looks for
the magic numbers themselves, wherever each format may keep one:

| format | where | magic |
|---|---|---|
| md 0.90 | last 64 KiB-aligned 64 KiB block | 0xa92b4efc, major 0 (either byte order) |
| md 1.0 / 1.1 / 1.2 | 8 KiB before the end (4 KiB-aligned) / 0 / 4 KiB | 0xa92b4efc LE, major 1 |
| LVM2 PV | sector 0, 1, 2 or 3 | "LABELONE" ... "LVM2 001" |
| ZFS | labels at 0, 256 KiB, end - 512 KiB, end - 256 KiB (end 256 KiB-aligned) | uberblock |
| bcache | 4 KiB + 24 | c6 85 73 f6 4e 1a 45 ca 82 65 f5 7f 48 ba 6d 81 |
| LUKS | 0 (and LUKS2's second header at 16 KiB..4 MiB) | "LUKS\\xba\\xbe" / "SKUL\\xba\\xbe" |
| dm-integrity, dm-verity | 0 | "integrt", "verity\\0\\0" |
| swap | page size - 10 (4..64 KiB pages) | "SWAPSPACE2", "SWAP-SPACE" |
| GPT | sector 1, last sector | "EFI PART" |
| btrfs | 64 KiB + 64 | "_BHRfS_M" |

(a ZFS uberblock: 0x00bab10c in either byte order, in the ring 128 KiB into a label; the pool's
name is the `name` pair of the XDR-encoded nvlist 16 KiB into it, `vdev_label.c`).

`zfs_pool_of` names the pool of a device laid over the target (a partition of a whole-disk ZFS
vdev), read through the target at that device's offset: the same fixed offsets, relative to it.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass

from nastui.collectors.zfs.nvlist import packed_string
from nastui.core.footprint import Window
from nastui.model.errors import ParseError

KIB = 1024
EDGE = 512 * KIB  # read at each end
MD_MAGIC = 0xA92B4EFC
ZFS_UBER_MAGIC = 0x00BAB10C
BCACHE_MAGIC = bytes.fromhex("c68573f64e1a45ca8265f57f48ba6d81")
# vdev_label_t: 8 KiB blank, 8 KiB boot header, the nvlist (112 KiB less its 40-byte checksum)
ZFS_NVLIST = (16 * KIB, 112 * KIB - 40)
ReadAt = Callable[[int, int], bytes]


def _u32(data: bytes, at: int, order: str) -> int | None:
    return struct.unpack_from(f"{order}I", data, at)[0] if at + 4 <= len(data) else None


def _md(read: ReadAt, size: int) -> list[str]:
    found = []
    for version, at in (("1.1", 0), ("1.2", 4 * KIB), ("1.0", ((size >> 9) - 16 & ~7) << 9)):
        block = read(at, 8) if at >= 0 else b""
        if _u32(block, 0, "<") == MD_MAGIC and _u32(block, 4, "<") == 1:
            found.append(f"md {version} superblock at {at}")
    at = (size & ~(64 * KIB - 1)) - 64 * KIB
    block = read(at, 8) if at >= 0 else b""
    for order in "<>":
        if _u32(block, 0, order) == MD_MAGIC and _u32(block, 4, order) == 0:
            found.append(f"md 0.90 superblock at {at}")
            break
    return found


def _lvm(head: bytes) -> list[str]:
    return [
        f"LVM2 label at sector {sector}"
        for sector in range(4)
        if head[sector * 512 : sector * 512 + 8] == b"LABELONE"
        and head[sector * 512 + 24 : sector * 512 + 32] == b"LVM2 001"
    ]


def zfs_label_offsets(size: int) -> tuple[int, ...]:
    """Where ZFS keeps its four 256 KiB labels on a device of `size` bytes."""
    end = size & ~(256 * KIB - 1)
    return (0, 256 * KIB, end - 512 * KIB, end - 256 * KIB)


@dataclass(frozen=True, slots=True)
class ZfsLabels:
    """A device's ZFS labels: (number, offset) of each that holds an uberblock, and the pool's
    name from the first of them whose nvlist names one (None: none does, as a spare's or a
    cache device's, or none can be read)."""

    found: tuple[tuple[int, int], ...] = ()
    pool: str | None = None


def _has_uberblock(read: ReadAt, label: int) -> bool:
    ring = read(label + 128 * KIB, 128 * KIB)
    for slot in range(0, len(ring) - 7, KIB):
        word = ring[slot : slot + 8]
        if ZFS_UBER_MAGIC in struct.unpack("<Q", word) + struct.unpack(">Q", word):
            return True
    return False


def _pool_name(read: ReadAt, label: int) -> str | None:
    """The `name` in the label's list, printable (anything else as "?"), at most 256
    characters (ZFS's own bound): a label is whatever the disk holds, and this goes to a
    terminal."""
    start, length = ZFS_NVLIST
    try:
        name = packed_string(read(label + start, length), "name", f"ZFS label at {label}")
    except ParseError:
        return None
    return None if name is None else "".join(c if c.isprintable() else "?" for c in name[:256])


def zfs_labels(read: ReadAt, size: int) -> ZfsLabels:
    """The ZFS labels of a device of `size` bytes (reads at their four offsets only)."""
    found = tuple(
        (number, label)
        for number, label in enumerate(zfs_label_offsets(size))
        if label >= 0 and _has_uberblock(read, label)
    )
    names = (_pool_name(read, label) for _, label in found)
    return ZfsLabels(found, next((name for name in names if name), None))


def _zfs(read: ReadAt, size: int) -> list[str]:
    labels = zfs_labels(read, size)
    pool = f" (pool {labels.pool})" if labels.pool else ""
    return [f"ZFS label {number} at {label}{pool}" for number, label in labels.found]


def zfs_pool_of(read: ReadAt, size: int, window: Window) -> str | None:
    """The ZFS user of `window` (a device laid over the target, whose bytes `read` and `size`
    give), in words: "ZFS pool labz (vdev sdb1, its labels 0, 1, 2, 3)"; None when no label of
    its shows through the target (none there, a window of unknown size, or beyond the end)."""
    length = window.size
    if length is None:
        return None

    def inside(at: int, count: int) -> bytes:
        where = window.at + at
        if where < 0 or at + count > length or where >= size:
            return b""
        return read(where, count)

    labels = zfs_labels(inside, length)
    if not labels.found:
        return None
    numbers = ", ".join(str(number) for number, _ in labels.found)
    which = f"label{'s' if len(labels.found) > 1 else ''} {numbers}"
    if labels.pool is None:
        return f"ZFS {which} on {window.name} (no pool name in them)"
    return f"ZFS pool {labels.pool} (vdev {window.name}, its {which})"


def _fixed(head: bytes, read: ReadAt, size: int) -> list[str]:
    found = []
    checks = [
        ("bcache superblock", 4 * KIB + 24, BCACHE_MAGIC),
        ("LUKS header", 0, b"LUKS\xba\xbe"),
        ("dm-integrity superblock", 0, b"integrt"),
        ("dm-verity superblock", 0, b"verity\0\0"),
        ("GPT header", 512, b"EFI PART"),
        ("btrfs superblock", 64 * KIB + 64, b"_BHRfS_M"),
    ]
    checks += [("LUKS2 second header", k * KIB, b"SKUL\xba\xbe") for k in (16, 32, 64, 128, 256)]
    checks += [
        ("swap signature", page - 10, magic)
        for page in (4 * KIB, 8 * KIB, 16 * KIB, 32 * KIB, 64 * KIB)
        for magic in (b"SWAPSPACE2", b"SWAP-SPACE")
    ]
    for what, at, magic in checks:
        if head[at : at + len(magic)] == magic:
            found.append(f"{what} at {at}")
    last = size - 512
    if last > 512 and read(last, 8) == b"EFI PART":
        found.append(f"GPT backup header at {last}")
    return found


def find_labels(read: ReadAt, size: int) -> list[str]:
    """Every label found ("md 1.0 superblock at 67100672"), empty when none.

    Args:
        read: reads `length` bytes at `offset` (fewer at the end of the device).
        size: the device's size in bytes.
    """
    head = read(0, min(size, EDGE))
    return [*_md(read, size), *_lvm(head), *_zfs(read, size), *_fixed(head, read, size)]
