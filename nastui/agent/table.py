"""The agent's OID table: every value of a snapshot under the base OID, sorted (pure).

`build_table(snapshot, base, now, max_age)` gives a `Table` of OID -> (type, value), with the
pass_persist type names snmpd understands ("integer", "gauge", "counter64", "string"). Unknown
values have no instance. A snapshot older than `max_age` seconds is still served, but the host's
health says UNKNOWN and `nastuiStale` true, so a poller never trusts old news as current.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from dataclasses import dataclass

from nastui.agent import mib
from nastui.agent.mib import AlertCol, BayCol, DriveCol, FanCol, HostCol, Oid, PoolCol, UpsCol
from nastui.core.assess import overall, pool_health
from nastui.model import Drive, Health, HostSnapshot

Value = int | str
Cell = tuple[str, Value]
GAUGE_MAX = 2**32 - 1
COUNTER64_MAX = 2**64 - 1
INT32 = (-(2**31), 2**31 - 1)
STRING_MAX_BYTES = 1000  # snmpd reads pass_persist answers in 4 KiB lines


@dataclass(frozen=True, slots=True)
class Table:
    """Sorted OIDs and their cells; `lookup` and `next_after` answer get and getnext."""

    oids: tuple[Oid, ...]
    cells: tuple[Cell, ...]

    @classmethod
    def of(cls, items: dict[Oid, Cell]) -> Table:
        """A table from an OID -> cell mapping, in any order."""
        ordered = sorted(items.items())
        return cls(tuple(o for o, _ in ordered), tuple(c for _, c in ordered))

    def lookup(self, oid: Oid) -> Cell | None:
        """The cell at exactly `oid`."""
        i = bisect.bisect_left(self.oids, oid)
        return self.cells[i] if i < len(self.oids) and self.oids[i] == oid else None

    def next_after(self, oid: Oid) -> tuple[Oid, Cell] | None:
        """The first OID strictly after `oid` (lexicographic), with its cell."""
        i = bisect.bisect_right(self.oids, oid)
        return (self.oids[i], self.cells[i]) if i < len(self.oids) else None

    def as_dict(self) -> dict[Oid, Cell]:
        """OID -> cell."""
        return dict(zip(self.oids, self.cells, strict=True))


def gauge(value: float) -> Cell:
    """A Gauge32, rounded and clamped to 0..2^32-1."""
    return "gauge", max(0, min(GAUGE_MAX, round(value)))


def integer(value: float) -> Cell:
    """An Integer32, rounded and clamped."""
    return "integer", max(INT32[0], min(INT32[1], round(value)))


def counter64(value: float) -> Cell:
    """A 64-bit value (sizes in bytes)."""
    return "counter64", max(0, min(COUNTER64_MAX, round(value)))


def string(text: str) -> Cell:
    """An OCTET STRING of UTF-8 text on one line, cut to fit an answer line."""
    flat = " ".join(text.splitlines())
    data = flat.encode("utf-8")[:STRING_MAX_BYTES]
    return "string", data.decode("utf-8", errors="ignore")


def truth(value: bool) -> Cell:
    """A TruthValue: true(1), false(2)."""
    return "integer", mib.TRUE if value else mib.FALSE


Rows = Iterator[tuple[int, int | None, Cell | None]]  # (column, row, cell); row None: scalar


def _host(snapshot: HostSnapshot | None, now: float, max_age: float, problem: str | None) -> Rows:
    yield HostCol.MAX_AGE, None, gauge(max_age)
    if problem:
        yield HostCol.PROBLEM, None, string(problem)
    if snapshot is None:
        yield HostCol.HEALTH, None, integer(Health.UNKNOWN)
        yield HostCol.STALE, None, truth(True)
        return
    age = max(0.0, now - snapshot.taken_at)
    stale = age > max_age
    health = Health.UNKNOWN if stale else overall(snapshot)
    yield HostCol.NAME, None, string(snapshot.host)
    yield HostCol.SNAPSHOT_TIME, None, gauge(snapshot.taken_at)
    yield HostCol.SNAPSHOT_AGE, None, gauge(age)
    yield HostCol.HEALTH, None, integer(health)
    yield HostCol.STALE, None, truth(stale)
    yield HostCol.BAY_COUNT, None, gauge(len(_bays(snapshot)))
    yield HostCol.DRIVE_COUNT, None, gauge(len(snapshot.drives))
    yield HostCol.POOL_COUNT, None, gauge(len(snapshot.pools))
    yield HostCol.ALERT_COUNT, None, gauge(len(snapshot.alerts))
    yield HostCol.ERROR_COUNT, None, gauge(len(snapshot.errors))
    yield HostCol.SOURCE, None, string(snapshot.source)


def _bays(snapshot: HostSnapshot) -> tuple[int, ...]:
    """Bay numbers in chassis order (slots order when the chassis is unknown)."""
    if snapshot.chassis is not None:
        return tuple(b.number for b in snapshot.chassis.bays)
    return tuple(s.bay for s in snapshot.slots)


def _drive_cells(drive: Drive, temp: int, health: int, power: int, verdict: int) -> Rows:
    """The temperature, health, power and verdict cells of a drive, in the given columns."""
    if drive.temperature is not None:
        yield temp, None, integer(drive.temperature.celsius)
    yield health, None, integer(drive.verdict.health)
    yield power, None, integer(mib.POWER_CODES[drive.power])
    yield verdict, None, string(drive.verdict.summary)


def _bay_rows(snapshot: HostSnapshot) -> Rows:
    drives = {d.key: d for d in snapshot.drives}
    for row, number in enumerate(_bays(snapshot), start=1):
        slot = snapshot.slot(number)
        drive = drives.get(slot.drive) if slot is not None and slot.drive else None
        yield BayCol.NUMBER, row, integer(number)
        if drive is None:
            missing = slot is not None and slot.expected
            state = mib.BayState.MISSING if missing else mib.BayState.EMPTY
            yield BayCol.STATE, row, integer(state)
            yield BayCol.HEALTH, row, integer(Health.CRITICAL if missing else Health.OK)
            continue
        yield BayCol.STATE, row, integer(mib.BayState.OCCUPIED)
        yield BayCol.DRIVE_KEY, row, string(drive.key)
        yield BayCol.DEV, row, string(drive.dev)
        cols = (BayCol.TEMPERATURE, BayCol.HEALTH, BayCol.POWER, BayCol.VERDICT)
        for column, _, cell in _drive_cells(drive, *cols):
            yield column, row, cell


def _drive_rows(snapshot: HostSnapshot) -> Rows:
    for row, drive in enumerate(snapshot.drives, start=1):
        ident = drive.identity
        yield DriveCol.KEY, row, string(drive.key)
        yield DriveCol.DEV, row, string(drive.dev)
        yield DriveCol.MODEL, row, string(ident.model) if ident.model else None
        yield DriveCol.SERIAL, row, string(ident.serial) if ident.serial else None
        bay = snapshot.bay_of(drive.key)
        yield DriveCol.BAY, row, integer(bay) if bay is not None else None
        if drive.temperature is not None:
            age = snapshot.taken_at - drive.temperature.measured_at
            yield DriveCol.TEMPERATURE_AGE, row, gauge(age)
        cols = (DriveCol.TEMPERATURE, DriveCol.HEALTH, DriveCol.POWER, DriveCol.VERDICT)
        for column, _, cell in _drive_cells(drive, *cols):
            yield column, row, cell
        capacity = ident.capacity_bytes
        yield DriveCol.CAPACITY, row, counter64(capacity) if capacity is not None else None
        hours = drive.power_on_hours
        yield DriveCol.POWER_ON_HOURS, row, gauge(hours) if hours is not None else None


def _pool_rows(snapshot: HostSnapshot) -> Rows:
    for row, pool in enumerate(snapshot.pools, start=1):
        yield PoolCol.NAME, row, string(pool.name)
        yield PoolCol.KIND, row, integer(mib.POOL_KIND_CODES[pool.kind])
        yield PoolCol.STATE, row, integer(mib.POOL_STATE_CODES[pool.state])
        yield PoolCol.HEALTH, row, integer(pool_health(snapshot, pool))
        size, alloc = pool.size_bytes, pool.allocated_bytes
        yield PoolCol.SIZE, row, counter64(size) if size is not None else None
        yield PoolCol.ALLOCATED, row, counter64(alloc) if alloc is not None else None
        count = pool.error_count
        yield PoolCol.DATA_ERRORS, row, gauge(count) if count is not None else None
        last = pool.last_scrub.ended_at if pool.last_scrub is not None else None
        yield PoolCol.LAST_SCRUB, row, gauge(last) if last is not None else None
        scan = pool.scan
        if scan is None:
            continue
        yield PoolCol.SCAN_KIND, row, integer(mib.SCAN_KIND_CODES[scan.kind])
        yield PoolCol.SCAN_STATE, row, integer(mib.SCAN_STATE_CODES[scan.state])
        percent, eta, errors = scan.percent, scan.eta_seconds, scan.errors
        yield PoolCol.SCAN_PERCENT, row, gauge(percent * 100) if percent is not None else None
        yield PoolCol.SCAN_ETA, row, gauge(eta) if eta is not None else None
        yield PoolCol.SCAN_ERRORS, row, gauge(errors) if errors is not None else None


def _fan_rows(snapshot: HostSnapshot) -> Rows:
    for row, fan in enumerate(snapshot.fans, start=1):
        yield FanCol.NAME, row, string(fan.name)
        yield FanCol.RPM, row, gauge(fan.rpm) if fan.rpm is not None else None
        duty = fan.duty_percent
        yield FanCol.DUTY, row, gauge(duty) if duty is not None else None
        yield FanCol.ZONE, row, string(fan.zone) if fan.zone else None


def _ups_rows(snapshot: HostSnapshot) -> Rows:
    for row, ups in enumerate(snapshot.ups, start=1):
        yield UpsCol.NAME, row, string(ups.name)
        yield UpsCol.STATUS, row, integer(mib.UPS_STATUS_CODES[ups.status])
        yield UpsCol.MODEL, row, string(ups.model) if ups.model else None
        for column, value in (
            (UpsCol.CHARGE, ups.charge_percent),
            (UpsCol.RUNTIME, ups.runtime_s),
            (UpsCol.LOAD, ups.load_percent),
            (UpsCol.ON_BATTERY, ups.on_battery_s),
            (UpsCol.INPUT_VOLTAGE, ups.input_voltage),
        ):
            yield column, row, gauge(value) if value is not None else None
        yield UpsCol.REPLACE_BATTERY, row, truth(ups.battery_replace)


def _alert_rows(snapshot: HostSnapshot) -> Rows:
    for row, alert in enumerate(snapshot.alerts, start=1):
        yield AlertCol.HEALTH, row, integer(alert.health)
        yield AlertCol.SUBJECT, row, integer(mib.SUBJECT_CODES[alert.subject])
        yield AlertCol.NAME, row, string(alert.name)
        yield AlertCol.MESSAGE, row, string(alert.message)
        yield AlertCol.SINCE, row, gauge(alert.since)
        yield AlertCol.ACKNOWLEDGED, row, truth(alert.acknowledged)
        yield AlertCol.KEY, row, string(alert.key)


def build_table(
    snapshot: HostSnapshot | None,
    base: Oid = mib.DEFAULT_BASE,
    *,
    now: float,
    max_age: float,
    problem: str | None = None,
) -> Table:
    """Every value of `snapshot` under `base`.

    Args:
        snapshot: the latest snapshot; None when there is none (only the host's health,
            staleness and `problem` are served then).
        base: the subtree's OID.
        now: the current Unix time (for the snapshot's age).
        max_age: seconds after which the snapshot counts as stale.
        problem: the agent's trouble reading the snapshot, served as nastuiAgentProblem.
    """
    items: dict[Oid, Cell] = {}
    for column, _, cell in _host(snapshot, now, max_age, problem):
        if cell is not None:
            items[mib.host_oid(base, HostCol(column))] = cell
    if snapshot is not None:
        for table, rows in (
            (mib.BAYS, _bay_rows(snapshot)),
            (mib.DRIVES, _drive_rows(snapshot)),
            (mib.POOLS, _pool_rows(snapshot)),
            (mib.FANS, _fan_rows(snapshot)),
            (mib.UPSES, _ups_rows(snapshot)),
            (mib.ALERTS, _alert_rows(snapshot)),
        ):
            for column, row, cell in rows:
                if cell is not None and row is not None:
                    items[mib.cell_oid(base, table, column, row)] = cell
    return Table.of(items)
