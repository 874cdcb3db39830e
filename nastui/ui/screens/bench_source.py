"""Where the bench screen runs: the real machine, or (in the demo) a modelled drive.

`BenchSource` bundles what the screen needs besides the session: the host the runner uses, how a
typed path becomes an inspected target, which targets to offer, where runs are saved, and the
clock runs are stamped with (the session's: the wall clock, or the frozen sim clock of tests and
screenshots, so pictures do not change with the date).
Tests and screenshots hand the app their own (`make_app(..., bench_source=...)`).
"""

from __future__ import annotations

import dataclasses
import os
import platform
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from nastui.bench import store
from nastui.bench.host import BenchHost
from nastui.bench.replay import demo_target
from nastui.bench.simhost import ModelHost, directory_on
from nastui.collectors.fio_host import LocalBenchHost
from nastui.collectors.fio_target import check_directory, inspect_target
from nastui.model import BenchTarget, HostSnapshot, TargetKind
from nastui.session import Session


@dataclass
class BenchSource:
    """How and where the bench screen runs.

    Attributes:
        host: runs the steps (or models them).
        inspect: path -> inspected target (raises `TargetError`).
        runs_dir: where runs are saved and listed from; None keeps them in the session only.
        clock: Unix time for run ids and stamps.
        host_name: saved with each run.
        demo: a modelled drive (the screen says so).
        target: the target chosen before any is picked (the demo's directory).
    """

    host: BenchHost
    inspect: Callable[[str], Awaitable[BenchTarget]]
    runs_dir: Path | None
    clock: Callable[[], float]
    host_name: str
    demo: bool = False
    target: BenchTarget | None = None

    def candidates(self, snapshot: HostSnapshot | None) -> list[tuple[str, str]]:
        """Targets to offer: (path, what it is); drives by their stable by-id name."""
        offered: list[tuple[str, str]] = []
        if self.demo:
            offered.append(("/tmp", "a directory (demo: on a modelled 7200 rpm disk)"))
        for drive in snapshot.drives if snapshot else ():
            by_id = [i for i in drive.by_id if not i.startswith("wwn-")] if drive.by_id else []
            path = f"/dev/disk/by-id/{by_id[0]}" if by_id else f"/dev/{drive.dev}"
            ident = drive.identity
            offered.append((path, f"{drive.dev} {ident.model or ''} {ident.serial or ''}".strip()))
        return offered + (self._demo_directories(snapshot) if self.demo else [])

    def _demo_directories(self, snapshot: HostSnapshot | None) -> list[tuple[str, str]]:
        """A directory on one drive of each other model in the demo (an SSD, an NVMe drive),
        named by the drive as `nastui bench run PROFILE DEV --demo` takes it."""
        seen = {self.target.identity.model if self.target and self.target.identity else None}
        offered = []
        for drive in snapshot.drives if snapshot else ():
            if drive.identity.model in seen:
                continue
            seen.add(drive.identity.model)
            offered.append((drive.dev, f"a directory on {drive.dev} {drive.identity.model}"))
        return offered


def demo_source(
    session: Session, latest: Callable[[], HostSnapshot | None], *, pace: float = 0.0
) -> BenchSource:
    """Steps on a modelled drive (`nastui.bench.simhost`): a directory on the demo's 7200 rpm
    disk, or on a demo drive named bare ("nvme0n1"); the sim's drives themselves are pool
    members, so writing to one is refused as it would be on a real box."""

    async def inspect(path: str) -> BenchTarget:
        snapshot = latest()
        for drive in snapshot.drives if snapshot else ():
            if path == drive.dev:
                return directory_on(demo_target("/tmp"), drive.identity, drive.dev)
        for drive in snapshot.drives if snapshot else ():
            if path.endswith(f"/{drive.dev}") or any(path.endswith(i) for i in drive.by_id):
                member = snapshot.pool_of(drive.key) if snapshot else None
                use = f"member of pool {member[0].name}" if member else "zfs_member signature"
                return BenchTarget(
                    path, TargetKind.DEVICE, drive.dev, drive.identity, in_use=(use,)
                )
        # Any other path is a directory on the modelled disk, as `bench run --demo` takes it:
        # one that is none (a typo) is refused in its words, not run "on /nope" then failed.
        check_directory(path, "the demo takes a directory or one of its drives")
        return demo_target(path)

    return BenchSource(
        host=ModelHost(pace=pace),
        inspect=inspect,
        runs_dir=store.demo_runs_dir(os.environ, session.state_dir),
        clock=session.clock.now,
        host_name="demo",
        demo=True,
        target=demo_target("/tmp"),
    )


def local_source(session: Session, root: Path) -> BenchSource:
    """The machine itself; runs saved in the runs directory."""

    async def inspect(path: str) -> BenchTarget:
        return await inspect_target(path, root=root)

    return BenchSource(
        host=LocalBenchHost(root),
        inspect=inspect,
        runs_dir=store.runs_dir(os.environ, os.geteuid()),
        clock=session.clock.now,
        host_name=session.config.hostname or platform.node(),
    )


def source_for(
    session: Session, latest: Callable[[], HostSnapshot | None], *, live: bool
) -> BenchSource:
    """The demo's modelled drive on the simulator, the machine otherwise."""
    root = getattr(session.backend, "root", None)
    if isinstance(root, Path):
        return local_source(session, root)
    return demo_source(session, latest, pace=1.0 if live else 0.0)


def with_runs_dir(source: BenchSource, runs_dir: Path | None) -> BenchSource:
    """The same source saving elsewhere (tests)."""
    return dataclasses.replace(source, runs_dir=runs_dir)
