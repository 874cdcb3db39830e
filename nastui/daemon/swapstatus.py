"""The swap in progress as `nastui status` shows it, and where a source keeps its swap.

Light on purpose: `status` runs from cron and monitoring agents, so this reads the swap file and
advances a copy on the snapshot (pure), without the swap's write side or the guard's probes.
"""

from __future__ import annotations

import functools
import os
import tempfile
from pathlib import Path

from nastui.control.swapstore import SwapStore
from nastui.core.statefiles import state_dir
from nastui.core.swapstate import advance
from nastui.model import HostSnapshot
from nastui.session import Session
from nastui.sim import SimBackend


def swap_dir(session: Session) -> Path:
    """The state directory the swap of this source is kept in: the demo's own state directory
    on the simulator (never the machine's), or a directory of this process's when the demo
    keeps no state (no HOME, XDG_STATE_HOME or NASTUI_STATE_DIR: tests, screenshots)."""
    if isinstance(session.backend, SimBackend):
        if session.state_dir is not None:
            return session.state_dir
        return _scratch()
    return state_dir(os.environ, os.geteuid())


@functools.cache
def _scratch() -> Path:
    return Path(tempfile.mkdtemp(prefix="nastui-demo-"))


def status_view(session: Session, snapshot: HostSnapshot) -> tuple[list[str], bool]:
    """Lines on the swap in progress (none without one) and whether it is CRITICAL (a wrong
    pull, another member down). Reads the swap file, writes nothing."""
    try:
        swap = SwapStore(swap_dir(session)).load()
    except OSError:
        return ["swap: the swap file cannot be read: `nastui swap` says why"], False
    if swap is None or not swap.active:
        return [], False
    moved = advance(swap, snapshot)
    lines = [f"CRITICAL WRONG DRIVE PULLED: {w}: put it back now" for w in moved.wrong_pulls]
    lines += [f"CRITICAL another member of {moved.pool} is down: {f}" for f in moved.failures]
    lines.append(f"swap in progress: {moved.old.label}, {moved.phase.value} (`nastui swap`)")
    return lines, bool(moved.wrong_pulls or moved.failures)
