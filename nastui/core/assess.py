"""Turn a raw snapshot into an assessed one: drive verdicts filled in, alerts derived (pure).

Alert names say where the thing is ("bay 13 sdk"), messages say what is wrong, so an operator
reading `nastui status` at 2 a.m. knows which drive to pull and why.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping

from nastui.core.health import drive_verdict
from nastui.model import (
    Alert,
    Drive,
    Health,
    HostSnapshot,
    Pool,
    PoolKind,
    PoolState,
    ScanState,
    Subject,
    Thresholds,
)

_POOL_STATE_HEALTH = {
    PoolState.ONLINE: Health.OK,
    PoolState.DEGRADED: Health.WARNING,
    PoolState.FAULTED: Health.CRITICAL,
    PoolState.UNAVAIL: Health.CRITICAL,
    PoolState.SUSPENDED: Health.CRITICAL,
    PoolState.REMOVED: Health.CRITICAL,
    PoolState.OFFLINE: Health.WARNING,
    PoolState.UNKNOWN: Health.UNKNOWN,
}
_DAY = 86400.0


def drive_place(snapshot: HostSnapshot, drive: Drive) -> str:
    """Where a drive is, for messages: "bay 13 sdk", or just "sdk" when in no bay."""
    bay = snapshot.bay_of(drive.key)
    return f"bay {bay} {drive.dev}" if bay is not None else drive.dev


def _drive_alerts(snapshot: HostSnapshot, now: float) -> Iterator[Alert]:
    for drive in snapshot.drives:
        verdict = drive.verdict
        if verdict.health is Health.OK:
            continue
        ident = drive.identity
        who = " ".join(p for p in (ident.model, ident.serial) if p)
        yield Alert(
            key=f"drive:{drive.key}",
            health=verdict.health,
            subject=Subject.DRIVE,
            name=drive_place(snapshot, drive),
            message=f"{who}: {verdict.summary}" if who else verdict.summary,
            since=now,
        )


def _bay_alerts(snapshot: HostSnapshot, now: float) -> Iterator[Alert]:
    for slot in snapshot.slots:
        if slot.expected and slot.drive is None:
            yield Alert(
                key=f"bay:{slot.bay}:missing",
                health=Health.CRITICAL,
                subject=Subject.BAY,
                name=f"bay {slot.bay}",
                message=f"configured drive ({slot.wanted or 'unknown'}) not found: "
                "pulled, dead, or not detected by the controller",
                since=now,
            )


def _scrub_age_alert(pool: Pool, limits: Thresholds, now: float) -> Alert | None:
    if pool.scan is not None and pool.scan.state in (ScanState.RUNNING, ScanState.PAUSED):
        return None
    last = pool.last_scrub
    if last is None:
        if pool.kind is PoolKind.MDRAID:
            return None  # md keeps no record of when a check last completed
        text = "no completed scrub on record"
    elif last.ended_at is not None and now - last.ended_at > limits.scrub_max_age_days * _DAY:
        text = (
            f"last scrub finished {(now - last.ended_at) / _DAY:.0f} days ago "
            f"(limit {limits.scrub_max_age_days:.0f} days)"
        )
    else:
        return None
    return Alert(f"pool:{pool.name}:scrub-age", Health.WARNING, Subject.POOL, pool.name, text, now)


def _pool_findings(pool: Pool) -> Iterator[tuple[str, Health, str]]:
    state_health = _POOL_STATE_HEALTH.get(pool.state, Health.UNKNOWN)
    if state_health is not Health.OK:
        yield "state", state_health, f"pool {pool.state.value}"
    if pool.error_files:
        yield "files", Health.CRITICAL, f"permanent errors in {len(pool.error_files)} file(s)"
    elif pool.error_count:
        message = f"{pool.error_count} data errors (zpool status -v lists them)"
        yield "files", Health.CRITICAL, message
    scan = pool.scan
    if scan is not None and scan.errors:
        yield "scan", Health.WARNING, f"{scan.kind.value} found {scan.errors} error(s)"
    for _, vdev in pool.root.walk():
        counts = (vdev.read_errors or 0, vdev.write_errors or 0, vdev.checksum_errors or 0)
        if not vdev.children and any(counts):
            yield (
                f"vdev:{vdev.name}",
                Health.WARNING,
                f"{vdev.name}: READ {counts[0]} WRITE {counts[1]} CKSUM {counts[2]}",
            )


def _pool_alerts(snapshot: HostSnapshot, limits: Thresholds, now: float) -> Iterator[Alert]:
    for pool in snapshot.pools:
        for key, health, text in _pool_findings(pool):
            yield Alert(f"pool:{pool.name}:{key}", health, Subject.POOL, pool.name, text, now)
        age = _scrub_age_alert(pool, limits, now)
        if age is not None:
            yield age


def _fan_alerts(snapshot: HostSnapshot, now: float) -> Iterator[Alert]:
    for fan in snapshot.fans:
        if fan.stalled:
            yield Alert(
                f"fan:{fan.name}:stalled",
                Health.CRITICAL,
                Subject.FAN,
                fan.name,
                f"0 RPM at {fan.duty_percent:.0f}% duty: fan dead or unplugged",
                now,
            )


def _error_alerts(snapshot: HostSnapshot, now: float) -> Iterator[Alert]:
    for error in snapshot.errors:
        yield Alert(
            f"collect:{error.source}",
            Health.UNKNOWN,
            Subject.HOST,
            error.source,
            error.message,
            now,
        )


def assess(
    snapshot: HostSnapshot,
    limits: Thresholds,
    now: float,
    baselines: Mapping[str, Mapping[int, int]] | None = None,
) -> HostSnapshot:
    """`snapshot` with every drive's verdict filled in and its alerts derived, worst first.

    Args:
        snapshot: raw collector output.
        limits: configured thresholds.
        now: current Unix time.
        baselines: `Drive.key` -> first-seen raw attribute values, for growth reporting.
    """
    known = baselines or {}
    drives = tuple(
        dataclasses.replace(d, verdict=drive_verdict(d, limits, now, known.get(d.key)))
        for d in snapshot.drives
    )
    assessed = dataclasses.replace(snapshot, drives=drives)
    alerts = [
        *_drive_alerts(assessed, now),
        *_bay_alerts(assessed, now),
        *_pool_alerts(assessed, limits, now),
        *_fan_alerts(assessed, now),
        *_error_alerts(assessed, now),
    ]
    alerts.sort(key=lambda a: -a.health.rank)
    return dataclasses.replace(assessed, alerts=tuple(alerts))


def overall(snapshot: HostSnapshot) -> Health:
    """The host's state: the worst unacknowledged alert, OK when there is none."""
    result = Health.OK
    for alert in snapshot.alerts:
        if not alert.acknowledged and alert.health.rank > result.rank:
            result = alert.health
    return result
