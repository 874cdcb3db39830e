"""nastui's real interface with a fleet of 50 hosts polled every 10 s, for `make perf`.

The simulator's fleet (four hosts: a Synology, a TrueNAS, a UPS and a silent one) is repeated
to 50 rows with their own names, so the fleet screen and the dashboard behind it carry what a
50-host fleet gives them; each poll re-reads the simulator, so readings move as they do on the
demo. The SNMP side of such a poll is measured on its own by `fleet_perf`.

    python -m tests.perf.fleet_app [--hosts 50] [--every 10]
"""

from __future__ import annotations

import argparse
import dataclasses
import os

from nastui.collectors.base import FleetSource
from nastui.model import FleetHost
from nastui.session import Source, open_session
from nastui.ui.launch import textual_environment


class ManyHosts:
    """A `FleetSource` repeating another one's hosts to `count` rows."""

    def __init__(self, inner: FleetSource, count: int) -> None:
        self._inner, self._count = inner, count

    async def poll(self) -> tuple[FleetHost, ...]:
        """One poll of the inner fleet, repeated with numbered names."""
        hosts = await self._inner.poll()
        return tuple(
            dataclasses.replace(hosts[i % len(hosts)], name=f"{hosts[i % len(hosts)].name}-{i:02d}")
            for i in range(self._count)
        )

    def close(self) -> None:
        """Close the inner fleet."""
        self._inner.close()


def main() -> None:
    """Run the interface on the demo with the repeated fleet."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--hosts", type=int, default=50)
    parser.add_argument("--every", type=float, default=10.0)
    args = parser.parse_args()
    textual_environment(os.environ, None)  # as `nastui` itself does, before Textual loads
    from nastui.ui.app import make_app

    session = open_session(Source(demo=True, live=True), {})
    assert session.fleet is not None
    poll = dataclasses.replace(session.config.poll, fleet_s=args.every)
    session = dataclasses.replace(
        session,
        config=dataclasses.replace(session.config, poll=poll),
        fleet=ManyHosts(session.fleet, args.hosts),
    )
    make_app(session).run()


if __name__ == "__main__":
    main()
