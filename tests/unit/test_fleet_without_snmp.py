"""The fleet without the snmp extra: one UNKNOWN note per host saying how to install it."""

from __future__ import annotations

import asyncio
import sys

import pytest

import nastui.collectors
from nastui.collectors.fleet_source import (
    SNMP_MISSING,
    NoSnmpFleet,
    fleet_source,
    snmp_problem,
)
from nastui.config.remote import HostConfig, SnmpProfile
from nastui.core.assess import fleet_alerts
from nastui.core.fleetview import fleet_row, fleet_summary
from nastui.model import Health
from nastui.sim.clock import FakeClock

HOSTS = [
    HostConfig("nas2", "192.0.2.20"),
    HostConfig("ups1", "192.0.2.30", 1161, profile=SnmpProfile.UPS),
]


@pytest.fixture
def no_pynetsnmp(monkeypatch: pytest.MonkeyPatch) -> None:
    """As if pynetsnmp-2 were not installed (`import pynetsnmp` raises ImportError)."""
    monkeypatch.setitem(sys.modules, "pynetsnmp", None)
    for name in ("snmp", "snmp_netsnmp"):  # as if never imported: not cached, not bound
        monkeypatch.delitem(sys.modules, f"nastui.collectors.{name}", raising=False)
        monkeypatch.delattr(nastui.collectors, name, raising=False)


def test_on_python_3_14_it_says_the_extra_is_not_available_there(no_pynetsnmp: None) -> None:
    # pynetsnmp-2 declares Python < 3.14: "pip install 'nastui[snmp]'" would be no fix there.
    assert snmp_problem((3, 13)) == SNMP_MISSING
    said = snmp_problem((3, 14))
    assert said is not None and said.startswith("not polled, the snmp extra is not available")
    assert "Python 3.14" in said and "pip install" not in said and "\n" not in said


def test_fleet_source_says_how_to_enable_snmp(no_pynetsnmp: None) -> None:
    assert snmp_problem((3, 13)) == SNMP_MISSING
    fleet = fleet_source(HOSTS, FakeClock(1000.0))
    assert isinstance(fleet, NoSnmpFleet)
    hosts = asyncio.run(fleet.poll())
    fleet.close()
    assert [h.name for h in hosts] == ["nas2", "ups1"]
    assert [h.address for h in hosts] == ["192.0.2.20:161", "192.0.2.30:1161"]
    rows = [fleet_row(h, 1000.0) for h in hosts]
    for host, row in zip(hosts, rows, strict=True):
        assert host.error is None and host.polled_at is None
        (alert,) = fleet_alerts(host, 1000.0)  # no "host unreachable"
        assert (alert.key, alert.health, alert.message) == (
            "collect:snmp",
            Health.UNKNOWN,
            SNMP_MISSING,
        )
        assert (row.health, row.status) == (Health.UNKNOWN, "UNKNOWN")
        assert row.problem == f"snmp: {SNMP_MISSING}"
    assert fleet_summary(rows) == "2 hosts: 2 UNKNOWN"
    assert "pip install 'nastui[snmp]'" in SNMP_MISSING and "\n" not in SNMP_MISSING


def test_fleet_source_is_snmp_when_installed() -> None:
    pytest.importorskip("pynetsnmp")
    from nastui.collectors.fleet import FleetCollector

    assert snmp_problem() is None
    fleet = fleet_source(HOSTS, FakeClock())
    assert isinstance(fleet, FleetCollector)
    fleet.close()
