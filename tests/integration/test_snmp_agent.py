"""`nastui snmp-agent` under a real snmpd (pass_persist) on loopback, polled by net-snmp's tools
and by nastui's own fleet collector; and NASTUI-MIB checked by net-snmp's MIB parser."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from nastui.agent import mib
from nastui.agent.mib import BayCol, DriveCol, HostCol, PoolCol
from nastui.collectors.fleet import FleetCollector
from nastui.config.remote import HostConfig, SnmpProfile
from nastui.control.latest import write_latest
from nastui.core.assess import assess
from nastui.core.clock import SystemClock
from nastui.model import HostSnapshot, PoolState, Thresholds
from nastui.sim import SimBackend
from tests.conftest import FIXTURES, REPO, require_tool
from tests.snmplab import COMMUNITY, start_snmpd

pytestmark = pytest.mark.integration

B = mib.format_oid(mib.DEFAULT_BASE)
MIB_DIRS = f"{FIXTURES / 'mibs'}:{REPO / 'nastui' / 'mibs'}:/usr/share/snmp/mibs"


def current(name: str) -> HostSnapshot:
    raw = SimBackend(name).snapshot()
    snap = assess(raw, Thresholds(), raw.taken_at)
    return dataclasses.replace(snap, taken_at=time.time())


def net_snmp(tool: str, port: int, *oids: str) -> dict[str, str]:
    """OID -> value as `tool` (snmpget, snmpwalk) prints them, numeric, strings unquoted."""
    path = require_tool(tool, "snmp")
    argv = [path, "-v2c", "-c", COMMUNITY, "-On", "-Oq", "-Oe", "-t", "5", f"127.0.0.1:{port}"]
    done = subprocess.run(
        [*argv, *oids],
        capture_output=True,
        text=True,
        env={**os.environ, "MIBS": ""},
        timeout=60,
        check=True,
    )
    values: dict[str, str] = {}
    for line in done.stdout.splitlines():
        oid, _, value = line.partition(" ")
        values[oid] = value.strip('"')
    return values


@pytest.fixture
def agent(tmp_path: Path) -> Iterator[tuple[int, Path]]:
    """snmpd with the nastui agent under the default base, serving tmp_path/latest.json."""
    state = tmp_path / "state" / "latest.json"
    write_latest(state, current("scrubbing"))
    handler = f"{sys.executable} -m nastui snmp-agent --state-file {state}"
    port, stop = start_snmpd(tmp_path / "snmpd", [f"pass_persist {B} {handler}"])
    try:
        yield port, state
    finally:
        stop()


def column(values: dict[str, str], table: int, col: int) -> list[str]:
    prefix = f"{B}.{table}.1.{col}."
    rows = sorted((int(k[len(prefix) :]), v) for k, v in values.items() if k.startswith(prefix))
    return [v for _, v in rows]


def test_snmpwalk_sees_bays_and_pools_and_follows_the_file(agent: tuple[int, Path]) -> None:
    port, state = agent
    snap = current("scrubbing")
    walked = net_snmp("snmpwalk", port, B)
    assert walked[f"{B}.1.1.0"] == snap.host
    assert snap.chassis is not None
    temps = []
    for bay in snap.chassis.bays:
        slot = snap.slot(bay.number)
        drive = snap.drive(slot.drive) if slot and slot.drive else None
        assert drive is not None and drive.temperature is not None
        temps.append(str(round(drive.temperature.celsius)))
    assert column(walked, mib.BAYS, BayCol.TEMPERATURE) == temps
    assert column(walked, mib.POOLS, PoolCol.STATE) == ["1"] * len(snap.pools)
    assert column(walked, mib.DRIVES, DriveCol.SERIAL) == [d.identity.serial for d in snap.drives]
    got = net_snmp("snmpget", port, f"{B}.1.4.0", f"{B}.4.1.2.1", f"{B}.1.99.0")
    assert got[f"{B}.1.4.0"] == "0"  # fresh and healthy
    assert got[f"{B}.4.1.2.1"] == snap.pools[0].name
    assert "No Such" in got[f"{B}.1.99.0"]

    degraded = dataclasses.replace(current("resilvering"), taken_at=time.time(), host="renamed")
    write_latest(state, degraded)
    deadline = time.monotonic() + 20
    while net_snmp("snmpget", port, f"{B}.1.1.0")[f"{B}.1.1.0"] != "renamed":
        assert time.monotonic() < deadline, "the agent never picked up the new file"
        time.sleep(0.3)
    walked = net_snmp("snmpwalk", port, f"{B}.4")
    code = mib.POOL_STATE_CODES[PoolState.DEGRADED]
    assert column(walked, mib.POOLS, PoolCol.STATE) == [str(code)] * len(degraded.pools)
    assert column(walked, mib.POOLS, PoolCol.SCAN_KIND) == ["2"]  # resilver


def test_fleet_collector_reads_a_nastui_box(agent: tuple[int, Path]) -> None:
    port, _ = agent
    snap = current("scrubbing")
    host = HostConfig(
        "far",
        "127.0.0.1",
        port=port,
        profile=SnmpProfile.NASTUI,
        community=COMMUNITY,
        timeout_s=5.0,
    )
    collector = FleetCollector([host], SystemClock())
    try:
        (polled,) = asyncio.run(collector.poll())
    finally:
        collector.close()
    assert polled.error is None, polled.error
    assert polled.snapshot is not None
    back = polled.snapshot
    assert back.source == "snmp:nastui"
    assert {d.key: d.temperature.celsius if d.temperature else None for d in back.drives} == {
        d.key: round(d.temperature.celsius) if d.temperature else None for d in snap.drives
    }
    assert [(p.name, p.state) for p in back.pools] == [(p.name, p.state) for p in snap.pools]
    assert [(s.bay, s.drive) for s in back.slots] == [(s.bay, s.drive) for s in snap.slots]
    scan = back.pools[0].scan
    assert scan is not None and scan.percent is not None and 0 < scan.percent < 100


def translate(*args: str) -> subprocess.CompletedProcess[str]:
    path = require_tool("snmptranslate", "snmp")
    env = {**os.environ, "MIBS": "", "MIBDIRS": MIB_DIRS}
    return subprocess.run(
        [path, "-m", "NASTUI-MIB", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


def test_mib_parses_cleanly_and_names_resolve() -> None:
    tree = translate("-Tp")
    assert tree.returncode == 0 and tree.stderr == "", tree.stderr
    assert "nastuiBayTemperature(6)" in tree.stdout
    names = translate("-On", "NASTUI-MIB::nastuiPoolScanPercent", "NASTUI-MIB::nastuiHostHealth")
    assert names.stdout.split() == [f"{B}.4.1.10", f"{B}.1.4"]
    back = translate(f"{B}.2.1.6.3", f"{B}.1.13.0")
    assert back.stdout.split() == [
        "NASTUI-MIB::nastuiBayTemperature.3",
        "NASTUI-MIB::nastuiAgentProblem.0",
    ]
    health = translate("-Td", "NASTUI-MIB::nastuiDriveHealth").stdout
    assert "ok(0), warning(1), critical(2), unknown(3)" in health
    assert '"degrees Celsius"' in translate("-Td", "NASTUI-MIB::nastuiDriveTemperature").stdout


def test_mib_columns_match_the_agent() -> None:
    listed = translate("-Tz").stdout
    # Sample: "nastuiBayTemperature"			"1.3.6.1.4.1.8072.9999.9999.6278.2.1.6"
    oids = re.findall(r'^"(nastui\w+)"\s+"([\d.]+)"$', listed, re.MULTILINE)
    base = B.lstrip(".")
    host = {int(o.split(".")[-1]) for n, o in oids if o.startswith(f"{base}.1.")}
    assert host == {int(c) for c in HostCol}
    for table, columns in (
        (mib.BAYS, BayCol),
        (mib.DRIVES, DriveCol),
        (mib.POOLS, PoolCol),
        (mib.FANS, mib.FanCol),
        (mib.UPSES, mib.UpsCol),
        (mib.ALERTS, mib.AlertCol),
    ):
        found = {int(o.split(".")[-1]) for _, o in oids if o.startswith(f"{base}.{table}.1.")}
        assert found == {1, *(int(c) for c in columns)}, table
    pool_state = translate("-Td", "NASTUI-MIB::nastuiPoolState").stdout
    for state, code in mib.POOL_STATE_CODES.items():
        assert f"{state.value.lower()}({code})" in pool_state
    power = translate("-Td", "NASTUI-MIB::nastuiDrivePowerState").stdout
    for power_state, code in mib.POWER_CODES.items():
        assert f"{power_state.value}({code})" in power
