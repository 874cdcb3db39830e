"""Turn a raw snapshot into an assessed one: drive verdicts filled in, alerts derived (pure).

Alert names say where the thing is ("bay 13 sdk"), messages say what is wrong, so an operator
reading `nastui status` at 2 a.m. knows which drive to pull and why.

The rules, by key (every alert also names its host; `value` is the count where there is one):

- `drive:KEY:FINDING`: one alert per finding of the drive's verdict that is not OK, so
  "Current_Pending_Sector 8" and a temperature over its limit clear separately: FAILED
  assessment ("smart"), SMART counts ("attr:5", 187, 188, 196, 197, 198, CRC 199 on growth),
  NVMe ("nvme:media", "nvme:critical_warning"...), SCSI defects, temperature over warning or
  critical ("temp"); `drive:KEY` for a vendor's keyless status or a bare bad verdict;
  UNKNOWN without SMART data ("no-smart"; while the first read is under way too, which the
  interface shows as the drive being read: `awaiting_smart_keys`);
- `bay:N:missing`; `pool:NAME:state|files|scan|vdev:LEAF|scrub-age|capacity` (capacity: used
  share of usable space at or over `[pools]` limits, the whole percent as its value);
  `fan:NAME:stalled`;
- `ups:NAME:power` (on battery WARNING, battery low CRITICAL, off CRITICAL, bypass WARNING:
  one key, so "on battery" turning into "battery low" is the same alert getting worse) and
  `ups:NAME:battery` (needs replacing, WARNING);
- `collect:SOURCE` (UNKNOWN: what could not be read);
- `host:unreachable` for a fleet host (`fleet_alerts`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, NamedTuple

from nastui.core.ack import apply_alert_acks
from nastui.core.capacity import capacity
from nastui.core.drivepolicy import apply_policy
from nastui.core.health import NO_SMART, drive_verdict, reading_smart
from nastui.core.units import age, duration
from nastui.model import (
    UNASSESSED,
    Acknowledgement,
    Alert,
    Drive,
    Health,
    HostSnapshot,
    Pool,
    PoolKind,
    PoolState,
    Reason,
    ScanState,
    Subject,
    Thresholds,
    Ups,
    UpsStatus,
    Verdict,
    worst,
)

if TYPE_CHECKING:  # a fleet host is assessed only where a fleet is polled
    from nastui.model import FleetHost

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


class _Finding(NamedTuple):
    key: str
    health: Health
    text: str
    value: int | None = None
    acknowledged: bool = False


def _drive_findings(drive: Drive, unacked: Mapping[str, Reason]) -> Iterator[_Finding]:
    """One finding per reason that is not OK, or acknowledged (shown with the health and text
    it had before, from `unacked`: reason key -> the reason without the acknowledgement).
    Keyless reasons (a vendor's own status) and a bad verdict without reasons make one
    `drive:KEY` finding."""
    verdict = drive.verdict
    base = f"drive:{drive.key}"
    keyless = []
    for reason in verdict.reasons:
        if reason.acknowledged:
            was = unacked.get(reason.key)
            health = was.health if was is not None else Health.WARNING
            text = was.text if was is not None else reason.text
            yield _Finding(f"{base}:{reason.key}", health, text, reason.value, True)
        elif reason.health is Health.OK:
            continue
        elif reason.key:
            yield _Finding(f"{base}:{reason.key}", reason.health, reason.text, reason.value)
        else:
            keyless.append(reason)
    if keyless:
        health = worst(r.health for r in keyless)
        yield _Finding(base, health, "; ".join(r.text for r in keyless))
    elif not verdict.reasons and verdict.health is not Health.OK:
        yield _Finding(base, verdict.health, verdict.summary)


def _drive_alerts(
    snapshot: HostSnapshot, now: float, unacked: Mapping[str, Mapping[str, Reason]]
) -> Iterator[Alert]:
    for drive in snapshot.drives:
        ident = drive.identity
        who = " ".join(p for p in (ident.model, ident.serial) if p)
        for found in _drive_findings(drive, unacked.get(drive.key, {})):
            yield Alert(
                key=found.key,
                health=found.health,
                subject=Subject.DRIVE,
                name=drive_place(snapshot, drive),
                message=f"{who}: {found.text}" if who else found.text,
                since=now,
                acknowledged=found.acknowledged,
                value=found.value,
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


_OUT = frozenset({PoolState.FAULTED, PoolState.UNAVAIL, PoolState.REMOVED})


def _members_out(pool: Pool) -> Iterator[tuple[str, Health, str, int | None]]:
    """A WARNING per device of a healthy pool that is out of service (FAULTED, UNAVAIL,
    REMOVED): the pool's state says all is well, and the device still wants replacing."""
    for _, vdev in pool.root.walk():
        if not vdev.children and vdev.state in _OUT:
            text = f"{vdev.name} {vdev.state.value} (pool {pool.state.value}): replace it"
            yield f"member:{vdev.name}", Health.WARNING, text, None


def _pool_findings(pool: Pool, limits: Thresholds) -> Iterator[tuple[str, Health, str, int | None]]:
    full = capacity(pool, limits.pools)
    if full is not None:
        yield "capacity", full.health, full.text, full.percent
    state_health = _POOL_STATE_HEALTH.get(pool.state, Health.UNKNOWN)
    if state_health is not Health.OK:
        yield "state", state_health, f"pool {pool.state.value}", None
    if pool.error_files:
        count = len(pool.error_files)
        yield "files", Health.CRITICAL, f"permanent errors in {count} file(s)", count
    elif pool.error_count:
        message = f"{pool.error_count} data errors (zpool status -v lists them)"
        yield "files", Health.CRITICAL, message, pool.error_count
    scan = pool.scan
    if scan is not None and scan.errors:
        text = f"{scan.kind.value} found {scan.errors} error(s)"
        yield "scan", Health.WARNING, text, scan.errors
    if state_health is Health.OK:  # a bad device the pool does without: a spare, a cache,
        yield from _members_out(pool)  # or an md member a spare took over from
    for _, vdev in pool.root.walk():
        counts = (vdev.read_errors or 0, vdev.write_errors or 0, vdev.checksum_errors or 0)
        if not vdev.children and any(counts):
            yield (
                f"vdev:{vdev.name}",
                Health.WARNING,
                f"{vdev.name}: READ {counts[0]} WRITE {counts[1]} CKSUM {counts[2]}",
                sum(counts),
            )


def _pool_alerts(snapshot: HostSnapshot, limits: Thresholds, now: float) -> Iterator[Alert]:
    for pool in snapshot.pools:
        for key, health, text, value in _pool_findings(pool, limits):
            yield Alert(
                f"pool:{pool.name}:{key}", health, Subject.POOL, pool.name, text, now, value=value
            )
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
            error.health,
            Subject.HOST,
            error.source,
            error.message,
            now,
        )


def _battery(ups: Ups) -> str:
    parts = []
    if ups.on_battery_s is not None:
        parts.append(f"for {duration(ups.on_battery_s)}")
    if ups.charge_percent is not None:
        parts.append(f"charge {ups.charge_percent:.0f}%")
    if ups.runtime_s is not None:
        parts.append(f"{duration(ups.runtime_s)} runtime left")
    return ", ".join(parts)


_UPS_POWER = {
    UpsStatus.ON_BATTERY: (Health.WARNING, "on battery: mains power lost"),
    UpsStatus.BATTERY_LOW: (Health.CRITICAL, "battery low: shutdown imminent"),
    UpsStatus.OFF: (Health.CRITICAL, "output off: the load has no power"),
    UpsStatus.BYPASS: (Health.WARNING, "on bypass: the load is not protected"),
}


def ups_health(ups: Ups) -> Health:
    """What a UPS's state means for the load: on battery or bypass warns, battery low or off
    is critical; a battery that asks to be replaced warns."""
    power = _UPS_POWER.get(ups.status)
    if power is not None:
        health = power[0]
    else:
        health = Health.OK if ups.status is UpsStatus.ONLINE else Health.UNKNOWN
    return worst((health, Health.WARNING)) if ups.battery_replace else health


def _ups_alerts(snapshot: HostSnapshot, now: float) -> Iterator[Alert]:
    for ups in snapshot.ups:
        power = _UPS_POWER.get(ups.status)
        if power is not None:
            health, text = power
            battery = _battery(ups) if ups.status is not UpsStatus.BYPASS else ""
            message = f"{text} ({battery})" if battery else text
            yield Alert(f"ups:{ups.name}:power", health, Subject.UPS, ups.name, message, now)
        if ups.battery_replace:
            text = "battery needs replacing"
            yield Alert(f"ups:{ups.name}:battery", Health.WARNING, Subject.UPS, ups.name, text, now)


def assess(
    snapshot: HostSnapshot,
    limits: Thresholds,
    now: float,
    baselines: Mapping[str, Mapping[int, int]] | None = None,
    previous: HostSnapshot | None = None,
    *,
    acks: Iterable[Acknowledgement] = (),
) -> HostSnapshot:
    """`snapshot` with every drive's verdict filled in and its alerts derived, worst first.

    A verdict a collector already gave (an SNMP host's own drive status) is kept; only drives
    still `UNASSESSED` are judged here. Every alert names `snapshot.host`. A drive finding the
    operator acknowledged on the drive (`nastui.core.ack`) stays an alert, marked
    `acknowledged`, with the health and text it had before (`overall` skips it; the alert
    engine counts it as covered), so acknowledging is not mistaken for recovering. An alert
    whose key `previous` (the host's last assessed snapshot) also had keeps that one's `since`
    (first seen); a new one is `since` now. So an unchanged host assesses to an equal snapshot.
    A virtual disk's missing SMART and the findings `limits.ignore` names are OK notes
    (`nastui.core.drivepolicy`); alerts an unexpired acknowledgement in `acks` covers are
    marked `acknowledged` (the one mechanism for status, the interface, the daemon, the SNMP
    agent and Prometheus).

    Args:
        snapshot: raw collector output.
        limits: configured thresholds.
        now: current Unix time.
        baselines: `Drive.key` -> first-seen raw attribute values, for growth reporting.
        previous: the host's snapshot assessed before, if any.
        acks: the alert acknowledgements (`nastui.core.ack.ack_key` keys).
    """
    known = baselines or {}
    drives = tuple(
        dataclasses.replace(d, verdict=_judge(snapshot, d, limits, now, known.get(d.key)))
        if d.verdict == UNASSESSED
        else d
        for d in snapshot.drives
    )
    unacked = {  # what acknowledged findings were before: their alerts keep that health
        d.key: {
            r.key: r
            for r in drive_verdict(
                dataclasses.replace(d, acks=()),
                limits,
                now,
                known.get(d.key),
                snapshot.bay_of(d.key),
            ).reasons
        }
        for d in drives
        if any(r.acknowledged for r in d.verdict.reasons)
    }
    assessed = dataclasses.replace(snapshot, drives=drives)
    alerts = [
        *_drive_alerts(assessed, now, unacked),
        *_bay_alerts(assessed, now),
        *_pool_alerts(assessed, limits, now),
        *_fan_alerts(assessed, now),
        *_ups_alerts(assessed, now),
        *_error_alerts(assessed, now),
    ]
    alerts.sort(key=lambda a: -a.health.rank)
    first_seen = {a.key: a.since for a in previous.alerts} if previous is not None else {}
    hosted = tuple(
        dataclasses.replace(a, host=snapshot.host, since=first_seen.get(a.key, a.since))
        for a in alerts
    )
    return dataclasses.replace(assessed, alerts=apply_alert_acks(hosted, acks, now))


def _judge(
    snapshot: HostSnapshot,
    drive: Drive,
    limits: Thresholds,
    now: float,
    baseline: Mapping[int, int] | None,
) -> Verdict:
    bay = snapshot.bay_of(drive.key)
    verdict = drive_verdict(drive, limits, now, baseline, bay)
    return apply_policy(drive, verdict, limits.ignore, bay)


def fleet_alerts(host: FleetHost, now: float) -> tuple[Alert, ...]:
    """A fleet host's alerts, each naming `host.name`: "host unreachable" (CRITICAL) when its
    last poll failed, then its last snapshot's alerts (kept while it is unreachable: what was
    wrong is not known to have cleared). Nothing before the first poll.

    Args:
        host: the host's latest state, its snapshot already assessed.
        now: current Unix time.
    """
    alerts: list[Alert] = []
    if host.polled_at is not None and not host.reachable:
        if host.last_contact is None:
            since = "has never answered"
        else:
            since = f"last answered {age(now - host.last_contact)}"
        why = f": {host.error}" if host.error else ""
        alerts.append(
            Alert(
                "host:unreachable",
                Health.CRITICAL,
                Subject.HOST,
                host.name,
                f"{host.address} not answering ({since}){why}",
                now,
                host=host.name,
            )
        )
    if host.snapshot is not None:
        alerts += (dataclasses.replace(a, host=host.name) for a in host.snapshot.alerts)
    return tuple(alerts)


def overall(snapshot: HostSnapshot) -> Health:
    """The host's state: the worst unacknowledged alert, OK when there is none."""
    result = Health.OK
    for alert in snapshot.alerts:
        if not alert.acknowledged and alert.health.rank > result.rank:
            result = alert.health
    return result


def awaiting_smart_keys(snapshot: HostSnapshot) -> frozenset[str]:
    """The keys of the box's alerts that say a drive's first SMART read is under way: UNKNOWN
    to a monitoring plugin, which cannot wait; the interface, which can, shows the drive as
    being read rather than counting it as UNKNOWN (its other findings count as they are)."""
    return frozenset(f"drive:{d.key}:{NO_SMART}" for d in snapshot.drives if reading_smart(d))


def awaiting_smart_alert(snapshot: HostSnapshot, alert: Alert, keys: frozenset[str]) -> bool:
    """`alert` is one of the box's own (not a fleet host's) in `keys` (`awaiting_smart_keys`)."""
    return alert.key in keys and alert.host in ("", snapshot.host)


def pool_health(snapshot: HostSnapshot, pool: Pool) -> Health:
    """The pool's state: the worst unacknowledged alert about it, OK when there is none."""
    return worst(
        a.health
        for a in snapshot.alerts
        if a.subject is Subject.POOL and a.name == pool.name and not a.acknowledged
    )
