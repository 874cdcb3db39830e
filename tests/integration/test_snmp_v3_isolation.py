"""SNMPv3 hosts sharing an agent's engine and user: wrong credentials on one never fail another.

net-snmp keeps one key set per (engine ID, user) for the whole process. Before the engine made
such peers take turns, a `[[host]]` with a wrong password for the same agent and user replaced
the good host's keys, and the good host failed too (no answer, usmStatsNotInTimeWindows): a
false CRITICAL. A real snmpd with two v3 users checks both the shared-user and the other-user
cases, over several polls.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from nastui.collectors.fleet import FleetCollector
from nastui.collectors.snmp import SnmpEngine
from nastui.config.remote import HostConfig
from nastui.sim.clock import FakeClock
from tests.snmplab import AUTH_PASSWORD, PRIV_PASSWORD, V3_USER, start_snmpd

pytestmark = pytest.mark.integration

OTHER_USER = "otheruser"
OTHER_AUTH = "otherauth456"
OTHER_PRIV = "otherpriv456"


@pytest.fixture
def two_user_snmpd(tmp_path: Path) -> Iterator[int]:
    """The lab snmpd with a second SNMPv3 user (authPriv, SHA/AES)."""
    port, stop = start_snmpd(
        tmp_path / "snmpd",
        extra_lines=[
            f"rouser {OTHER_USER} authpriv",
            f'createUser {OTHER_USER} SHA "{OTHER_AUTH}" AES "{OTHER_PRIV}"',
        ],
    )
    try:
        yield port
    finally:
        stop()


def v3_host(name: str, port: int, user: str) -> HostConfig:
    """A v3 host whose passwords are read from NAME_AUTH and NAME_PRIV."""
    return HostConfig(
        name,
        "127.0.0.1",
        port,
        version="3",
        user=user,
        auth_password_env=f"{name.upper()}_AUTH",
        priv_password_env=f"{name.upper()}_PRIV",
        timeout_s=1.0,
        retries=0,
    )


def test_wrong_credentials_do_not_fail_the_good_hosts(two_user_snmpd: int) -> None:
    port = two_user_snmpd
    env = {
        "GOOD_AUTH": AUTH_PASSWORD,
        "GOOD_PRIV": PRIV_PASSWORD,
        "WRONG_AUTH": "not-the-password",
        "WRONG_PRIV": PRIV_PASSWORD,
        "OTHER_AUTH": OTHER_AUTH,
        "OTHER_PRIV": OTHER_PRIV,
        "BADPRIV_AUTH": AUTH_PASSWORD,
        "BADPRIV_PRIV": "not-the-priv-password",
    }
    hosts = [
        v3_host("good", port, V3_USER),
        v3_host("wrong", port, V3_USER),
        v3_host("other", port, OTHER_USER),
        v3_host("badpriv", port, V3_USER),
    ]
    clock = FakeClock(1000.0)
    with SnmpEngine() as engine:
        collector = FleetCollector(hosts, clock, engine, env=env)
        for _ in range(3):
            by_name = {h.name: h for h in asyncio.run(collector.poll())}
            for name in ("good", "other"):
                assert by_name[name].error is None, by_name[name].error
                assert by_name[name].description == "Lab NAS test agent"
            wrong = by_name["wrong"].error
            assert wrong is not None and "usmStatsWrongDigests" in wrong
            badpriv = by_name["badpriv"].error
            assert badpriv is not None and badpriv.startswith("no answer from 127.0.0.1")
            clock.advance(60)
