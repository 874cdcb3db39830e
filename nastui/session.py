"""Opening nastui on a source: configuration + backend + clock + store, for the CLI and the UI.

`open_session` is the one place that decides between the simulator (`--demo`, `--scenario`) and
the real machine (optionally under `--root`), so every front end picks its source the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from nastui.collectors.base import Backend
from nastui.collectors.local import LocalBackend
from nastui.config import Config, find_config_path, load_config
from nastui.core.clock import Clock, SystemClock
from nastui.core.store import SnapshotStore
from nastui.model import HostSnapshot
from nastui.sim import DEFAULT_SCENARIO, SimBackend
from nastui.sim.clock import FakeClock, FollowingClock


@dataclass(frozen=True, slots=True)
class Source:
    """Where to read from: the simulator or the machine (what the global options say)."""

    demo: bool = False
    scenario: str | None = None
    seed: int = 0
    root: Path | None = None
    config: Path | None = None
    live: bool = False  # the demo clock follows the wall clock (the TUI) instead of standing still


@dataclass
class Session:
    """An opened source: its configuration, backend, clock and store."""

    config: Config
    backend: Backend
    clock: Clock
    store: SnapshotStore = field(default_factory=SnapshotStore)

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


def open_session(source: Source, env: Mapping[str, str]) -> Session:
    """Open a source. Raises `ConfigError` or `nastui.sim.UnknownScenario`."""
    config = load_for(source, env)
    if source.demo:
        clock: Clock = FollowingClock() if source.live else FakeClock()
        backend: Backend = SimBackend(
            source.scenario or DEFAULT_SCENARIO,
            seed=source.seed,
            clock=clock,
            host=config.hostname,
        )
        return Session(config, backend, clock)
    clock = SystemClock()
    return Session(config, LocalBackend(config, root=source.root or Path("/"), clock=clock), clock)
