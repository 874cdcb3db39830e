"""The fleet source: `[[host]]`s over SNMP when it is installed (else one note), `[[ups]]` over NUT.

SNMP is an optional extra (`nastui[snmp]`: pynetsnmp-2, GPL-2.0+, with Twisted under it). Without
it `fleet_source` gives `NoSnmpFleet`, whose hosts each carry one UNKNOWN collector note saying
how to enable SNMP, never a false CRITICAL "host unreachable": nothing was asked, so nothing is
known to be down.

    fleet = fleet_source(config.hosts, clock, limits=config.thresholds, ups=config.ups)
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Sequence

from nastui.collectors.base import FleetSource
from nastui.collectors.snmp_target import host_label
from nastui.config.remote import HostConfig, UpsConfig
from nastui.core.assess import assess
from nastui.core.clock import Clock
from nastui.model import CollectorError, FleetHost, HostSnapshot, Thresholds

SNMP_MISSING = (
    "not polled, the snmp extra is not installed: pip install 'nastui[snmp]' "
    "(pipx: pipx inject nastui pynetsnmp-2)"
)


# pynetsnmp-2 declares Python < 3.14: there, installing the extra is no fix.
SNMP_CAPPED_AT = (3, 14)
SNMP_UNAVAILABLE = (
    "not polled, the snmp extra is not available on Python {0}.{1} (pynetsnmp-2 declares "
    "Python < {0}.{1}): run nastui on Python 3.11 to 3.13 to poll [[host]]s over SNMP"
)


def snmp_problem(version: tuple[int, int] | None = None) -> str | None:
    """Why the SNMP engine cannot load (one line naming the fix); None when it can.

    Args:
        version: the Python (major, minor) to explain for; default the running one.
    """
    version = version or (sys.version_info.major, sys.version_info.minor)
    try:
        import nastui.collectors.snmp  # noqa: F401  (pynetsnmp and net-snmp's library)
    except ImportError:
        return (
            SNMP_UNAVAILABLE.format(*SNMP_CAPPED_AT) if version >= SNMP_CAPPED_AT else SNMP_MISSING
        )
    except OSError as exc:  # pynetsnmp found no libnetsnmp to load
        return f"net-snmp's library could not be loaded ({exc}): apt-get install libsnmp40"
    return None


class NoSnmpFleet:
    """A `FleetSource` that polls nothing: every host gets the note saying why.

    Args:
        hosts: the configured hosts, in order.
        clock: the time the notes are stamped with.
        reason: the one line each host shows.
        limits: the thresholds the (empty) snapshots are assessed with.
    """

    def __init__(
        self,
        hosts: Sequence[HostConfig],
        clock: Clock,
        reason: str,
        *,
        limits: Thresholds | None = None,
    ) -> None:
        self.hosts = tuple(hosts)
        self.clock = clock
        self.reason = reason
        self.limits = limits if limits is not None else Thresholds()

    async def poll(self) -> tuple[FleetHost, ...]:
        """One `FleetHost` per host: never polled, its snapshot holding only the note."""
        now = self.clock.now()
        return tuple(self._host(host, now) for host in self.hosts)

    def close(self) -> None:
        """Nothing to release."""

    def _host(self, host: HostConfig, now: float) -> FleetHost:
        raw = HostSnapshot(
            host.name,
            now,
            errors=(CollectorError("snmp", self.reason),),
            source=f"snmp:{host.profile.value}",
        )
        return FleetHost(
            host.name,
            host_label(host.address, host.port),
            host.profile.value,
            snapshot=assess(raw, self.limits, now),
        )


class CombinedFleet:
    """Several `FleetSource`s polled together, their hosts in the sources' order."""

    def __init__(self, sources: Sequence[FleetSource]) -> None:
        self.sources = tuple(sources)

    async def poll(self) -> tuple[FleetHost, ...]:
        """Poll every source at once."""
        results = await asyncio.gather(*(source.poll() for source in self.sources))
        return tuple(host for hosts in results for host in hosts)

    def close(self) -> None:
        """Close every source."""
        for source in self.sources:
            source.close()


def _snmp_source(
    hosts: Sequence[HostConfig], clock: Clock, limits: Thresholds | None
) -> FleetSource:
    problem = snmp_problem()
    if problem is not None:
        return NoSnmpFleet(hosts, clock, problem, limits=limits)
    from nastui.collectors.fleet import FleetCollector

    return FleetCollector(hosts, clock, limits=limits)


def fleet_source(
    hosts: Sequence[HostConfig],
    clock: Clock,
    *,
    limits: Thresholds | None = None,
    ups: Sequence[UpsConfig] = (),
) -> FleetSource:
    """The fleet for `[[host]]`s (SNMP, or a `NoSnmpFleet` saying how to enable it) and
    `[[ups]]`s (NUT, which needs no extra), the hosts first."""
    sources: list[FleetSource] = []
    if hosts:
        sources.append(_snmp_source(hosts, clock, limits))
    if ups:
        from nastui.collectors.nut import NutFleet

        sources.append(NutFleet(ups, clock, limits=limits))
    return sources[0] if len(sources) == 1 else CombinedFleet(sources)
