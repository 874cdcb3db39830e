"""The SNMP agent: the OID table, pass_persist answers, the stdin loop, and reading it all back
through the `nastui` profile."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from nastui.agent import mib
from nastui.agent.loop import Agent
from nastui.agent.mib import BayCol, DriveCol, HostCol, PoolCol, format_oid
from nastui.agent.protocol import answer
from nastui.agent.table import Table, build_table
from nastui.collectors import latest
from nastui.collectors.latest import LatestError, read_latest
from nastui.collectors.snmp_profiles import nastui as profile
from nastui.collectors.snmp_profiles.base import SnmpValue
from nastui.control.latest import write_latest
from nastui.core.assess import assess
from nastui.model import Health, HostSnapshot, PoolState, Thresholds
from nastui.sim import SimBackend

BASE = mib.DEFAULT_BASE
B = format_oid(BASE)


def assessed(name: str = "scrubbing") -> HostSnapshot:
    raw = SimBackend(name).snapshot()
    return assess(raw, Thresholds(), raw.taken_at)


@pytest.fixture(scope="module")
def snap() -> HostSnapshot:
    return assessed()


@pytest.fixture(scope="module")
def table(snap: HostSnapshot) -> Table:
    return build_table(snap, now=snap.taken_at + 30, max_age=600)


def test_table_is_sorted_and_under_the_base(table: Table) -> None:
    assert list(table.oids) == sorted(table.oids)
    assert len(set(table.oids)) == len(table.oids)
    assert all(o[: len(BASE)] == BASE for o in table.oids)
    kinds = {kind for kind, _ in table.cells}
    assert kinds <= {"integer", "gauge", "counter64", "string"}


def test_host_scalars(snap: HostSnapshot, table: Table) -> None:
    assert table.lookup(mib.host_oid(BASE, HostCol.NAME)) == ("string", snap.host)
    assert table.lookup(mib.host_oid(BASE, HostCol.SNAPSHOT_AGE)) == ("gauge", 30)
    assert table.lookup(mib.host_oid(BASE, HostCol.STALE)) == ("integer", mib.FALSE)
    assert table.lookup(mib.host_oid(BASE, HostCol.BAY_COUNT)) == ("gauge", 24)
    assert table.lookup(mib.host_oid(BASE, HostCol.PROBLEM)) is None


def test_bays_carry_temperature_and_health(snap: HostSnapshot, table: Table) -> None:
    assert snap.chassis is not None
    for row, bay in enumerate(snap.chassis.bays, start=1):
        slot = snap.slot(bay.number)
        assert slot is not None and slot.drive is not None
        drive = snap.drive(slot.drive)
        assert drive is not None and drive.temperature is not None
        cell = table.lookup(mib.cell_oid(BASE, mib.BAYS, BayCol.TEMPERATURE, row))
        assert cell == ("integer", round(drive.temperature.celsius))
        health = table.lookup(mib.cell_oid(BASE, mib.BAYS, BayCol.HEALTH, row))
        assert health == ("integer", int(drive.verdict.health))
        assert table.lookup(mib.cell_oid(BASE, mib.BAYS, BayCol.NUMBER, row)) == (
            "integer",
            bay.number,
        )


def test_pool_scan_is_in_hundredths(snap: HostSnapshot, table: Table) -> None:
    pool = snap.pools[0]
    assert pool.scan is not None and pool.scan.percent is not None
    cell = table.lookup(mib.cell_oid(BASE, mib.POOLS, PoolCol.SCAN_PERCENT, 1))
    assert cell == ("gauge", round(pool.scan.percent * 100))
    state = table.lookup(mib.cell_oid(BASE, mib.POOLS, PoolCol.STATE, 1))
    assert state == ("integer", mib.POOL_STATE_CODES[PoolState.ONLINE])


def test_unknown_values_have_no_instance() -> None:
    snap = assessed("sleeping")
    table = build_table(snap, now=snap.taken_at, max_age=600)
    for row, drive in enumerate(snap.drives, start=1):
        cell = table.lookup(mib.cell_oid(BASE, mib.DRIVES, DriveCol.TEMPERATURE, row))
        assert (cell is None) == (drive.temperature is None)


def test_stale_snapshot_is_served_with_unknown_health(snap: HostSnapshot) -> None:
    table = build_table(snap, now=snap.taken_at + 601, max_age=600)
    assert table.lookup(mib.host_oid(BASE, HostCol.HEALTH)) == ("integer", int(Health.UNKNOWN))
    assert table.lookup(mib.host_oid(BASE, HostCol.STALE)) == ("integer", mib.TRUE)
    assert table.lookup(mib.host_oid(BASE, HostCol.SNAPSHOT_AGE)) == ("gauge", 601)
    assert table.lookup(mib.cell_oid(BASE, mib.BAYS, BayCol.TEMPERATURE, 1)) is not None


def test_no_snapshot_serves_the_problem() -> None:
    table = build_table(None, now=0, max_age=600, problem="no snapshot at /x")
    assert table.lookup(mib.host_oid(BASE, HostCol.HEALTH)) == ("integer", 3)
    assert table.lookup(mib.host_oid(BASE, HostCol.PROBLEM)) == ("string", "no snapshot at /x")


def test_get_and_getnext(table: Table) -> None:
    first, last = table.oids[0], table.oids[-1]
    assert answer(table, "get", format_oid(first)) == [format_oid(first), *map(str, table.cells[0])]
    assert answer(table, "get", f"{B}.1.99.0") == ["NONE"]
    assert answer(table, "get", B) == ["NONE"]
    # before the subtree, at its root, inside, between rows, after
    assert answer(table, "getnext", ".1.3.6.1")[0] == format_oid(first)
    assert answer(table, "getnext", B)[0] == format_oid(first)
    assert answer(table, "getnext", format_oid(first))[0] == format_oid(table.oids[1])
    assert answer(table, "getnext", f"{B}.2.1.6")[0] == f"{B}.2.1.6.1"
    assert answer(table, "getnext", format_oid(last)) == ["NONE"]
    assert answer(table, "getnext", f"{B}.99") == ["NONE"]
    assert answer(table, "GETNEXT", f" {B}.2.1.6 ")[0] == f"{B}.2.1.6.1"


@pytest.mark.parametrize("oid", ["", ".", "x.1.2", ".1.3.-6", "1", ".1.3.6.1.٣", "\x00"])
def test_malformed_oids_get_none(table: Table, oid: str) -> None:
    assert answer(table, "get", oid) == ["NONE"]
    assert answer(table, "getnext", oid) == ["NONE"]


def test_set_is_refused(table: Table) -> None:
    assert answer(table, "set", f"{B}.1.1.0") == ["not-writable"]


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def serve(agent: Agent, text: str) -> list[str]:
    out = io.StringIO()
    assert agent.serve(io.StringIO(text), out) == 0
    return out.getvalue().splitlines()


def test_loop_speaks_the_protocol_and_survives_garbage(tmp_path: Path, snap: HostSnapshot) -> None:
    path = tmp_path / "latest.json"
    write_latest(path, snap)
    logged: list[str] = []
    agent = Agent(path, read_latest, clock=Clock(snap.taken_at), log=logged.append)
    lines = serve(
        agent,
        f"PING\nget\n{B}.1.1.0\n\nwhat is this\ngetnext\n{B}.1.1.0\nset\n{B}.1.1.0\n"
        f"string x\nget\nnot an oid\n\x00\xff\nPING\ngetnext\n",
    )
    assert lines == [
        "PONG",
        f"{B}.1.1.0",
        "string",
        snap.host,
        f"{B}.1.2.0",
        "gauge",
        str(round(snap.taken_at)),
        "not-writable",
        "NONE",
        "PONG",
    ]
    assert any("what is this" in line for line in logged)


def test_loop_rereads_the_file_when_it_changes(tmp_path: Path, snap: HostSnapshot) -> None:
    path = tmp_path / "latest.json"
    write_latest(path, snap)
    clock = Clock(snap.taken_at)
    agent = Agent(path, read_latest, clock=clock, log=lambda _: None)
    name = f"{B}.1.1.0"
    assert agent.handle("get", name)[2] == snap.host
    write_latest(path, HostSnapshot("renamed", snap.taken_at))
    assert agent.handle("get", name)[2] == snap.host  # at most once a second
    clock.now += 1.0
    assert agent.handle("get", name)[2] == "renamed"


def test_loop_keeps_the_last_snapshot_when_the_file_goes_bad(
    tmp_path: Path, snap: HostSnapshot
) -> None:
    path = tmp_path / "latest.json"
    write_latest(path, snap)
    clock = Clock(snap.taken_at)
    logged: list[str] = []
    agent = Agent(path, read_latest, clock=clock, max_age=60, log=logged.append)
    agent.refresh()
    path.write_text("{garbage")
    for _ in range(3):
        clock.now += 30
        agent.refresh()
    assert len(logged) == 1 and "not JSON" in logged[0]
    table = agent.table
    assert table.lookup(mib.host_oid(BASE, HostCol.NAME)) == ("string", snap.host)
    assert table.lookup(mib.host_oid(BASE, HostCol.HEALTH)) == ("integer", 3)  # now stale
    problem = table.lookup(mib.host_oid(BASE, HostCol.PROBLEM))
    assert problem is not None and "not JSON" in str(problem[1])


def test_missing_file_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "nope" / "latest.json"
    with pytest.raises(LatestError, match=r"^no snapshot at .*: is `nastui daemon` running\?$"):
        read_latest(path)
    agent = Agent(path, read_latest, clock=Clock(0), log=lambda _: None)
    problem = agent.handle("get", f"{B}.1.13.0")
    assert problem[:2] == [f"{B}.1.13.0", "string"] and "no snapshot at" in problem[2]


def test_unreadable_file_says_permission(
    tmp_path: Path, snap: HostSnapshot, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "latest.json"
    write_latest(path, snap)

    def denied(where: Path, limit: int) -> bytes:
        raise PermissionError(13, "Permission denied", str(where))

    monkeypatch.setattr(latest, "read_bounded", denied)  # root could read a mode-0 file
    with pytest.raises(LatestError, match=r"^cannot read .*latest.json: permission denied"):
        read_latest(path)


def test_written_file_is_world_readable_and_atomic(tmp_path: Path, snap: HostSnapshot) -> None:
    path = tmp_path / "state" / "latest.json"
    write_latest(path, snap)
    write_latest(path, snap)
    assert path.stat().st_mode & 0o777 == 0o644
    assert sorted(p.name for p in path.parent.iterdir()) == ["latest.json"]
    assert read_latest(path) == snap


def walk_of(table: Table) -> dict[tuple[int, ...], SnmpValue]:
    """The table as pynetsnmp would decode a walk of it (strings as bytes)."""
    return {
        oid: value.encode() if isinstance(value, str) else value
        for oid, (_, value) in table.as_dict().items()
    }


@pytest.mark.parametrize("name", ["scrubbing", "resilvering", "sleeping", "mixed"])
def test_profile_reads_the_table_back(name: str) -> None:
    snap = assessed(name)
    walk = walk_of(build_table(snap, now=snap.taken_at, max_age=600))
    back = profile.PROFILE.parse("remote", walk, snap.taken_at + 5)
    assert back.source == "snmp:nastui" and back.taken_at == snap.taken_at
    assert [d.key for d in back.drives] == [d.key for d in snap.drives]
    for mine, theirs in zip(snap.drives, back.drives, strict=True):
        want = round(mine.temperature.celsius) if mine.temperature else None
        assert (theirs.temperature.celsius if theirs.temperature else None) == want
        assert theirs.verdict.health is mine.verdict.health
        assert theirs.power is mine.power
    assert [(p.name, p.state, p.kind) for p in back.pools] == [
        (p.name, p.state, p.kind) for p in snap.pools
    ]
    for mine_pool, their_pool in zip(snap.pools, back.pools, strict=True):
        if mine_pool.scan is not None and mine_pool.scan.percent is not None:
            assert their_pool.scan is not None and their_pool.scan.percent is not None
            assert their_pool.scan.percent == pytest.approx(mine_pool.scan.percent, abs=0.01)
    assert [(s.bay, s.drive) for s in back.slots] == [(s.bay, s.drive) for s in snap.slots]
    assert [f.name for f in back.fans] == [f.name for f in snap.fans]
    assert back.errors == ()


def test_profile_reports_a_stale_remote() -> None:
    snap = assessed()
    walk = walk_of(build_table(snap, now=snap.taken_at + 3600, max_age=600))
    back = profile.PROFILE.parse("remote", walk, snap.taken_at + 3600)
    assert [e.source for e in back.errors] == ["nastui-agent"]
    assert "3600 s old" in back.errors[0].message


def test_profile_with_another_base() -> None:
    snap = assessed()
    base = (1, 3, 6, 1, 4, 1, 99999, 7)
    walk = walk_of(build_table(snap, base, now=snap.taken_at, max_age=600))
    back = profile.profile(base).parse("remote", walk, snap.taken_at)
    assert len(back.drives) == len(snap.drives)
    assert profile.PROFILE.parse("remote", walk, snap.taken_at).drives == ()
