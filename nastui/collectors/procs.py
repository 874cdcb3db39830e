"""Which `nastui fand` processes run, from /proc/PID/cmdline (read only, bounded).

`nastui fans` says who drives a fan: a hwmon channel in manual mode is nastui's when a fand
runs, someone else's otherwise. A fand is a process whose arguments name nastui (the console
script, `python -m nastui`) and then the word `fand`; `fand --full-speed` sets the fans once
and exits, so it does not count. Under `--root` the tree's own proc is read; a tree without
process directories (a capture bundle, a fake /sys) cannot tell, which is None, not "none".

Sample /proc/812/cmdline (NUL-separated): /usr/bin/python3 /usr/local/bin/nastui fand
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from nastui.collectors.sysfs import list_names
from nastui.core.cmdline import command_of
from nastui.safeio import read_bounded

CMDLINE_LIMIT = 16 * 1024  # an argument list; a longer one is not a fand's
MAX_PROCESSES = 100_000


def is_fand(argv: Sequence[str]) -> bool:
    """Whether an argument list is a running `nastui fand` (not `fand --full-speed`)."""
    for i, word in enumerate(argv):
        if Path(word).name == "nastui":
            rest = argv[i + 1 :]
            return command_of(rest) == "fand" and "--full-speed" not in rest
    return False


def _argv(path: Path) -> list[str] | None:
    try:
        raw = read_bounded(path, CMDLINE_LIMIT)
    except OSError:
        return None
    return [w.decode("utf-8", "replace") for w in raw.split(b"\0") if w]


def fand_pids(root: Path = Path("/")) -> tuple[int, ...] | None:
    """The pids of the running `nastui fand` processes under `root`, in order; None when the
    tree has no process directories to tell by."""
    pids = [int(n) for n in list_names(root / "proc")[:MAX_PROCESSES] if n.isdigit()]
    if not pids:
        return None
    found = []
    for pid in sorted(pids):
        argv = _argv(root / "proc" / str(pid) / "cmdline")
        if argv is not None and is_fand(argv):
            found.append(pid)
    return tuple(found)
