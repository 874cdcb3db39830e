"""Opening nastui on a source: configuration + backend + clock + store, for the CLI and the UI.

`open_session` is the one place that decides between the simulator (`--demo`, `--scenario`) and
the real machine (optionally under `--root`), so every front end picks its source the same way.
Under `--root` it also decides what answers for programs (`nastui.collectors.replay`): a capture
bundle's recorded outputs (read with its configuration, on its clock, without its `[[host]]`s and
`[[ups]]`s: the box is replayed, not its network), nothing for another tree, the programs
themselves for this machine's root.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import math
import os
import sys
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from nastui import exits
from nastui.collectors.base import Backend, FleetSource, reads_until
from nastui.config import AlertsConfig, Config, ConfigError, find_config_path, load_config
from nastui.control import acks as ack_file
from nastui.control.statefile import StateError
from nastui.core.clock import Clock, SystemClock
from nastui.core.statefiles import BACKUP_SUFFIX, SWAP_FILE, demo_state_dir, state_dir
from nastui.core.store import SnapshotStore
from nastui.history.dirs import PRIVATE_DIR_MODE, make_dir
from nastui.model import UNASSESSED, Acknowledgement, HostSnapshot

# What one source needs and the other does not (the machine's collectors, the simulator, a
# capture bundle's reader, the history's database) is imported where that source is opened:
# `nastui status --demo` and the interface's first frame load only what they show.
if TYPE_CHECKING:
    import asyncio

    from nastui.collectors.confine import RunFn
    from nastui.collectors.replay import Tree
    from nastui.control.locate import Locator
    from nastui.history.db import History
    from nastui.selftest.logic.tester import Tester
    from nastui.sim.backend import SimBackend
    from nastui.swap.logic.hands import SwapHands

HISTORY_SEED_S = 86400.0
SWAP_FLOW = "nastui.swap.flow.status"  # the swap as status and the interface show it
SWAP_NAMES = (SWAP_FILE, SWAP_FILE + BACKUP_SUFFIX)
T = TypeVar("T")


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
    # Set up the `[[host]]` fleet (the demo's simulated one) for polling now; False leaves it to
    # `Session.open_fleet` (the interface opens it after its first frame).
    fleet: bool = True

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
    remote hosts; None when no `[[host]]` is configured or the source wants none), history
    (the daemon's file, its last day already in the store; None when there is none) and state
    directory (acknowledgements: the machine's, or the demo's own)."""

    config: Config
    backend: Backend
    clock: Clock
    make_locator: Callable[[], Locator]  # `locator`, made when a LED is first switched
    store: SnapshotStore = field(default_factory=SnapshotStore)
    fleet: FleetSource | None = None
    history: History | None = None
    state_dir: Path | None = None  # None: keeps no state (a demo without HOME)
    legacy_acks: tuple[Acknowledgement, ...] = ()  # alert acks an older nastui kept in history
    tree: Tree | None = None  # what --root opened (keeps an unpacked bundle while open)
    past: Callable[[], History | None] = lambda: None
    """The history this source has, opened when called (the daemon's file, or the demo's
    simulated day built then): `history_for`."""
    fleet_opener: Callable[[], FleetSource | None] = lambda: None
    """The fleet this source has, set up when called: `open_fleet`."""

    @functools.cached_property
    def locator(self) -> Locator:
        """What switches this box's locate LEDs (made on first use: a start lights nothing)."""
        return self.make_locator()

    def open_fleet(self) -> FleetSource | None:
        """The fleet, set up now if the source left it for later (None: there is none)."""
        if self.fleet is None:
            self.fleet = self.fleet_opener()
            self.fleet_opener = lambda: None
        return self.fleet

    async def poll(self, *, wait: float | None = None) -> HostSnapshot:
        """Collect once, apply the acknowledgements and publish (`publish`); returns the
        assessed snapshot.

        `wait`: the longest the collection waits for its slow reads (SMART) before it
        publishes what it has; the reads go on, and the next poll on this event loop takes
        them up (a drive whose first read is still going on is `smart_pending`). None: as
        long as the collectors wait by themselves (`nastui status` reads SMART, then judges)."""
        import asyncio  # loaded already: this runs on its event loop

        deadline = None if wait is None else asyncio.get_running_loop().time() + wait
        with reads_until(deadline):
            raw = await self.backend.collect()
        return self.publish(raw)

    def poll_now(self) -> HostSnapshot:
        """`poll`, for a one-shot command: on an event loop of its own (`run_async`), or with
        none when the backend's reads never wait (the simulator's: `status --demo` never loads
        asyncio)."""
        raw = self.backend.collect_at_once()
        return run_async(self.poll()) if raw is None else self.publish(raw)

    def publish(self, raw: HostSnapshot) -> HostSnapshot:
        """Apply the acknowledgements (`acks.json` in the state directory: the one place
        status, the interface, the daemon, the agent and the export take them from) to a
        collected snapshot, assess it and publish it; returns the assessed snapshot."""
        try:
            drive_acks, alert_acks = self._acks()
        except StateError:
            drive_acks, alert_acks = {}, ()
        if drive_acks:
            raw = dataclasses.replace(
                raw,
                drives=tuple(
                    dataclasses.replace(d, acks=drive_acks[d.key])
                    if d.key in drive_acks and d.verdict == UNASSESSED
                    else d
                    for d in raw.drives
                ),
            )
        acks = self._with_legacy(alert_acks)
        return self.store.ingest(raw, self.config.thresholds, self.clock.now(), acks)

    def _acks(self) -> tuple[ack_file.DriveAcks, tuple[Acknowledgement, ...]]:
        return ack_file.load_all(self.state_dir) if self.state_dir is not None else ({}, ())

    def alert_acks(self) -> tuple[Acknowledgement, ...]:
        """The alert acknowledgements kept in the state directory."""
        try:
            return self._acks()[1]
        except StateError:
            return ()

    def every_alert_ack(self) -> tuple[Acknowledgement, ...]:
        """Every alert acknowledgement a poll applies: those an older nastui kept in its
        history, then the state directory's (`alert_acks`)."""
        return self._with_legacy(self.alert_acks())

    def _with_legacy(self, alert_acks: tuple[Acknowledgement, ...]) -> tuple[Acknowledgement, ...]:
        return (*self.legacy_acks, *alert_acks)  # the file's win over older ones (same key)

    def may_keep_swap(self) -> bool:
        """Whether there may be a swap in progress to show: a swap file (or its backup) in the
        state directory, or the swap's code loaded already (a demo without a state directory
        keeps its swap in a directory of this process's once one is written). What only shows
        a swap (`status`, the interface) loads the swap's code only then; a state directory
        that cannot be looked into says yes, for the swap's reader to say why."""
        if SWAP_FLOW in sys.modules:
            return True
        if self.state_dir is None:
            return False
        try:
            return any((self.state_dir / name).exists() for name in SWAP_NAMES)
        except OSError:
            return True

    def writable_state_dir(self) -> Path:
        """The state directory, for writing acknowledgements.

        Raises:
            StateError: the session keeps no state (a demo without HOME or NASTUI_STATE_DIR).
        """
        if self.state_dir is None:
            raise StateError("the demo keeps no state here: set NASTUI_STATE_DIR or HOME")
        return self.state_dir


def run_async(main: Awaitable[T], runner: asyncio.Runner | None = None) -> T:
    """`asyncio.run(main)` for a one-shot command (or `runner.run(main)`, on an event loop
    that runs on after it: the interface's), its result handed back beside the task rather
    than as the task's result: on the way out, Python 3.11's `asyncio.run` looks up its own
    SIGINT handler with `signal.getsignal`, which formats the handler's repr, main task and
    result included, twice (for a snapshot of 24 drives, 2.4 ms)."""
    import asyncio  # here, not at the top: a command that needs no event loop never loads it

    kept: list[T] = []

    async def keep() -> None:
        kept.append(await main)

    if runner is None:
        asyncio.run(keep())
    else:
        runner.run(keep())
    return kept[0]


def load_for(source: Source, env: Mapping[str, str], tree: Tree | None = None) -> Config:
    """The configuration a source uses.

    The simulator uses built-in defaults unless a file is named, so a demo on a configured box
    shows the demo box; the real machine uses the named file, else a capture bundle's (under
    `--root BUNDLE`; `tree` when it is already open), else the first one found.
    Raises `nastui.config.ConfigError` and `nastui.collectors.replay.BundleError`.
    """
    path = source.config
    if path is None and not source.demo:
        if tree is None and source.root is not None:
            from nastui.collectors.replay import open_tree

            tree = open_tree(source.root, env)
        path = (tree.config if tree is not None else None) or find_config_path(env)
    return load_config(path)


def open_or_exit(source: Source, env: Mapping[str, str]) -> Session:
    """`open_session` for front ends: what cannot be opened ends the command
    (`nastui.exits.CommandExit`: EX_CONFIG for the configuration, EX_USAGE for a scenario
    name, EX_DATAERR for a `--root` that is not a tree or a bundle), with one line naming it."""
    try:
        return open_session(source, env)
    except ConfigError as exc:
        raise exits.CommandExit(exits.EX_CONFIG, f"nastui: {exc}") from None
    # An except clause's class is looked up only when an exception reaches it: the simulator
    # and the bundle reader are not loaded for these unless something went wrong.
    except _unknown_scenario() as exc:
        raise exits.CommandExit(exits.EX_USAGE, f"nastui: {exc}") from None
    except _bundle_error() as exc:
        raise exits.CommandExit(exits.EX_DATAERR, f"nastui: --root {exc}") from None


def _unknown_scenario() -> type[Exception]:
    from nastui.sim.scenarios import UnknownScenario

    return UnknownScenario


def _bundle_error() -> type[Exception]:
    from nastui.collectors.replay import BundleError

    return BundleError


def open_session(source: Source, env: Mapping[str, str]) -> Session:
    """Open a source, and put what answers for programs in front of the runner (see the
    module docstring). Raises `ConfigError`, `nastui.sim.UnknownScenario` or `BundleError`."""
    if source.demo:
        return _open_demo(source, load_for(source, env), env)
    return _open_machine(source, env)


def _open_machine(source: Source, env: Mapping[str, str]) -> Session:
    """The machine (or the tree or capture bundle `--root` names)."""
    from nastui.collectors import runner, standin
    from nastui.collectors.confine import confined, is_other_box
    from nastui.collectors.local import LocalBackend
    from nastui.collectors.replay import open_tree

    tree = open_tree(source.root, env) if source.root is not None else None
    config = load_for(source, env, tree)
    if tree is not None and tree.manifest is not None:  # the box replayed, not its network
        config = dataclasses.replace(config, hosts=(), ups=(), alerts=AlertsConfig())
    standin.use(tree.stand_in if tree is not None else None)
    clock = _clock_of(tree, live=source.live)
    root = tree.root if tree is not None else Path("/")
    # Under a tree the stand-in answers for programs; where it lets them run (fakes made for
    # the tree: NASTUI_ROOT_TOOLS=path), a command naming this machine's devices is refused.
    run = confined(runner.run, root) if is_other_box(root) else runner.run
    timeout = config.poll.command_timeout_s
    backend = LocalBackend(
        config,
        root=root,
        clock=clock,
        run=run,
        zfs_history=lambda host: _zfs_history(env, host),
        swap=lambda: _machine_swap(root, timeout),
        tester=lambda: _machine_tester(run, timeout),
    )
    store = SnapshotStore()
    directory = state_dir(env, os.geteuid())
    session = Session(
        config,
        backend,
        clock,
        lambda: _machine_locator(root, run, store, backend.host, directory),
        store,
        _fleet(source, config, clock) if source.fleet else None,
        state_dir=directory,
        legacy_acks=_legacy_acks(env),
        tree=tree,
        past=lambda: _local_history(env),
        fleet_opener=lambda: _fleet(source, config, clock),
    )
    return attach_history(session, _local_history(env)) if source.history else session


def _sim_locator(sim: SimBackend) -> Locator:
    """The simulator's locate LEDs."""
    from nastui.sim.locate import SimLocator

    return SimLocator(sim)


def _machine_swap(root: Path, timeout: float) -> SwapHands:
    """The swap's hands on the machine. Its writes name the tree's drives by-id, through the
    runner itself: under another tree its stand-in runs nothing unless fakes were made for it
    (the tests')."""
    from nastui.collectors import runner
    from nastui.swap.io.machine import MachineSwap

    return MachineSwap(root, runner.run, timeout=max(60.0, timeout))


def _machine_tester(run: RunFn, timeout: float) -> Tester:
    """The self-test runner on the machine (smartctl)."""
    from nastui.selftest.io.tester import SmartctlTester

    return SmartctlTester(run, timeout=timeout)


def _machine_locator(
    root: Path, run: RunFn, store: SnapshotStore, host: str, directory: Path
) -> Locator:
    """The locate LEDs of the machine: the ladder of methods, on the latest snapshot."""
    from nastui.control.locate_ladder import LadderLocator

    return LadderLocator(root, run=run, latest=lambda: store.latest(host), state_dir=directory)


def _clock_of(tree: Tree | None, *, live: bool) -> Clock:
    """The wall clock; for a capture bundle the time it was taken (running on from there in
    the live front ends), so it replays as it was seen."""
    if tree is None or tree.manifest is None:
        return SystemClock()
    from nastui.sim.clock import FakeClock, FollowingClock

    taken = tree.manifest.taken_at
    return FollowingClock(taken) if live else FakeClock(taken)


def _open_demo(source: Source, config: Config, env: Mapping[str, str]) -> Session:
    """The simulator. With a demo state directory it runs on the wall clock (sim time =
    `SIM_EPOCH` + wall time since the demo session began, kept in `demo.json` there) and keeps
    its LEDs and scrubs there; without one (tests, screenshots) on a clock of its own at
    `SIM_EPOCH`: standing still, or following the wall clock's pace when live."""
    from nastui.control.demostate import FileDemoStore, open_demo
    from nastui.sim.backend import SimBackend
    from nastui.sim.clock import SIM_EPOCH, FakeClock, FollowingClock
    from nastui.sim.hands import load_hands
    from nastui.sim.scenarios import DEFAULT_SCENARIO, get_scenario

    scenario = get_scenario(source.scenario or DEFAULT_SCENARIO).name
    directory = _private(demo_state_dir(env, scenario))
    store, offset = None, 0.0
    clock: Clock | None = None
    if directory is not None:
        store = FileDemoStore(directory)
        wall = time.time()
        anchor = open_demo(store, wall).anchor
        offset = (anchor if anchor is not None else math.floor(wall)) - SIM_EPOCH
        clock = SystemClock() if source.live else FakeClock(math.floor(wall))
    elif source.live:
        clock = FollowingClock()
    sim_clock: Clock = clock if clock is not None else FakeClock()
    sim = SimBackend(
        scenario,
        seed=source.seed,
        clock=sim_clock,
        host=config.hostname,
        offset=offset,
        store=store,
    )
    if directory is not None:  # the operator's hands on the demo box (`nastui swap sim ...`)
        sim.hands, sim.hands_dir = load_hands(directory), directory
    session = Session(
        config,
        sim,
        sim_clock,
        functools.partial(_sim_locator, sim),
        fleet=_fleet(source, config, sim_clock, sim) if source.fleet else None,
        state_dir=directory,
        past=lambda: _demo_history(source, sim, sim_clock.now()),
        fleet_opener=lambda: _fleet(source, config, sim_clock, sim),
    )
    if not source.history:
        return session
    return attach_history(session, _demo_history(source, sim, sim_clock.now()))


def _private(directory: Path | None) -> Path | None:
    """`directory`, created mode 0700 (its missing parents too) whatever the umask, if it can
    be (else the first write says why)."""
    if directory is not None:
        with contextlib.suppress(OSError):
            make_dir(directory, PRIVATE_DIR_MODE)
    return directory


def _from_history(
    env: Mapping[str, str], read: Callable[[History], tuple[T, ...]]
) -> tuple[T, ...]:
    """`read` of the daemon's history file (opened read-only and closed again); nothing when
    there is no history or it cannot be read."""
    from nastui.history.db import HistoryError

    history = _local_history(env)
    if history is None:
        return ()
    try:
        return read(history)
    except HistoryError:
        return ()
    finally:
        history.close()


def _legacy_acks(env: Mapping[str, str]) -> tuple[Acknowledgement, ...]:
    """Alert acknowledgements an older nastui kept in the history database (read-only)."""
    return _from_history(env, lambda history: history.acks())


def _zfs_history(env: Mapping[str, str], host: str) -> tuple[str, ...]:
    """The ZFS pools the daemon's history saw on `host` (none without a history)."""
    return _from_history(env, lambda history: history.zfs_pools(host))


def _local_history(env: Mapping[str, str]) -> History | None:
    """The daemon's history file, read-only; None when there is none (normal: no daemon)."""
    from nastui.history.db import HISTORY_FILE, History, HistoryError

    path = state_dir(env, os.geteuid()) / HISTORY_FILE
    try:
        return History.open(path, readonly=True) if path.exists() else None
    except HistoryError:
        return None


def _demo_history(source: Source, sim: SimBackend, end: float) -> History | None:
    """The simulated day before `end` (clock time), as the daemon would have kept it."""
    from nastui.history.db import HistoryError
    from nastui.sim.history import demo_history

    try:
        return demo_history(
            sim.scenario.name,
            seed=source.seed,
            host=sim.host,
            end=end - sim.offset,
            offset=sim.offset,
        )
    except HistoryError:
        return None


def history_for(session: Session) -> History | None:
    """The history the session's source has, opened (for the demo: its simulated day, built
    now). The interface calls this off its event loop after the first frame, then
    `attach_history`."""
    return session.past()


def attach_history(session: Session, history: History | None) -> Session:
    """Attach the history and put its last day of samples in the store, so trend lines and
    the fan replay start full after a restart (`open_session` calls it, or the interface once
    it has loaded the history)."""
    if history is None:
        return session
    from nastui.history.db import HistoryError

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
    `[[ups]]`s; None when none is configured.
    Imported here so commands that never poll the fleet do not load the SNMP engine."""
    fleet: FleetSource
    if sim is not None:
        from nastui.sim.fleet import SimFleet

        fleet = SimFleet(
            sim.scenario.name,
            seed=source.seed,
            clock=clock,
            limits=config.thresholds,
            offset=sim.offset,
        )
        return fleet
    if not config.hosts and not config.ups:
        return None
    from nastui.collectors.fleet_source import fleet_source

    return fleet_source(config.hosts, clock, limits=config.thresholds, ups=config.ups)
