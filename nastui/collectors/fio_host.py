"""`LocalBenchHost`: the real machine as `nastui.bench.host.BenchHost` wants it.

Programs run through the one runner (`runner.stream` for the steps, `runner.run` for short
commands); device counters come from /proc/diskstats through `nastui.collectors.iostat`; SMART
before and after a run from `smartctl -n standby -j -a` (never waking a sleeping disk), parsed by
`nastui.collectors.smart.json_report` and flattened to (name, value) pairs worth comparing.
"""

from __future__ import annotations

import asyncio
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import fields
from pathlib import Path

from nastui.collectors import runner
from nastui.collectors.fillroom import directory_devs, space_needs
from nastui.collectors.fio_target import (
    TargetError,
    hung,
    inspect_target,
    looked,
    on_daemon_thread,
    whole_disk,
)
from nastui.collectors.iostat import read_counters
from nastui.collectors.smart.json_report import parse_json
from nastui.collectors.smart.reading import SmartReading
from nastui.model import BenchTarget, TargetKind, UnseenProcess
from nastui.model.errors import ParseError

SMART_TIMEOUT_S = 30.0
WATCH_TIMEOUT_S = 5.0  # a watch's look taking longer stops the run (it would be blind)
# Devices without SMART: loop, RAM and compressed-RAM disks, device-mapper, md, network.
_NO_SMART = re.compile(r"^(loop|ram|zram|dm-|md|nbd|rbd|drbd|zd)")

Pairs = tuple[tuple[str, str], ...]


def smart_pairs(reading: SmartReading) -> Pairs:
    """The counters of a reading worth comparing before and after a benchmark."""
    pairs: list[tuple[str, str]] = []
    for name in ("temperature_c", "power_on_hours", "smart_passed"):
        value = getattr(reading, name)
        if value is not None:
            pairs.append((name, str(value)))
    for attr in reading.attributes:
        if attr.raw is not None:
            pairs.append((f"{attr.id} {attr.name}", str(attr.raw)))
    for health in (reading.nvme, reading.scsi):
        if health is None:
            continue
        for f in fields(health):
            value = getattr(health, f.name)
            if value is not None:
                pairs.append((f.name, str(value)))
    return tuple(pairs)


def held_lowers(target: BenchTarget) -> frozenset[str]:
    """The devices below `target` that a run holds O_EXCL with it (`BenchTarget.lowers`):
    asked about while the run holds them, so their claim is the run's own."""
    return frozenset(number for _path, number in target.lowers)


class LocalBenchHost:
    """Benchmarks on this machine (or on `root` for the counters)."""

    def __init__(self, root: Path = Path("/")) -> None:
        self.root = root
        self._brief: frozenset[str] = frozenset()
        self._unseen: tuple[UnseenProcess, ...] = ()

    @property
    def python(self) -> str:
        """This interpreter: it runs `python -m nastui.bench.wsc`."""
        return sys.executable

    async def stream(
        self,
        argv: Sequence[str],
        *,
        timeout: float,
        on_stdout: runner.LineHandler,
        on_stderr: runner.LineHandler,
        stop: asyncio.Event,
    ) -> runner.CommandResult:
        """`runner.stream`."""
        return await runner.stream(
            argv, timeout=timeout, on_stdout=on_stdout, on_stderr=on_stderr, stop=stop
        )

    async def run(self, argv: Sequence[str], *, timeout: float) -> runner.CommandResult:
        """`runner.run`."""
        return await runner.run(argv, timeout=timeout)

    def now(self) -> float:
        """`time.monotonic`."""
        return time.monotonic()

    def disk_bytes(self, dev: str) -> tuple[int, int] | None:
        """Bytes read and written by `dev` since boot."""
        counters = read_counters(self.root)
        sample = counters.get(dev) if counters else None
        return None if sample is None else (sample.read_bytes, sample.write_bytes)

    async def in_use(self, target: BenchTarget) -> tuple[str, ...]:
        """The target inspected again (`nastui.collectors.fio_target.inspect_target`)."""
        try:
            again = await inspect_target(target.path, root=self.root, held=held_lowers(target))
        except TargetError as exc:
            return (str(exc),)
        if target.devno is not None and again.devno != target.devno:
            return (f"{target.path} is device {again.devno}, not {target.devno}",)
        return again.in_use

    async def uses_now(self, target: BenchTarget) -> tuple[str, ...]:
        """Who else uses the target's footprint now, and whether it is still the footprint
        inspected (`nastui.collectors.fio_target.looked`); for a directory being filled, what
        needs its filesystem's free space now (`nastui.collectors.fillroom`)."""
        if target.kind is TargetKind.DIRECTORY:
            return await self._space_now(target)
        if target.devno is None:
            return ()
        verdict = await looked(self.root, target.devno, WATCH_TIMEOUT_S, held_lowers(target))
        self._unseen = verdict.unseen
        brief = verdict.brief & set(verdict.conflicts)
        uses = tuple(u for u in verdict.conflicts if u not in brief or u in self._brief)
        self._brief = brief  # a read-only probe counts when a second look still sees it
        if verdict.footprint and target.footprint and verdict.footprint != target.footprint:
            now, was = "; ".join(verdict.footprint), "; ".join(target.footprint)
            uses += (f"what the target writes to changed: now {now} (was {was})",)
        return uses

    async def _space_now(self, target: BenchTarget) -> tuple[str, ...]:
        """What needs the free space of a directory target's filesystem now: a loop device
        set up over a file there while the run fills it."""

        def look() -> tuple[str, ...]:
            devs = directory_devs(self.root, target.path, target.devno)
            return space_needs(self.root, devs, target.free_bytes)

        try:
            return await on_daemon_thread(look, WATCH_TIMEOUT_S)
        except TimeoutError:
            return (hung(WATCH_TIMEOUT_S),)

    def unseen(self) -> tuple[UnseenProcess, ...]:
        """The processes the watch's last look could not look into."""
        return self._unseen

    async def smart(self, target: BenchTarget) -> Pairs | None:
        """SMART counters of the target's disk; None for devices without SMART or when unread."""
        ident = target.identity
        if target.dev is None or ident is None or _NO_SMART.match(target.dev):
            return None
        # pySMART comes with it: only when needed
        from nastui.collectors.smart.collector import smart_type

        kind = smart_type(ident.transport)
        if kind is None:
            return None
        disk = f"/dev/{whole_disk(self.root, target.dev)}"
        argv = ("smartctl", "-n", "standby", "-j", "-d", kind, "-a", disk)
        result = await runner.run(argv, timeout=SMART_TIMEOUT_S)
        if result.error is not None or not result.stdout.strip():
            return None
        try:
            reading = parse_json(result.stdout, f"smartctl -j -a {disk}")
        except ParseError:
            return None
        return smart_pairs(reading) or None
