"""The real backend for the machine nastui runs on (or a tree captured from one, via `root`).

It assembles a `HostSnapshot` from its collectors: the drive collector (identity, SMART,
temperatures, I/O, where each drive sits), the pool collector (ZFS, mdraid, btrfs, with each
leaf resolved to its drive), the fan collector (hwmon fans, CPU package, BMC sensors) and the
bay mapping from the configuration. What cannot be collected is named in
`snapshot.errors` with the fix, and the rest is still published.
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from nastui.collectors import runner
from nastui.collectors.confine import RunFn
from nastui.collectors.drives import DriveCollector, DriveReport, Schedule
from nastui.collectors.fans import FanCollector
from nastui.collectors.pools import PoolCollector
from nastui.collectors.sysfs import read_text
from nastui.collectors.zfs.known import KnownPools
from nastui.config import Config
from nastui.core.clock import Clock, SystemClock
from nastui.core.layout import assign_bays, build_chassis
from nastui.model import BaySlot, Chassis, HostSnapshot

if TYPE_CHECKING:  # the features' code loads when a feature is first used, not at start
    from nastui.selftest.logic.tester import Tester
    from nastui.swap.logic.hands import SwapHands


def local_hostname(root: Path) -> str:
    """The host name: from the tree's /etc/hostname under a non-/ root, else this machine's."""
    if root != Path("/"):
        name = read_text(root / "etc/hostname")
        if name:
            return name
    return socket.gethostname()


class LocalBackend:
    """Collects from /sys, /proc and /dev (and the tools) under `root`."""

    def __init__(
        self,
        config: Config,
        *,
        root: Path = Path("/"),
        clock: Clock | None = None,
        run: RunFn = runner.run,
        zfs_history: Callable[[str], Iterable[str]] | None = None,
        swap: Callable[[], SwapHands],
        tester: Callable[[], Tester],
    ) -> None:
        """`run`: how programs are run (under a root other than "/": `confine.confined`).
        `zfs_history(host)`: the ZFS pools the daemon's history saw on `host` (asked only
        when ZFS cannot be reached, to tell a box without ZFS from pools gone unreadable).
        `swap` and `tester`: what make the swap's hands and the self-test runner on this
        machine (the session's: they write, and live above the collectors), called when a
        swap or a self-test first needs them, so a start loads neither feature's code."""
        self._config = config
        self._make_swap, self._make_tester = swap, tester
        self._swap: SwapHands | None = None
        self._tester: Tester | None = None
        self._root = root
        self.run = run
        self._clock = clock or SystemClock()
        self._host = config.hostname or local_hostname(root)
        chassis_cfg = config.chassis
        self._chassis = build_chassis(chassis_cfg.layout) if chassis_cfg.configured else None
        poll = config.poll
        schedule = Schedule(poll.temperature_s, poll.smart_s, poll.command_timeout_s)
        self._drives = DriveCollector(root, schedule=schedule, run=run)
        self._fans = FanCollector(config, root)
        self._pools = PoolCollector(
            root,
            interval=config.poll.pools_s,
            timeout=config.poll.command_timeout_s,
            switches=config.collectors,
            known_zfs=KnownPools(
                root,
                configured=(name for name, _ in config.thresholds.pools.per_pool),
                history=(lambda: zfs_history(self._host)) if zfs_history is not None else None,
            ),
        )

    @property
    def host(self) -> str:
        """The name snapshots are published under."""
        return self._host

    @property
    def swap(self) -> SwapHands:
        """What a drive swap reads and writes on this machine (made when first asked for)."""
        if self._swap is None:
            self._swap = self._make_swap()
        return self._swap

    @property
    def tester(self) -> Tester:
        """What starts self-tests on this machine's drives (made when first asked for)."""
        if self._tester is None:
            self._tester = self._make_tester()
        return self._tester

    @property
    def root(self) -> Path:
        """The tree read from ("/" on the machine itself)."""
        return self._root

    @property
    def chassis(self) -> Chassis | None:
        """The configured chassis; None when the configuration has no [chassis] table."""
        return self._chassis

    def _slots(self, report: DriveReport) -> tuple[BaySlot, ...]:
        if self._chassis is None:
            return ()
        chassis_cfg = self._config.chassis
        return assign_bays(
            self._chassis,
            report.drives,
            chassis_cfg.bindings,
            enclosure_slots=report.enclosure_slots,
            located=report.located,
            empty_on_purpose=chassis_cfg.empty,
            leds=report.leds,
        )

    def collect_at_once(self) -> None:
        """None: the machine's reads (smartctl, zpool) run on the event loop (`collect`)."""
        return None

    async def collect(self) -> HostSnapshot:
        """Collect once (the `Backend` protocol)."""
        now = self._clock.now()
        drives = await self._drives.collect(now)
        pools = await self._pools.collect(now, drives.drives)
        snapshot = HostSnapshot(
            host=self._host,
            taken_at=now,
            chassis=self._chassis,
            slots=self._slots(drives),
            drives=drives.drives,
            pools=pools.pools,
            errors=(*drives.errors, *pools.errors),
            source="local",
            collectors=pools.states,
        )
        return await self._fans.add_to(snapshot)
