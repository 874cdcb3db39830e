"""Drive polling figures for `make perf` (issue 4): printed, never asserted.

1. A full poll of 24 drives whose `smartctl` takes 150 ms a call (the fake of tests/fakesmartctl.py
   replaying a real report, run through the real runner and parsed by the real pySMART), against
   the same poll done one drive at a time.
2. A simulated day of polling 24 drives that sleep and wake (cold spares asleep all day, a pool
   idling at night, I/O bursts that wake it): wake-ups caused by nastui's queries, counted by the
   collector and by the simulated drives themselves. Both must be 0.
"""

from __future__ import annotations

import asyncio
import os
import random
import string
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from nastui.collectors.drives import DriveCollector
from nastui.collectors.runner import CommandResult
from nastui.collectors.smart.collector import SmartCollector
from nastui.model import Drive, DriveIdentity, Temperature, TempSource, Transport
from tests.fakesys import SATA_PARENT, FakeDisk, build
from tests.smartbox import HEALTHY, SMART

REPORT = HEALTHY
PROBE = "smartctl_exporter/sat-HGST_Ultrastar_7K6000-HGST_HUS726060ALE614-sdf.json"
DEVS = [f"sd{c}" for c in string.ascii_lowercase[:24]]
DAY = 86400.0
SPIN_DOWN_S = 1200.0
STANDBY = "Device is in STANDBY mode, exit(2)\n"


async def _timed_poll(root: Path, state: Path, concurrency: int) -> float:
    smart = SmartCollector(root, concurrency=concurrency, wait_s=60.0)
    collector = DriveCollector(root, state_dir=state, smart=smart)
    started = time.perf_counter()
    report = await collector.collect(time.time())
    took = time.perf_counter() - started
    read = sum(1 for d in report.drives if d.smart_read_at is not None)
    assert read == len(DEVS), [d.smart_problem for d in report.drives]
    return took


def _slow_smartctl(bin_dir: Path, report: Path) -> None:
    """A smartctl that takes 150 ms and prints a real report (a shell script: a fake in Python
    would add its own interpreter start-up to every call, which a real smartctl does not have)."""
    bin_dir.mkdir(parents=True)
    script = bin_dir / "smartctl"
    script.write_text(f'#!/bin/sh\nsleep 0.15\nexec cat "{report}"\n')
    script.chmod(0o755)


def full_poll() -> tuple[float, float, float]:
    """Seconds for one full poll of 24 drives (150 ms per smartctl): the first (pySMART
    imported during it), a later one, and a later one done one drive at a time."""
    with tempfile.TemporaryDirectory(prefix="nastui-perf-") as tmp:
        base = Path(tmp)
        disks = [
            FakeDisk(dev, SATA_PARENT.format(n=i), by_id=[f"ata-HGST_X_S{i:02d}"])
            for i, dev in enumerate(DEVS)
        ]
        root = build(base / "root", disks)
        _slow_smartctl(base / "bin", SMART / REPORT)
        saved = os.environ.get("PATH", "")
        os.environ["PATH"] = f"{base / 'bin'}{os.pathsep}{saved}"
        try:
            first = asyncio.run(_timed_poll(root, base / "state", 32))
            later = asyncio.run(_timed_poll(root, base / "state", 32))
            sequential = asyncio.run(_timed_poll(root, base / "state", 1))
        finally:
            os.environ["PATH"] = saved
    return first, later, sequential


@dataclass
class SimDrive:
    """A simulated disk: asleep or spinning, with its I/O counter and wake-up tally."""

    dev: str
    asleep: bool = True
    io_bytes: int = 0
    last_io: float = -DAY
    woken_by_io: int = 0
    woken_by_query: int = 0


class SimBox:
    """24 simulated disks answering smartctl command lines like real ones would."""

    def __init__(self, seed: int = 4) -> None:
        self.drives = {dev: SimDrive(dev) for dev in DEVS}
        self.rng = random.Random(seed)
        self.report = (SMART / REPORT).read_text()
        self.probe = (SMART / PROBE).read_text()
        self.calls = 0
        self.standby_answers = 0

    def step(self, now: float) -> None:
        """I/O for the next 30 s: the pool (sda-sdp) busy by day, idle at night; spares never."""
        hour = (now % DAY) / 3600
        for i, drive in enumerate(self.drives.values()):
            busy = i < 16 and 7 <= hour < 23 and self.rng.random() < (0.5 if i < 8 else 0.05)
            if busy:
                if drive.asleep:
                    drive.woken_by_io += 1
                drive.asleep = False
                drive.io_bytes += self.rng.randint(1, 64) << 20
                drive.last_io = now
            elif not drive.asleep and now - drive.last_io >= SPIN_DOWN_S:
                drive.asleep = True

    async def run(self, argv: tuple[str, ...], *, timeout: float) -> CommandResult:
        """A smartctl call: standby answers honour `-n standby`; anything else wakes a disk."""
        self.calls += 1
        drive = self.drives[Path(argv[-1]).name]
        if drive.asleep and "-n" in argv:
            self.standby_answers += 1
            return CommandResult(argv, 2, STANDBY, "", 0.01)
        if drive.asleep:
            drive.asleep = False
            drive.woken_by_query += 1
        return CommandResult(argv, 0, self.probe if "-j" in argv else self.report, "", 0.01)


def _drives(now: float) -> list[Drive]:
    """20 drives with a drivetemp sensor, 4 without (they get the JSON probe every 30 s)."""
    out = []
    for i, dev in enumerate(DEVS):
        temp = Temperature(35.0, now, TempSource.DRIVETEMP) if i < 20 else None
        out.append(
            Drive(
                dev, DriveIdentity(serial=f"S{i:02d}", transport=Transport.SATA), temperature=temp
            )
        )
    return out


async def _day(box: SimBox, start: float) -> SmartCollector:
    smart = SmartCollector(Path("/simulated"), run=box.run)
    now = start
    while now < start + DAY:
        box.step(now)
        io = {d.dev: d.io_bytes for d in box.drives.values()}
        await smart.poll(_drives(now), now, io)
        now += 30.0
    return smart


def simulated_day() -> dict[str, int]:
    """Counts from a day of 30-second polls (SMART every 300 s, probes every 30 s)."""
    box = SimBox()
    smart = asyncio.run(_day(box, 1_700_000_000.0 - 1_700_000_000.0 % DAY))
    return {
        "polls": int(DAY // 30),
        "smartctl calls": box.calls,
        "answered in standby": box.standby_answers,
        "wake-ups by I/O": sum(d.woken_by_io for d in box.drives.values()),
        "wake-ups by nastui (drives' count)": sum(d.woken_by_query for d in box.drives.values()),
        "wake-ups by nastui (collector's count)": smart.wakes.total,
    }


def report(row: Callable[..., None]) -> None:
    """Print the section with the harness's `_row`."""
    print("Drives: SMART polling (fake smartctl replaying a real report, real runner and pySMART)")
    first, concurrent, sequential = full_poll()
    row(
        "24 drives, 150 ms per smartctl: full poll",
        f"{concurrent:.2f} s",
        "<= 0.5 s",
        f"one at a time {sequential:.2f} s; first poll {first:.2f} s (imports pySMART)",
    )
    started = time.perf_counter()
    day = simulated_day()
    took = time.perf_counter() - started
    woken = day["wake-ups by nastui (drives' count)"]
    counted = day["wake-ups by nastui (collector's count)"]
    row(
        "a simulated day, 24 drives: wake-ups by nastui",
        str(woken),
        "0",
        f"collector counted {counted}",
    )
    note = ", ".join(f"{k} {v}" for k, v in day.items() if "nastui" not in k)
    row("  (simulated in", f"{took:.1f} s)", "", note)
