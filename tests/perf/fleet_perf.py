"""The fleet poll: 50 SNMP hosts (snmpsim) of which 10 are dead, against the issue's 3 s target.

Live hosts are snmpsim ports serving the Synology, QNAP, TrueNAS and UPS recordings of
tests/fixtures/snmp, read with their profiles; dead hosts are unused ports. Every host has
timeout 1 s, retries 1, so a dead one costs 2 s. Baselines in the same run: one live host
alone, and the same 50 hosts polled one after another with the same engine.

    python -m tests.perf.fleet_perf
"""

from __future__ import annotations

import asyncio
import os
import statistics
import time
from collections.abc import Callable, Sequence

from nastui.collectors.fleet import FleetCollector
from nastui.collectors.snmp import SnmpEngine
from nastui.config.remote import HostConfig, SnmpProfile
from nastui.core.clock import SystemClock
from nastui.model import FleetHost
from tests.snmplab import start_snmpsim, unused_udp_port
from tests.snmprec import FIXTURES

LIVE, DEAD = 40, 10
# A real fleet is many agents; one snmpsim process (pure Python) answers one request at a time.
SNMPSIM_PROCESSES = min(4, max(1, os.cpu_count() or 1))
RECORDINGS = {
    "synology": "synologyds214.snmprec",
    "qnap": "qnap_TVS-871U-RP_excerpt.snmprec",
    "truenas": "freenas-11.2_FREENAS-MIB_excerpt.snmprec",
    "ups": "eaton-powerxpert.snmprec",
}
Row = Callable[..., None]


def _hosts(live_ports: Sequence[int], dead_ports: Sequence[int]) -> list[HostConfig]:
    kinds = list(RECORDINGS)
    hosts = [
        HostConfig(
            f"live-{i:02d}",
            "127.0.0.1",
            port,
            SnmpProfile(kinds[i % len(kinds)]),
            community=kinds[i % len(kinds)],
        )
        for i, port in enumerate(live_ports)
    ]
    hosts += [HostConfig(f"dead-{i:02d}", "127.0.0.1", p) for i, p in enumerate(dead_ports)]
    return hosts


def _timed(collector: FleetCollector) -> tuple[float, tuple[FleetHost, ...]]:
    started = time.perf_counter()
    fleet = asyncio.run(collector.poll())
    return time.perf_counter() - started, fleet


def _cpu_timed(collector: FleetCollector) -> tuple[float, float, tuple[FleetHost, ...]]:
    """Wall seconds, this process's CPU seconds (engine thread included), the hosts."""
    cpu = time.process_time()
    took, fleet = _timed(collector)
    return took, time.process_time() - cpu, fleet


def _sequential(hosts: Sequence[HostConfig], engine: SnmpEngine) -> float:
    started = time.perf_counter()
    for host in hosts:
        _timed(FleetCollector([host], SystemClock(), engine))
    return time.perf_counter() - started


def report(row: Row) -> None:
    """Start the agents, poll, print the figures."""
    files = {k: FIXTURES / f for k, f in RECORDINGS.items()}
    per = LIVE // SNMPSIM_PROCESSES
    started = [start_snmpsim(files, ports=per) for _ in range(SNMPSIM_PROCESSES)]
    live_ports = [p for ports, _stop in started for p in ports]
    dead_ports = [unused_udp_port() for _ in range(DEAD)]
    hosts = _hosts(live_ports, dead_ports)
    try:
        with SnmpEngine() as engine:
            fleet = FleetCollector(hosts, SystemClock(), engine)
            _timed(fleet)  # warm: sessions opened, snmpsim indexes loaded
            polls = [_cpu_timed(fleet) for _ in range(3)]
            took = statistics.median(t for t, _, _ in polls)
            cpu = statistics.median(c for _, c, _ in polls)
            answered = sum(h.reachable for h in polls[-1][2])
            alone = statistics.median(
                _timed(FleetCollector(hosts[:1], SystemClock(), engine))[0] for _ in range(5)
            )
            serial = _sequential(hosts, engine)
    finally:
        for _ports, stop in started:
            stop()
    print(
        f"Fleet poll over SNMP ({LIVE} snmpsim hosts in {SNMPSIM_PROCESSES} processes + {DEAD} "
        f"dead; timeout 1 s, retries 1; {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f})"
    )
    row("baseline: one live host alone (median of 5)", f"{alone:.2f} s")
    row("baseline: the 50 hosts one after another", f"{serial:.2f} s")
    row(
        "one full fleet poll, all at once (median of 3)",
        f"{took:.2f} s",
        "<= 3 s",
        f"{answered}/{LIVE} answered; {serial / took:.1f}x faster than one by one",
    )
    row("  nastui's own CPU in that poll (engine + parse)", f"{cpu:.2f} s", "", "the rest: snmpsim")


def main() -> None:
    """Run alone: `python -m tests.perf.fleet_perf`."""

    def row(label: str, value: str, target: str = "", note: str = "") -> None:
        print(f"  {label:<44} {value:>14}  {target:<14} {note}")

    report(row)


if __name__ == "__main__":
    main()
