"""The worst case for `make perf`: nastui's real interface with every bay's temperature
changing every second.

A backend wraps the simulator and moves each drive's reading by a degree, alternating, on every
poll (once a second); everything downstream (assessment, store, screens, widgets) is the real
code path.
"""

from __future__ import annotations

import dataclasses
import math
import os

from nastui.model import HostSnapshot, Temperature
from nastui.session import Session, Source, open_session
from nastui.sim import SimBackend
from nastui.ui.launch import textual_environment


class ChurningBackend:
    """`SimBackend` with every temperature changed at every poll."""

    def __init__(self, sim: SimBackend) -> None:
        self._sim = sim
        self.swap, self.tester = sim.swap, sim.tester

    @property
    def host(self) -> str:
        """The simulated host's name."""
        return self._sim.host

    def collect_at_once(self) -> None:
        return None  # collected on the event loop, as the machine's

    async def collect(self) -> HostSnapshot:
        """The simulator's snapshot, each drive a degree warmer on odd seconds."""
        snapshot = self._sim.snapshot()
        bump = math.floor(snapshot.taken_at) % 2
        drives = tuple(
            dataclasses.replace(
                d,
                temperature=Temperature(
                    d.temperature.celsius + bump, snapshot.taken_at, d.temperature.source
                ),
            )
            if d.temperature is not None
            else d
            for d in snapshot.drives
        )
        return dataclasses.replace(snapshot, drives=drives)


def main() -> None:
    """Run the interface on the churning backend, polling every second."""
    textual_environment(os.environ, None)  # as `nastui` itself does, before Textual loads
    from nastui.ui.app import make_app

    session = open_session(Source(demo=True, live=True), {})
    assert isinstance(session.backend, SimBackend)
    churn = Session(
        session.config, ChurningBackend(session.backend), session.clock, session.make_locator
    )
    make_app(churn, poll_interval=1.0).run()


if __name__ == "__main__":
    main()
