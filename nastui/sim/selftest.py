"""Self-tests on the simulator: a started test progresses with simulated time.

Durations follow real drives' "recommended polling time": a short test takes 2 minutes, a long
one 1 minute per 10 GB on a hard disk (about 11 hours for 4 TB), 10 minutes on flash. A
sleeping drive is left asleep, as `smartctl -n standby` does. A test ends as the drive's own
log would: failed on a drive whose last logged test failed, passed otherwise.
"""

from __future__ import annotations

from nastui.model import Drive, DriveClass, Transport
from nastui.selftest.logic.book import Run
from nastui.selftest.logic.plan import SelftestKind
from nastui.selftest.logic.text import Progress, StartAnswer, StartOutcome

SHORT_S = 120.0
FLASH_LONG_S = 600.0
HDD_LONG_S_PER_GB = 6.0


def duration_s(drive: Drive, kind: SelftestKind) -> float:
    """How long `kind` takes on `drive` in the simulator."""
    if kind is SelftestKind.SHORT:
        return SHORT_S
    flash = drive.identity.drive_class is not DriveClass.HDD
    size = drive.identity.capacity_bytes or 4 * 10**12
    return FLASH_LONG_S if flash else HDD_LONG_S_PER_GB * size / 1e9


def failing(drive: Drive) -> bool:
    """Whether a test on `drive` ends in failure (its log already shows one)."""
    return bool(drive.self_tests) and drive.self_tests[0].passed is False


class SimTester:
    """The simulator's drives' self-tests."""

    async def start(self, drive: Drive, kind: SelftestKind) -> StartAnswer:
        """Start `kind` unless the drive sleeps (then nothing is done, as on a real drive)."""
        if drive.power.spun_down:
            return StartAnswer(StartOutcome.ASLEEP, "Device is in STANDBY mode, exit(2)")
        if drive.identity.transport is Transport.USB:
            return StartAnswer(StartOutcome.FAILED, "Unknown USB bridge: self-tests unavailable")
        return StartAnswer(StartOutcome.STARTED, "Testing has begun.")

    async def progress(self, drive: Drive, run: Run, now: float) -> Progress:
        """How far `run` is at `now`."""
        spent = max(0.0, now - run.started_at)
        total = duration_s(drive, run.kind)
        if spent < total:
            left = min(99, max(1, round(100 * (1 - spent / total) / 10) * 10))
            return Progress(True, left, "Self-test routine in progress...")
        if failing(drive):
            return Progress(False, None, "Completed: read failure", passed=False)
        return Progress(False, None, "Completed without error", passed=True)
