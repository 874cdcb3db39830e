"""The argument lists of a swap's writes, and running them in order (the write side).

`argv_for(op)` is pure: one tuple per `nastui.swap.logic.names.Op`, asserted as tuples in the
tests. `run_ops` runs them through the runner the front end hands in (the one subprocess
chokepoint, `nastui.collectors.runner.run`), stopping at the first failure; nothing runs with
the placeholder still in it, and every path must be a stable name (never /dev/sdX).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from nastui.control.runproto import Runner, RunResult
from nastui.swap.logic.names import NEW, Op, OpKind, kernel_name

REPLACE_TIMEOUT_S = 120.0


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


def _line(result: RunResult) -> str:
    lines = (result.stderr.strip() or result.stdout.strip()).splitlines()
    return lines[-1].strip() if lines else result.describe()


async def run_ops(
    ops: Sequence[Op], run: Runner, *, timeout: float = REPLACE_TIMEOUT_S
) -> list[Ran]:
    """Run the operations in order; stop at the first that fails or is unsafe."""
    done: list[Ran] = []
    for op in ops:
        argv = argv_for(op)
        why = unsafe(argv)
        if why is not None:
            done.append(Ran(argv, False, why))
            break
        # `btrfs replace start` leaves a child running the replace, holding its output open
        background = op.kind is OpKind.BTRFS_REPLACE
        result = await run(argv, timeout=timeout, leaves_child=background)
        done.append(Ran(argv, result.ok, _line(result) if not result.ok else "done"))
        if not result.ok:
            break
    return done
