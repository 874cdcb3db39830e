"""The swap in progress as `nastui status` shows it and the daemon alerts on it, and where a
source keeps its swap.

Light on purpose: `status` runs from cron and monitoring agents, so this reads the swap file and
advances a copy on the snapshot (pure), without the swap's write side or the guard's probes.
"""

from __future__ import annotations

import dataclasses
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from nastui.core.ack import apply_alert_acks
from nastui.model import Alert, HostSnapshot
from nastui.session import Session
from nastui.swap.io.store import SwapStore
from nastui.swap.logic.alerts import with_swap_alerts
from nastui.swap.logic.state import Swap, SwapPhase, advance


def swap_dir(session: Session) -> Path:
    """The state directory the swap of this source is kept in: the session's (the machine's,
    or the demo's own, never the machine's), or a directory of this process's when the demo
    keeps no state (no HOME, XDG_STATE_HOME or NASTUI_STATE_DIR: tests, screenshots), made
    when a swap is first written there."""
    kept = _kept_dir(session)
    if kept is not None:
        return kept
    _SCRATCH.append(Path(tempfile.mkdtemp(prefix="nastui-demo-")))
    return _SCRATCH[0]


# A stateless demo's swap lives for the process only: its directory, once one is written.
_SCRATCH: list[Path] = []


def _kept_dir(session: Session) -> Path | None:
    """Where a swap of this source may already be kept; None for a stateless demo that has not
    written one, so readers (`status`, every daemon cycle) never make a directory."""
    if session.state_dir is not None:
        return session.state_dir
    return _SCRATCH[0] if _SCRATCH else None


def _kept_swap(session: Session, snapshot: HostSnapshot) -> tuple[Swap | None, str | None]:
    """The swap running on this source as `nastui swap` would show it now: advanced on
    `snapshot` (a copy, nothing written; None without a running swap), and the store's notice
    (a swap read from the backup of an emptied file), None when there is none.

    Raises:
        OSError: the swap file cannot be read.
    """
    kept = _kept_dir(session)
    if kept is None:
        return None, None
    store = SwapStore(kept)
    swap = store.load()
    notice = f"swap: {store.notice}" if store.notice else None
    return (advance(swap, snapshot) if swap is not None and swap.active else None), notice


class Pointers(NamedTuple):
    """Where a swap's lines send the operator: to the swap (which says why and what may have
    run), and to the abort that undoes a prepared swap."""

    show: str
    undo: str


COMMANDS = Pointers("`nastui swap`", "`nastui swap abort`")
"""The commands, for `status`; the interface names its own keys."""


def swap_view(
    session: Session, snapshot: HostSnapshot, pointers: Pointers = COMMANDS
) -> tuple[HostSnapshot, list[str], bool]:
    """For `status` and the interface: `snapshot` with its alerts as the swap in progress
    explains them, with the same keys the daemon sends (`with_swap_alerts`: the swap's own bay
    is a WARNING, not a missing drive; a wrong pull is `swap:wrong-pull:N`, not `bay:N:missing`),
    the swap's lines (sending the operator to `pointers`), and whether it is CRITICAL. Reads
    the swap file once, writes nothing."""
    try:
        moved, notice = _kept_swap(session, snapshot)
    except OSError:
        return snapshot, [f"swap: the swap file cannot be read: {pointers.show} says why"], False
    notes = [notice] if notice else []
    if moved is None:
        return snapshot, notes, False
    lines = notes + [
        f"CRITICAL WRONG DRIVE PULLED: {w}: put it back now" for w in moved.wrong_pulls
    ]
    lines += [f"CRITICAL another member of {moved.pool} is down: {f}" for f in moved.failures]
    if moved.phase is SwapPhase.PREPARING:
        lines.append(
            f"swap INTERRUPTED while preparing: {moved.old.label}: {pointers.show} says what "
            f"may have run, {pointers.undo} undoes it"
        )
    else:
        lines.append(f"swap in progress: {moved.old.label}, {moved.phase.value} ({pointers.show})")
    explained = with_swap_alerts(snapshot.alerts, moved, snapshot)
    if explained != list(snapshot.alerts):  # the swap's own alerts acknowledged as the daemon's
        acks = session.every_alert_ack()
        explained = list(apply_alert_acks(explained, acks, snapshot.taken_at))
        ranked = tuple(sorted(explained, key=lambda a: -a.health.rank))
        snapshot = dataclasses.replace(snapshot, alerts=ranked)
    return snapshot, lines, bool(moved.wrong_pulls or moved.failures)


def alerts_with_swap(
    session: Session, snapshot: HostSnapshot, alerts: Sequence[Alert]
) -> tuple[list[Alert], str | None]:
    """The daemon's alerts with the swap's emergencies (`nastui.swap.logic.alerts`): a wrong
    pull, another member down; their text tells the swap as it stands on `snapshot` (as
    `nastui swap` shows it now). Reads the swap file, writes nothing; a swap file that cannot be
    read leaves the alerts as they are and says why, and a swap read from the backup of an
    emptied file says so (the second item, None when all is well)."""
    try:
        moved, notice = _kept_swap(session, snapshot)
    except OSError as exc:
        return list(alerts), f"swap: {exc}"
    if moved is None:
        return list(alerts), notice
    return with_swap_alerts(alerts, moved, snapshot), notice


def swap_records(session: Session) -> list[dict[str, Any]]:
    """The finished swaps of this source, oldest first (none when the log cannot be read:
    `nastui swap log` says why)."""
    kept = _kept_dir(session)
    try:
        return SwapStore(kept).log() if kept is not None else []
    except OSError:
        return []
