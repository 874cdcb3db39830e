"""The fleet collector polling real agents: snmpd, snmpsim recordings, and a dead host."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from nastui.collectors.fleet import SYS_DESCR, FleetCollector
from nastui.collectors.snmp import SnmpEngine, SnmpTarget
from nastui.collectors.snmp_profiles import profile_for
from nastui.collectors.snmp_profiles.base import Profile, Walk
from nastui.config.remote import HostConfig, SnmpProfile
from nastui.model import HostSnapshot
from nastui.sim.clock import FakeClock
from tests.snmplab import (
    AUTH_PASSWORD,
    COMMUNITY,
    PRIV_PASSWORD,
    V3_USER,
    snmpd_port,
    start_snmpsim,
    unused_udp_port,
)
from tests.snmprec import FIXTURES

__all__ = ["snmpd_port"]

RECORDINGS = {
    "synology": "synologyds214.snmprec",
    "qnap": "qnap_TVS-871U-RP_excerpt.snmprec",
    "truenas": "freenas-11.2_FREENAS-MIB_excerpt.snmprec",
    "ups": "eaton-powerxpert.snmprec",
}


@pytest.fixture(scope="module")
def snmpsim_port() -> Iterator[int]:
    """One snmpsim serving the Synology, QNAP, TrueNAS and UPS recordings (community = kind)."""
    (port,), stop = start_snmpsim({k: FIXTURES / f for k, f in RECORDINGS.items()})
    try:
        yield port
    finally:
        stop()


@pytest.fixture
def engine() -> Iterator[SnmpEngine]:
    with SnmpEngine() as snmp:
        yield snmp


def run(collector: FleetCollector) -> tuple:  # type: ignore[type-arg]
    return asyncio.run(collector.poll())


def test_polls_every_kind_of_host_with_a_dead_one(
    engine: SnmpEngine, snmpd_port: int, snmpsim_port: int, tmp_path: Path
) -> None:
    (tmp_path / "auth").write_text(AUTH_PASSWORD + "\n", encoding="utf-8")
    dead = unused_udp_port()
    hosts = [
        HostConfig("lab", "127.0.0.1", snmpd_port, community=COMMUNITY),
        HostConfig(
            "lab-v3",
            "127.0.0.1",
            snmpd_port,
            version="3",
            user=V3_USER,
            auth_password_file=tmp_path / "auth",
            priv_password_env="LAB_PRIV",
        ),
        HostConfig("gone", "127.0.0.1", dead, timeout_s=0.5, retries=1),
        *(
            HostConfig(kind, "127.0.0.1", snmpsim_port, profile=SnmpProfile(kind), community=kind)
            for kind in RECORDINGS
        ),
    ]
    collector = FleetCollector(hosts, FakeClock(1000.0), engine, env={"LAB_PRIV": PRIV_PASSWORD})
    fleet = run(collector)
    assert [h.name for h in fleet] == ["lab", "lab-v3", "gone", *RECORDINGS]
    by_name = {h.name: h for h in fleet}
    for name in ("lab", "lab-v3", *RECORDINGS):
        host = by_name[name]
        assert host.error is None, host.error
        assert host.reachable
        assert host.last_contact == host.polled_at == 1000.0
        assert host.snapshot is not None
        assert host.snapshot.host == name
        assert host.snapshot.source == f"snmp:{host.profile}"
    assert by_name["lab"].description == "Lab NAS test agent"
    assert by_name["lab"].address == f"127.0.0.1:{snmpd_port}"
    assert by_name["synology"].snapshot.drives
    assert by_name["ups"].snapshot.ups
    gone = by_name["gone"]
    assert (gone.snapshot, gone.last_contact, gone.polled_at) == (None, None, 1000.0)
    assert gone.error == (
        f"no answer from 127.0.0.1:{dead} within 0.5 s (1 retry): "
        "host down, wrong port or community, or a firewall"
    )


def test_a_failing_host_keeps_its_last_snapshot(engine: SnmpEngine, snmpd_port: int) -> None:
    clock = FakeClock(1000.0)
    env = {"LAB_AUTH": AUTH_PASSWORD, "LAB_PRIV": PRIV_PASSWORD}
    host = HostConfig(
        "lab",
        "127.0.0.1",
        snmpd_port,
        version="3",
        user=V3_USER,
        auth_password_env="LAB_AUTH",
        priv_password_env="LAB_PRIV",
        timeout_s=0.3,
        retries=0,
    )
    collector = FleetCollector([host], clock, engine, env=env)
    (first,) = run(collector)
    assert first.reachable
    clock.advance(60)
    env["LAB_AUTH"] = "rotated-password"  # read at each poll
    (second,) = run(collector)
    assert second.error is not None and "usmStatsWrongDigests" in second.error
    assert (second.snapshot, second.last_contact, second.description) == (
        first.snapshot,
        1000.0,
        first.description,
    )
    assert second.polled_at == 1060.0
    del env["LAB_PRIV"]
    (third,) = run(collector)
    assert third.error == "host lab: priv_password_env names $LAB_PRIV, which is not set"
    assert third.snapshot == first.snapshot


def test_a_parser_that_raises_is_the_hosts_error(engine: SnmpEngine, snmpd_port: int) -> None:
    def broken(name: str, walk: Walk, now: float) -> HostSnapshot:
        raise ValueError("row 3 has no index\nsecond line")

    def lookup(kind: SnmpProfile) -> Profile:
        return Profile("broken", (), broken) if kind == SnmpProfile.APC else profile_for(kind)

    hosts = [
        HostConfig("bad", "127.0.0.1", snmpd_port, SnmpProfile.APC, community=COMMUNITY),
        HostConfig("ok", "127.0.0.1", snmpd_port, community=COMMUNITY),
    ]
    bad, ok = run(FleetCollector(hosts, FakeClock(), engine, profiles=lookup))
    assert bad.error == (
        f"the broken profile could not read 127.0.0.1:{snmpd_port}'s answer: "
        "ValueError: row 3 has no index second line"
    )
    assert bad.snapshot is None
    assert ok.reachable


def test_an_unknown_host_name_is_one_line(engine: SnmpEngine) -> None:
    collector = FleetCollector([HostConfig("x", "no-such-host.invalid")], FakeClock(), engine)
    (host,) = run(collector)
    assert host.error == "unknown host name no-such-host.invalid: check the [[host]] address or DNS"


def test_close_closes_only_its_own_engine(snmpd_port: int) -> None:
    engine = SnmpEngine()
    FleetCollector([], FakeClock(), engine).close()
    assert engine.get(SnmpTarget("127.0.0.1", snmpd_port, community=COMMUNITY), [SYS_DESCR]).result(
        10
    )
    own = FleetCollector(
        [HostConfig("lab", "127.0.0.1", snmpd_port, community=COMMUNITY)], FakeClock()
    )
    (host,) = run(own)
    assert host.reachable
    own.close()
    engine.close()
