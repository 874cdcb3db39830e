"""Under `--root DIR`, nothing is ever run against this machine's own devices.

`--root` reads a tree captured from another box (or a test tree): its drives are files under
DIR, not this machine's disks. Every program nastui runs for such a session goes through
`confined(run, root)`, which refuses, without running it, any command line that names a device
of this machine: an argument (or the value after `NAME=`) that is a path under /dev outside
the tree, or any path that is a block or character device node (a node made inside the tree
reaches the same disk). The refusal is an ordinary `CommandResult` (126, and `error` naming
the path), so every caller handles it the way it handles a tool that cannot run.

The commands that name no device but talk to this machine's hardware (RAID controller tools,
the BMC, self-tests) are not started under a root at all; their call sites say so.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from nastui.collectors.runner import CommandResult

RunFn = Callable[..., Awaitable[CommandResult]]


def foreign_device(argv: Sequence[str], root: Path) -> str | None:
    """The first argument of `argv` that names a device of this machine (see the module
    docstring), or None."""
    top = os.path.realpath(root)
    for arg in argv[1:]:
        for path in {arg, arg.partition("=")[2]}:
            if not path.startswith("/"):
                continue
            real = os.path.realpath(path)
            inside = real == top or real.startswith(top + os.sep)
            if not inside and (real == "/dev" or real.startswith("/dev/")):
                return path
            try:
                mode = Path(real).stat().st_mode
            except OSError:
                continue
            if stat.S_ISBLK(mode) or stat.S_ISCHR(mode):
                return path
    return None


def confined(run: RunFn, root: Path) -> RunFn:
    """`run`, refusing command lines that name this machine's devices (`foreign_device`)."""

    async def guarded(argv: Sequence[str], **kwargs: Any) -> CommandResult:
        path = foreign_device(argv, root)
        if path is None:
            return await run(argv, **kwargs)
        why = f"not run under --root {root}: {path} is a device of this machine"
        return CommandResult(tuple(argv), 126, "", "", 0.0, error=why)

    return guarded


def is_other_box(root: Path) -> bool:
    """The session reads a tree, not this machine ("/")."""
    return os.path.realpath(root) != "/"
