"""The `nastui` profile: another box running `nastui snmp-agent` (NASTUI-MIB).

The agent serves its daemon's assessed snapshot (see `nastui.agent.mib` for the layout), so this
profile reads back drives with their verdicts (kept by assess: the remote box judged them with
its own SMART data, which SNMP does not carry), the bays' slots, pools with their state and
scan, fans and UPSes. The remote's alerts are re-derived here from what is read. A stale remote
snapshot (its daemon stopped) and the agent's own trouble become `errors`, so they show as
alerts instead of old values passing for current ones.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from nastui.agent import mib
from nastui.agent.mib import BayCol, DriveCol, FanCol, HostCol, PoolCol, UpsCol
from nastui.collectors.snmp_profiles.base import Oid, Profile, SnmpValue, Walk
from nastui.collectors.snmp_profiles.tables import Row, integer, table, text
from nastui.model import (
    BaySlot,
    CollectorError,
    Drive,
    DriveIdentity,
    Fan,
    Health,
    HostSnapshot,
    Pool,
    PoolState,
    Reason,
    ScanKind,
    ScanProgress,
    ScanState,
    Temperature,
    TempSource,
    Ups,
    UpsStatus,
    Vdev,
    Verdict,
)
from nastui.model.drive import PowerState

K = TypeVar("K")
T = TypeVar("T")
NAME = "nastui"
SOURCE = f"snmp:{NAME}"


def _decode(codes: dict[K, int], value: SnmpValue) -> K | None:
    number = integer(value)
    for member, code in codes.items():
        if code == number:
            return member
    return None


def _health(value: SnmpValue) -> Health | None:
    number = integer(value)
    return Health(number) if number in (0, 1, 2, 3) else None


def _verdict(health: Health | None, summary: str | None) -> Verdict:
    if health is None:
        return Verdict(Health.UNKNOWN, (Reason(Health.UNKNOWN, "no health from nastui agent"),))
    if health is Health.OK:
        return Verdict(Health.OK)
    return Verdict(health, (Reason(health, summary or health.name),))


def _drive(row: Row, taken_at: float) -> Drive | None:
    key, dev = text(row.get(DriveCol.KEY)), text(row.get(DriveCol.DEV))
    if key is None or dev is None:
        return None
    celsius = integer(row.get(DriveCol.TEMPERATURE))
    age = integer(row.get(DriveCol.TEMPERATURE_AGE)) or 0
    temperature = (
        Temperature(float(celsius), taken_at - age, TempSource.SNMP)
        if celsius is not None
        else None
    )
    serial = text(row.get(DriveCol.SERIAL))
    return Drive(
        dev=dev,
        identity=DriveIdentity(
            model=text(row.get(DriveCol.MODEL)),
            serial=serial,
            wwn=key if serial is None and key != dev else None,
            capacity_bytes=integer(row.get(DriveCol.CAPACITY)),
        ),
        power=_decode(mib.POWER_CODES, row.get(DriveCol.POWER)) or PowerState.UNKNOWN,
        temperature=temperature,
        power_on_hours=integer(row.get(DriveCol.POWER_ON_HOURS)),
        verdict=_verdict(_health(row.get(DriveCol.HEALTH)), text(row.get(DriveCol.VERDICT))),
    )


def _slot(row: Row) -> BaySlot | None:
    number = integer(row.get(BayCol.NUMBER))
    if number is None:
        return None
    state = integer(row.get(BayCol.STATE))
    drive = text(row.get(BayCol.DRIVE_KEY)) if state == mib.BayState.OCCUPIED else None
    missing = state == mib.BayState.MISSING
    return BaySlot(number, drive, expected=missing or drive is not None)


def _scan(row: Row) -> ScanProgress | None:
    kind = _decode(mib.SCAN_KIND_CODES, row.get(PoolCol.SCAN_KIND))
    state = _decode(mib.SCAN_STATE_CODES, row.get(PoolCol.SCAN_STATE))
    if kind is None or state is None:
        return None
    percent = integer(row.get(PoolCol.SCAN_PERCENT))
    eta = integer(row.get(PoolCol.SCAN_ETA))
    return ScanProgress(
        kind,
        state,
        eta_seconds=float(eta) if eta is not None else None,
        errors=integer(row.get(PoolCol.SCAN_ERRORS)),
        reported_percent=percent / 100 if percent is not None else None,
    )


def _pool(row: Row) -> Pool | None:
    name = text(row.get(PoolCol.NAME))
    kind = _decode(mib.POOL_KIND_CODES, row.get(PoolCol.KIND))
    if name is None or kind is None:
        return None
    state = _decode(mib.POOL_STATE_CODES, row.get(PoolCol.STATE)) or PoolState.UNKNOWN
    ended = integer(row.get(PoolCol.LAST_SCRUB))
    last = (
        ScanProgress(ScanKind.SCRUB, ScanState.FINISHED, ended_at=float(ended))
        if ended is not None
        else None
    )
    return Pool(
        name,
        kind,
        state,
        Vdev(name, "root", state),
        size_bytes=integer(row.get(PoolCol.SIZE)),
        allocated_bytes=integer(row.get(PoolCol.ALLOCATED)),
        scan=_scan(row),
        last_scrub=last,
        error_count=integer(row.get(PoolCol.DATA_ERRORS)),
    )


def _fan(row: Row) -> Fan | None:
    name = text(row.get(FanCol.NAME))
    if name is None:
        return None
    duty = integer(row.get(FanCol.DUTY))
    return Fan(
        name,
        rpm=integer(row.get(FanCol.RPM)),
        duty_percent=float(duty) if duty is not None else None,
        zone=text(row.get(FanCol.ZONE)),
        driver=SOURCE,
    )


def _ups(row: Row) -> Ups | None:
    name = text(row.get(UpsCol.NAME))
    if name is None:
        return None

    def number(column: int) -> float | None:
        value = integer(row.get(column))
        return float(value) if value is not None else None

    return Ups(
        name,
        status=_decode(mib.UPS_STATUS_CODES, row.get(UpsCol.STATUS)) or UpsStatus.UNKNOWN,
        model=text(row.get(UpsCol.MODEL)),
        charge_percent=number(UpsCol.CHARGE),
        runtime_s=number(UpsCol.RUNTIME),
        load_percent=number(UpsCol.LOAD),
        on_battery_s=number(UpsCol.ON_BATTERY),
        input_voltage=number(UpsCol.INPUT_VOLTAGE),
        battery_replace=integer(row.get(UpsCol.REPLACE_BATTERY)) == mib.TRUE,
    )


def _errors(walk: Walk, base: Oid, host: str) -> tuple[CollectorError, ...]:
    found: list[CollectorError] = []
    problem = text(walk.get(mib.host_oid(base, HostCol.PROBLEM)))
    if problem:
        found.append(CollectorError(f"{NAME}-agent", problem))
    if integer(walk.get(mib.host_oid(base, HostCol.STALE))) == mib.TRUE and not problem:
        age = integer(walk.get(mib.host_oid(base, HostCol.SNAPSHOT_AGE)))
        old = f"{age} s old" if age is not None else "stale"
        found.append(
            CollectorError(
                f"{NAME}-agent", f"{host}'s snapshot is {old}: is `nastui daemon` running there?"
            )
        )
    remote = integer(walk.get(mib.host_oid(base, HostCol.ERROR_COUNT)))
    if remote:
        found.append(CollectorError(f"{NAME}:{host}", f"{remote} collector errors on {host}"))
    return tuple(found)


def _rows(walk: Walk, base: Oid, arc: int, read: Callable[[Row], T | None]) -> tuple[T, ...]:
    rows = table(walk, (*base, arc, mib.ENTRY))
    return tuple(item for row in rows.values() if (item := read(row)) is not None)


def parser(base: Oid) -> Callable[[str, Walk, float], HostSnapshot]:
    """The parser for a NASTUI-MIB subtree served under `base`."""

    def parse(host: str, walk: Walk, now: float) -> HostSnapshot:
        taken = integer(walk.get(mib.host_oid(base, HostCol.SNAPSHOT_TIME)))
        taken_at = float(taken) if taken is not None else now
        return HostSnapshot(
            host=host,
            taken_at=taken_at,
            slots=_rows(walk, base, mib.BAYS, _slot),
            drives=_rows(walk, base, mib.DRIVES, lambda row: _drive(row, taken_at)),
            pools=_rows(walk, base, mib.POOLS, _pool),
            fans=_rows(walk, base, mib.FANS, _fan),
            ups=_rows(walk, base, mib.UPSES, _ups),
            errors=_errors(walk, base, host),
            source=SOURCE,
        )

    return parse


def profile(base: Oid = mib.DEFAULT_BASE) -> Profile:
    """The profile for an agent serving under `base` (a site's own PEN arc, say)."""
    return Profile(NAME, (base,), parser(base))


PROFILE = profile()
