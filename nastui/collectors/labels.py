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

(a ZFS uberblock: 0x00bab10c in either byte order, in the ring 128 KiB into a label).
"""

from __future__ import annotations

import struct
from collections.abc import Callable

KIB = 1024
EDGE = 512 * KIB  # read at each end
MD_MAGIC = 0xA92B4EFC
ZFS_UBER_MAGIC = 0x00BAB10C
BCACHE_MAGIC = bytes.fromhex("c68573f64e1a45ca8265f57f48ba6d81")
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


def _zfs(read: ReadAt, size: int) -> list[str]:
    found = []
    for number, label in enumerate(zfs_label_offsets(size)):
        if label < 0:
            continue
        ring = read(label + 128 * KIB, 128 * KIB)
        for slot in range(0, len(ring) - 7, KIB):
            word = ring[slot : slot + 8]
            if ZFS_UBER_MAGIC in struct.unpack("<Q", word) + struct.unpack(">Q", word):
                found.append(f"ZFS label {number} at {label}")
                break
    return found


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
