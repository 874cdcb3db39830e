"""The argument lists of a swap's writes (pure), and what running one gave (`Ran`).

`argv_for(op)`: one tuple per `nastui.swap.logic.names.Op`, asserted as tuples in the tests.
`unsafe` says why one must not run: the placeholder still in it, or a name that is not stable
(never /dev/sdX). The real machine runs them in `nastui.swap.io.machine`; the simulator plays
them as hands (`nastui.sim.swap`).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from nastui.swap.logic.names import NEW, Op, OpKind, kernel_name


def command_line(op: Op) -> str:
    """The operation as a shell line (quoted: a name with a space stays one word)."""
    return shlex.join(argv_for(op))


def argv_for(op: Op) -> tuple[str, ...]:
    """The command line of one operation."""
    match op.kind:
        case OpKind.ZPOOL_OFFLINE:
            return ("zpool", "offline", op.target, op.old)
        case OpKind.ZPOOL_REPLACE:
            return ("zpool", "replace", op.target, op.old, op.new)
        case OpKind.MD_FAIL:
            return ("mdadm", op.target, "--fail", op.old)
        case OpKind.MD_REMOVE:
            return ("mdadm", op.target, "--remove", op.old)
        case OpKind.MD_ADD:
            return ("mdadm", op.target, "--add", op.new)
        case OpKind.MD_REPLACE:
            return ("mdadm", op.target, "--replace", op.old, "--with", op.new)
        case OpKind.SGDISK_REPLICATE:
            return ("sgdisk", f"--replicate={op.new}", op.source)
        case OpKind.SGDISK_NEW_GUIDS:
            return ("sgdisk", "--randomize-guids", op.new)
        case OpKind.ZPOOL_ONLINE:
            return ("zpool", "online", op.target, op.old)
        case OpKind.MD_READD:  # --add, not --re-add: it re-adds when the bitmap allows,
            return ("mdadm", op.target, "--add", op.old)  # else recovers the member whole
        case OpKind.BTRFS_REPLACE:
            force = ("-r",) if op.force else ()
            return ("btrfs", "replace", "start", *force, op.old, op.new, op.target)


def unsafe(argv: tuple[str, ...]) -> str | None:
    """Why this command must not run: a placeholder left in, or a kernel name that moves."""
    for word in argv[1:]:
        if NEW in word:
            return f"{' '.join(argv)}: the new drive is not known yet"
        if word.startswith("/dev/") and kernel_name(word):
            return f"{word}: a kernel name moves on reboot; nastui names drives by-id"
    return None


@dataclass(frozen=True, slots=True)
class Ran:
    """One command run: its argv, whether it worked, and its last line of output."""

    argv: tuple[str, ...]
    ok: bool
    line: str
