"""One-off events from two consecutive snapshots of a host (pure): a rebuild that finished, a
scrub that finished with errors. They are news once, so they come as EVENT notices, not as
standing alerts.

A pool's scan is "finished" when the current snapshot shows a finished scan that the previous
one did not show as the same finished scan (a scan that ran between two polls counts too), or,
for md (whose /proc/mdstat forgets a recovery once it is done), when a running rebuild vanished
and the array is no longer degraded. Without a previous snapshot (a restart) nothing is an
event: the daemon must not re-send what it may have sent before.
"""

from __future__ import annotations

from collections.abc import Iterator

from nastui.core.units import duration
from nastui.model import (
    Alert,
    Health,
    HostSnapshot,
    Notice,
    NoticeKind,
    Pool,
    PoolState,
    ScanKind,
    ScanProgress,
    ScanState,
    Subject,
)

REBUILDS = frozenset({ScanKind.RESILVER, ScanKind.REPLACE, ScanKind.RECOVERY})
CHECKS = frozenset({ScanKind.SCRUB, ScanKind.CHECK, ScanKind.REPAIR})
_ACTIVE = frozenset({ScanState.RUNNING, ScanState.PAUSED, ScanState.PENDING})


def _same(a: ScanProgress, b: ScanProgress) -> bool:
    return (a.kind, a.state, a.started_at, a.ended_at) == (
        b.kind,
        b.state,
        b.started_at,
        b.ended_at,
    )


def _newly_finished(before: Pool, after: Pool) -> ScanProgress | None:
    """The scan that finished between `before` and `after`, if one did."""
    scan = after.scan
    if scan is not None and scan.state is ScanState.FINISHED:
        old = before.scan
        return None if old is not None and _same(old, scan) else scan
    old = before.scan
    if old is None or old.state not in _ACTIVE or old.kind not in REBUILDS:
        return None
    vanished = scan is None or scan.kind is not old.kind
    # md: a finished recovery leaves /proc/mdstat; whole again means it finished
    return old if vanished and after.state is PoolState.ONLINE else None


def _took(scan: ScanProgress, now: float) -> str:
    if scan.state is ScanState.FINISHED and scan.duration is not None:
        return f" in {duration(scan.duration)}"
    if scan.state is not ScanState.FINISHED and scan.started_at is not None:
        return f" in about {duration(now - scan.started_at)}"
    return ""


def _errors(scan: ScanProgress) -> str:
    if scan.errors is None:
        return ""
    return f" with {scan.errors} error(s)"


def _event(host: str, pool: Pool, scan: ScanProgress, now: float) -> Alert | None:
    errors = scan.errors or 0
    if scan.kind in REBUILDS:
        health = Health.WARNING if errors else Health.OK
        text = f"{scan.kind.value} finished{_took(scan, now)}{_errors(scan)}"
        if pool.state is not PoolState.ONLINE:
            text += f"; pool still {pool.state.value}"
            health = Health.WARNING
        key = "rebuild-finished"
    elif scan.kind in CHECKS and errors:
        health = Health.WARNING
        text = f"{scan.kind.value} finished{_took(scan, now)}{_errors(scan)}"
        key = "scrub-errors"
    else:
        return None
    alert_key = f"pool:{pool.name}:{key}"
    return Alert(
        alert_key, health, Subject.POOL, pool.name, text, now, value=scan.errors, host=host
    )


def _pool_events(previous: HostSnapshot, current: HostSnapshot, now: float) -> Iterator[Alert]:
    before = {(p.kind, p.name): p for p in previous.pools}
    for pool in current.pools:
        old = before.get((pool.kind, pool.name))
        if old is None:
            continue  # new pool (or the last poll failed): nothing to compare with
        scan = _newly_finished(old, pool)
        if scan is not None:
            alert = _event(current.host, pool, scan, now)
            if alert is not None:
                yield alert


def events(previous: HostSnapshot | None, current: HostSnapshot, now: float) -> tuple[Notice, ...]:
    """EVENT notices for what happened between `previous` and `current` (none without
    `previous`): a resilver, replace or md recovery that finished (with its duration and errors
    where known), a scrub or check that finished with errors.

    Args:
        previous: the host's snapshot before, or None after a restart.
        current: the host's snapshot now.
        now: current Unix time.
    """
    if previous is None:
        return ()
    return tuple(Notice(NoticeKind.EVENT, a, now) for a in _pool_events(previous, current, now))


def same_for_events(before: HostSnapshot | None, after: HostSnapshot) -> bool:
    """Whether `events` reads the same of both snapshots (their pools), so keeping `before` as
    the previous snapshot instead of `after` changes no event."""
    return before is not None and before.pools == after.pools
