"""Opening nastui on a source: configuration + backend + clock + store, for the CLI and the UI.

`open_session` is the one place that decides between the simulator (`--demo`, `--scenario`) and
the real machine (optionally under `--root`), so every front end picks its source the same way.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from nastui import exits
from nastui.collectors import runner
from nastui.collectors.base import Backend, FleetSource
from nastui.collectors.local import LocalBackend
from nastui.config import Config, ConfigError, find_config_path, load_config
from nastui.control.locate import Locator
from nastui.control.locate_ladder import LadderLocator
from nastui.core.clock import Clock, SystemClock
from nastui.core.statefiles import state_dir
from nastui.core.store import SnapshotStore
from nastui.history.db import HISTORY_FILE, History, HistoryError
from nastui.model import HostSnapshot
from nastui.sim import DEFAULT_SCENARIO, SimBackend, UnknownScenario
from nastui.sim.clock import FakeClock, FollowingClock
from nastui.sim.history import demo_history
from nastui.sim.locate import SimLocator

HISTORY_SEED_S = 86400.0


@dataclass(frozen=True, slots=True)
class Source:
    """Where to read from: the simulator or the machine (what the global options say)."""

    demo: bool = False
    scenario: str | None = None
    seed: int = 0
    root: Path | None = None
    config: Path | None = None
    live: bool = False  # the demo clock follows the wall clock (the TUI) instead of standing still
    history: bool = True  # read the daemon's history into the store (the TUI's trends)
    fleet: bool = True  # set up the `[[host]]` fleet (the demo's simulated one) for polling

    @classmethod
    def from_options(cls, options: object, *, live: bool = False, history: bool = False) -> Source:
        """The source the global command-line options describe (an argparse namespace).
        Only the interface wants the history, and only the live front ends (the interface, the
        daemons) poll the fleet: a one-shot command skips their cost."""
        return cls(
            demo=bool(getattr(options, "demo", False)),
            scenario=getattr(options, "scenario", None),
            seed=int(getattr(options, "seed", None) or 0),
            root=getattr(options, "root", None),
            config=getattr(options, "config", None),
            live=live,
            history=history,
            fleet=live,
        )


@dataclass
class Session:
    """An opened source: its configuration, backend, clock, store, locate LEDs, fleet (the
    remote hosts; None when no `[[host]]` is configured or the source wants none) and history
    (the daemon's file, its last day already in the store; None when there is none)."""

    config: Config
    backend: Backend
    clock: Clock
    locator: Locator
    store: SnapshotStore = field(default_factory=SnapshotStore)
    fleet: FleetSource | None = None
    history: History | None = None

    async def poll(self) -> HostSnapshot:
        """Collect once, assess and publish; returns the assessed snapshot."""
        raw = await self.backend.collect()
        return self.store.ingest(raw, self.config.thresholds, self.clock.now())


def load_for(source: Source, env: Mapping[str, str]) -> Config:
    """The configuration a source uses.

    The simulator uses built-in defaults unless a file is named, so a demo on a configured box
    shows the demo box; the real machine uses the named file, else the first one found.
    Raises `nastui.config.ConfigError`.
    """
    path = source.config
    if path is None and not source.demo:
        path = find_config_path(env)
    return load_config(path)


def open_or_explain(source: Source, env: Mapping[str, str], err: TextIO) -> Session | int:
    """`open_session` for front ends: the session, or the exit code after one line on `err`
    naming what is wrong (EX_CONFIG for the configuration, EX_USAGE for a scenario name)."""
    try:
        return open_session(source, env)
    except ConfigError as exc:
        print(f"nastui: {exc}", file=err)
        return exits.EX_CONFIG
    except UnknownScenario as exc:
        print(f"nastui: {exc}", file=err)
        return exits.EX_USAGE


def open_session(source: Source, env: Mapping[str, str]) -> Session:
    """Open a source. Raises `ConfigError` or `nastui.sim.UnknownScenario`."""
    config = load_for(source, env)
    if source.demo:
        clock: Clock = FollowingClock() if source.live else FakeClock()
        sim = SimBackend(
            source.scenario or DEFAULT_SCENARIO,
            seed=source.seed,
            clock=clock,
            host=config.hostname,
        )
        session = Session(
            config, sim, clock, SimLocator(sim), fleet=_fleet(source, config, clock, sim)
        )
        if not source.history:
            return session
        return attach_history(session, _demo_history(source, sim, clock.now()))
    clock = SystemClock()
    root = source.root or Path("/")
    backend = LocalBackend(config, root=root, clock=clock)
    store = SnapshotStore()
    locator = LadderLocator(
        root,
        run=runner.run,
        latest=lambda: store.latest(backend.host),
        state_dir=state_dir(env, os.geteuid()),
    )
    session = Session(config, backend, clock, locator, store, _fleet(source, config, clock))
    return attach_history(session, _local_history(env)) if source.history else session


def _local_history(env: Mapping[str, str]) -> History | None:
    """The daemon's history file, read-only; None when there is none (normal: no daemon)."""
    path = state_dir(env, os.geteuid()) / HISTORY_FILE
    try:
        return History.open(path, readonly=True) if path.exists() else None
    except HistoryError:
        return None


def _demo_history(source: Source, sim: SimBackend, end: float) -> History | None:
    """The simulated day before `end`, as the daemon would have kept it."""
    try:
        return demo_history(sim.scenario.name, seed=source.seed, host=sim.host, end=end)
    except HistoryError:
        return None


def history_for(source: Source, session: Session, env: Mapping[str, str]) -> History | None:
    """The history `source` has, opened (for the demo: its simulated day, built now). The
    interface calls this off its event loop after the first frame, then `attach_history`."""
    if source.demo:
        sim = session.backend
        return (
            _demo_history(source, sim, session.clock.now()) if isinstance(sim, SimBackend) else None
        )
    return _local_history(env)


def attach_history(session: Session, history: History | None) -> Session:
    """Attach the history and put its last day of samples in the store, so trend lines and
    the fan replay start full after a restart (`open_session` calls it, or the interface once
    it has loaded the history)."""
    if history is None:
        return session
    host, since = session.backend.host, session.clock.now() - HISTORY_SEED_S
    try:
        for metric in history.metrics(host):
            session.store.seed(host, metric, history.samples(host, metric, since))
    except HistoryError:
        history.close()
        return session
    session.history = history
    return session


def _fleet(
    source: Source, config: Config, clock: Clock, sim: SimBackend | None = None
) -> FleetSource | None:
    """The fleet to poll: the scenario's simulated hosts for the demo, else an SNMP collector
    for the configured `[[host]]`s (a note per host without the snmp extra) and NUT for the
    `[[ups]]`s; None when the source wants no fleet or none is configured.
    Imported here so commands that never poll the fleet do not load the SNMP engine."""
    if not source.fleet:
        return None
    fleet: FleetSource
    if sim is not None:
        from nastui.sim.fleet import SimFleet

        fleet = SimFleet(sim.scenario.name, seed=source.seed, clock=clock, limits=config.thresholds)
        return fleet
    if not config.hosts and not config.ups:
        return None
    from nastui.collectors.fleet_source import fleet_source

    return fleet_source(config.hosts, clock, limits=config.thresholds, ups=config.ups)
