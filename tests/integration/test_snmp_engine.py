"""The SNMP engine against real agents: net-snmp's snmpd (v2c, v3 authPriv) and snmpsim."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from concurrent.futures import Future

import pytest

from nastui.collectors.snmp import Result, SnmpEngine, SnmpError, SnmpTarget
from nastui.collectors.snmp_profiles.base import SYSTEM, oid
from tests.snmplab import (
    AUTH_PASSWORD,
    COMMUNITY,
    PRIV_PASSWORD,
    V3_USER,
    snmpd_port,
    start_snmpsim,
    unused_udp_port,
)
from tests.snmprec import FIXTURES, parse_snmprec

__all__ = ["snmpd_port"]  # the fixture, imported for pytest

HOST_RESOURCES = oid("1.3.6.1.2.1.25")
SYS_DESCR = oid("1.3.6.1.2.1.1.1.0")
HR_SYSTEM_UPTIME = oid("1.3.6.1.2.1.25.1.1.0")


@pytest.fixture
def engine() -> Iterator[SnmpEngine]:
    with SnmpEngine() as snmp:
        yield snmp


def v2c(
    port: int, community: str = COMMUNITY, timeout_s: float = 1.0, retries: int = 1
) -> SnmpTarget:
    return SnmpTarget("127.0.0.1", port, community=community, timeout_s=timeout_s, retries=retries)


def v3(port: int, auth: str = AUTH_PASSWORD, priv: str = PRIV_PASSWORD) -> SnmpTarget:
    return SnmpTarget("127.0.0.1", port, "3", user=V3_USER, auth_password=auth, priv_password=priv)


@pytest.mark.parametrize("version", ["2c", "3"])
def test_walks_the_system_group_and_host_resources(
    engine: SnmpEngine, snmpd_port: int, version: str
) -> None:
    target = v2c(snmpd_port) if version == "2c" else v3(snmpd_port)
    walk = engine.walk(target, [SYSTEM, HOST_RESOURCES]).result(timeout=20)
    assert walk[SYS_DESCR] == b"Lab NAS test agent"
    assert walk[oid("1.3.6.1.2.1.1.2.0")] == oid("1.3.6.1.4.1.8072.3.2.10")
    assert isinstance(walk[HR_SYSTEM_UPTIME], int)
    assert all(k[:7] in (SYSTEM, HOST_RESOURCES) for k in walk)
    names = list(walk)
    assert names == sorted(names)  # walk order, no repeats
    # hrStorageDescr rows are there, as strings
    storage = [v for k, v in walk.items() if k[:11] == oid("1.3.6.1.2.1.25.2.3.1.3")]
    assert storage
    assert all(isinstance(v, bytes) for v in storage)


def test_get_gives_none_for_a_missing_oid(engine: SnmpEngine, snmpd_port: int) -> None:
    missing = oid("1.3.6.1.2.1.1.99.0")
    got = engine.get(v3(snmpd_port), [SYS_DESCR, missing]).result(timeout=20)
    assert got == {SYS_DESCR: b"Lab NAS test agent", missing: None}


def test_wrong_community_is_one_line(engine: SnmpEngine, snmpd_port: int) -> None:
    target = v2c(snmpd_port, "wrong", timeout_s=0.3, retries=0)
    with pytest.raises(SnmpError) as info:
        engine.walk(target, [SYSTEM]).result(timeout=10)
    assert str(info.value) == (
        f"no answer from 127.0.0.1:{snmpd_port} within 0.3 s (no retries): "
        "host down, wrong port or community, or a firewall"
    )


def test_wrong_v3_auth_password_is_reported(engine: SnmpEngine, snmpd_port: int) -> None:
    # The right password first: net-snmp must not keep using its cached keys afterwards.
    assert engine.walk(v3(snmpd_port), [SYSTEM]).result(timeout=20)
    with pytest.raises(SnmpError) as info:
        engine.walk(v3(snmpd_port, auth="not-the-password"), [SYSTEM]).result(timeout=20)
    assert str(info.value) == (
        f'127.0.0.1:{snmpd_port} refused SNMPv3 user "{V3_USER}": wrong auth_password or '
        "auth_protocol (usmStatsWrongDigests)"
    )
    assert engine.walk(v3(snmpd_port), [SYSTEM]).result(timeout=20)


def test_unknown_v3_user_is_reported(engine: SnmpEngine, snmpd_port: int) -> None:
    target = SnmpTarget(
        "127.0.0.1",
        snmpd_port,
        "3",
        user="mallory",
        auth_password="whatever1",
        priv_password="x" * 8,
    )
    with pytest.raises(SnmpError, match=r'does not know SNMPv3 user "mallory" \(usmStatsUnknown'):
        engine.get(target, [SYS_DESCR]).result(timeout=20)


def test_wrong_v3_priv_password_times_out_naming_it(engine: SnmpEngine, snmpd_port: int) -> None:
    # snmpd drops what it cannot decrypt: the timeout message names the priv password.
    target = SnmpTarget(
        "127.0.0.1",
        snmpd_port,
        "3",
        user=V3_USER,
        auth_password=AUTH_PASSWORD,
        priv_password="wrong-priv",
        timeout_s=0.3,
        retries=0,
    )
    with pytest.raises(SnmpError, match="user or priv_password"):
        engine.get(target, [SYS_DESCR]).result(timeout=10)


def test_unknown_host_name(engine: SnmpEngine) -> None:
    with pytest.raises(SnmpError) as info:
        engine.get(SnmpTarget("no-such-host.invalid"), [SYS_DESCR]).result(timeout=30)
    assert str(info.value) == (
        "unknown host name no-such-host.invalid: check the [[host]] address or DNS"
    )


@pytest.mark.parametrize("version", ["2c", "3"])
def test_dead_hosts_time_out_together(engine: SnmpEngine, snmpd_port: int, version: str) -> None:
    dead = [unused_udp_port() for _ in range(4)]
    targets = [
        SnmpTarget("127.0.0.1", p, version, user="u", timeout_s=0.5, retries=1) for p in dead
    ]
    futures = [engine.walk(t, [SYSTEM]) for t in targets]
    live = engine.walk(v2c(snmpd_port), [SYSTEM, HOST_RESOURCES])
    assert live.result(timeout=10)[SYS_DESCR] == b"Lab NAS test agent"
    for future, port in zip(futures, dead, strict=True):
        with pytest.raises(SnmpError, match=f"no answer from 127.0.0.1:{port} within 0.5 s"):
            future.result(timeout=10)


def test_many_threads_share_one_engine(engine: SnmpEngine, snmpd_port: int) -> None:
    # pynetsnmp crashes when called from several threads; the engine's one thread makes it safe.
    results: list[Future[Result]] = []
    lock = threading.Lock()
    targets = [v2c(snmpd_port), v3(snmpd_port)]

    def ask(n: int) -> None:
        for i in range(40):
            target = targets[(n + i) % 2]
            future = engine.get(target, [SYS_DESCR]) if i % 2 else engine.walk(target, [SYSTEM])
            with lock:
                results.append(future)

    threads = [threading.Thread(target=ask, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 320
    for future in results:
        assert future.result(timeout=60)[SYS_DESCR] == b"Lab NAS test agent"


def test_awaitable_api_and_close(snmpd_port: int) -> None:
    engine = SnmpEngine()

    async def both() -> list[Result]:
        return list(
            await asyncio.gather(
                engine.awalk(v2c(snmpd_port), [SYSTEM]), engine.aget(v3(snmpd_port), [SYS_DESCR])
            )
        )

    walk, got = asyncio.run(both())
    assert walk[SYS_DESCR] == got[SYS_DESCR] == b"Lab NAS test agent"
    engine.close()
    engine.close()
    with pytest.raises(SnmpError, match="the SNMP engine is closed"):
        engine.get(v2c(snmpd_port), [SYS_DESCR]).result(timeout=1)


def test_close_fails_what_is_in_flight() -> None:
    engine = SnmpEngine()
    future = engine.walk(v2c(unused_udp_port(), timeout_s=5.0), [SYSTEM])
    engine.close()
    with pytest.raises(SnmpError, match="closed"):
        future.result(timeout=5)


def test_snmpsim_recording_walked_completely(engine: SnmpEngine) -> None:
    recording = FIXTURES / "synologyds214.snmprec"
    expected = parse_snmprec(recording.read_text(encoding="utf-8", errors="surrogateescape"))
    (port,), stop = start_snmpsim({"ds214": recording})
    try:
        walk = engine.walk(v2c(port, "ds214"), [(1, 3, 6, 1)]).result(timeout=60)
    finally:
        stop()
    # snmpsim strips trailing blanks from a recorded string (the padded disk models)
    served = {k: v.rstrip(b" ") if isinstance(v, bytes) else v for k, v in expected.items()}
    assert len(walk) == len(expected) == 5498
    assert list(walk) == sorted(expected)
    assert walk == served
    kinds = {type(v) for v in walk.values()}
    assert {bytes, int, tuple, str} <= kinds


def test_a_walk_is_bounded(snmpd_port: int) -> None:
    bounded = r"stopped a walk of 1\.3\.6\.1\.2\.1\.25 after 10"
    with SnmpEngine(max_rows=10) as engine, pytest.raises(SnmpError, match=bounded):
        engine.walk(v2c(snmpd_port), [HOST_RESOURCES]).result(timeout=10)
