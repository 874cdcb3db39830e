"""`SimFleet`: simulated remote hosts behind the real `FleetSource` seam, for the demo, the tests
and the screenshots.

The hosts and what they report are in `nastui.sim.fleet_hosts`. Like `SimBackend`, the hosts at
a given clock time depend only on (scenario, seed, time). Snapshots are assessed with
`nastui.core.assess.assess` and default thresholds, so their alerts and roll-ups are the real
ones.
"""

from __future__ import annotations

from nastui.core.assess import assess
from nastui.core.clock import Clock
from nastui.core.timeshift import shift_fleet_host
from nastui.model import FleetHost, HostSnapshot, Thresholds
from nastui.sim.clock import SIM_EPOCH, FakeClock
from nastui.sim.fleet_hosts import HostContext, SimHost, fleet_for
from nastui.sim.scenarios import DEFAULT_SCENARIO, get_scenario

FLEET_PERIOD_S = 60
FLEET_PHASE_S = 12
"""The simulated fleet is polled every minute, the last time 12 s before t0: a poll returns the
hosts as that poll found them."""


def silent_error(host: SimHost) -> str:
    """The poll error of a v2c host that does not answer (2 s timeout, 1 retry), in the words
    of `nastui.collectors.snmp_target.timeout_message`."""
    return (
        f"no answer from {host.address} within 2 s (1 retry): "
        "host down, wrong port or community, or a firewall"
    )


class SimFleet:
    """A seeded, deterministic simulated fleet (implements `nastui.collectors.base.FleetSource`)."""

    def __init__(
        self,
        scenario: str = DEFAULT_SCENARIO,
        *,
        seed: int = 0,
        clock: Clock | None = None,
        limits: Thresholds | None = None,
        offset: float = 0.0,
    ) -> None:
        """Set up the scenario's fleet.

        Args:
            scenario: a name from `nastui.sim.SCENARIOS`.
            seed: varies serial numbers and readings; same seed, same fleet.
            clock: where time comes from; a `FakeClock` at `SIM_EPOCH` by default.
            limits: thresholds the snapshots are assessed with (defaults if None).
            offset: clock time minus sim time (a demo on the wall clock); what `poll`
                returns is stamped in clock time.

        Raises:
            UnknownScenario: no scenario has that name.
        """
        self._scenario = get_scenario(scenario).name
        self._seed = seed
        self._clock: Clock = clock if clock is not None else FakeClock()
        self._limits = limits or Thresholds()
        self._hosts = fleet_for(self._scenario)
        self._offset = offset
        self.polls = 0
        self.closed = False

    @property
    def hosts(self) -> tuple[SimHost, ...]:
        """The simulated hosts, in configured order."""
        return self._hosts

    def hosts_at(self, t: float) -> tuple[FleetHost, ...]:
        """Every host as the last simulated poll before time `t` found it."""
        return tuple(self._host_at(host, t) for host in self._hosts)

    async def poll(self) -> tuple[FleetHost, ...]:
        """The `FleetSource` protocol's poll: every host at `clock.now()`."""
        self.polls += 1
        hosts = self.hosts_at(self._clock.now() - self._offset)
        return tuple(shift_fleet_host(h, self._offset) for h in hosts)

    def close(self) -> None:
        """Nothing to release; recorded for tests."""
        self.closed = True

    def _snapshot(self, host: SimHost, t: float) -> HostSnapshot:
        raw = host.build(HostContext(self._seed, self._scenario, host.name, t))
        return assess(raw, self._limits, t)

    def _host_at(self, host: SimHost, now: float) -> FleetHost:
        t = now - (now - SIM_EPOCH + FLEET_PHASE_S) % FLEET_PERIOD_S
        silent = host.silent_since
        answered = silent is None or t < silent
        contact = t if answered else silent
        if contact is None:
            return FleetHost(host.name, host.address, host.profile, polled_at=t)
        return FleetHost(
            host.name,
            host.address,
            host.profile,
            snapshot=self._snapshot(host, contact),
            polled_at=t,
            last_contact=contact,
            error=None if answered else silent_error(host),
            description=host.description,
        )
