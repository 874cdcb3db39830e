"""What the swap needs to know of real drives beyond a snapshot: sector sizes and use.

`sectors(root, dev)` reads /sys/block/DEV/queue/{logical,physical}_block_size; `in_use(path)`
is the benchmark guard's inspection (`nastui.collectors.fio_target.inspect_target`: partitions,
holders, mounts, swap, open by a process, signatures and labels at every offset), so a drive
holding anything is never added to a pool. Nothing here writes.
"""

from __future__ import annotations

from pathlib import Path

from nastui.collectors.fio_target import TargetError, inspect_target
from nastui.collectors.sysfs import read_int
from nastui.swap.logic.plan import Sectors


def sectors(root: Path, dev: str) -> Sectors | None:
    """The drive's logical and physical sector sizes; None when sysfs does not say."""
    queue = root / "sys/block" / dev / "queue"
    logical = read_int(queue / "logical_block_size")
    physical = read_int(queue / "physical_block_size")
    if logical is None:
        return None
    return Sectors(logical, physical or logical)


async def in_use(path: str, root: Path) -> tuple[str, ...]:
    """Why the device at `path` is in use (empty: nothing found); an unreadable device counts
    as in use, with the reason."""
    try:
        target = await inspect_target(path, root=root)
    except TargetError as exc:
        return (str(exc),)
    return target.in_use
