"""What a capture runs beyond nastui's own poll, for the person reading the bundle: each drive's
full smartctl report (text and JSON), zpool's text status and list, and the tools' versions.

Nothing here writes or wakes: every smartctl carries `-n standby`, and runs only for a drive the
poll just found awake (active or idle), never for one asleep or in an unknown state; the other
programs only read. They run through the runner, so the recorder keeps them with the rest.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from nastui.collectors import runner, standin
from nastui.collectors.smart.collector import smart_type, target_of
from nastui.collectors.smart.pysmart_parse import STANDBY_GUARD
from nastui.model import Drive, HostSnapshot, PowerState

AWAKE = (PowerState.ACTIVE, PowerState.IDLE)
CONCURRENCY = 4
VERSIONS: tuple[tuple[str, ...], ...] = (
    ("smartctl", "--version"),
    ("zpool", "version"),
    ("btrfs", "--version"),
    ("mdadm", "--version"),
    ("ipmitool", "-V"),
    ("sg_ses", "--version"),
    ("ledctl", "--version"),
    ("nvme", "version"),
)
ZPOOL: tuple[tuple[str, ...], ...] = (("zpool", "status", "-p", "-v"), ("zpool", "list", "-v"))


def smart_argvs(root: Path, drive: Drive) -> list[tuple[str, ...]]:
    """`smartctl -x` as text and as JSON for an awake drive with SMART (none otherwise)."""
    if drive.power not in AWAKE or smart_type(drive.identity.transport) is None:
        return []
    target = target_of(root, drive)
    base = ("smartctl", *STANDBY_GUARD, "-d", target.kind)
    return [(*base, "-x", target.path), (*base, "-j", "-x", target.path)]


def planned(root: Path, snapshot: HostSnapshot) -> tuple[list[tuple[str, ...]], list[str]]:
    """The argument lists to run, and a note for each drive left out and why."""
    argvs: list[tuple[str, ...]] = []
    notes: list[str] = []
    for drive in snapshot.drives:
        wanted = smart_argvs(root, drive)
        if not wanted and smart_type(drive.identity.transport) is not None:
            notes.append(f"{drive.dev}: {drive.power.value}, so no smartctl -x (never woken)")
        argvs += wanted
    if standin.installed("zpool"):
        argvs += ZPOOL
    argvs += [argv for argv in VERSIONS if standin.installed(argv[0])]
    return argvs, notes


async def run_all(argvs: Sequence[tuple[str, ...]], timeout: float) -> None:
    """Run each, at most `CONCURRENCY` at once (the results go to the stand-in installed)."""
    limit = asyncio.Semaphore(CONCURRENCY)

    async def one(argv: tuple[str, ...]) -> None:
        async with limit:
            await runner.run(argv, timeout=timeout)

    await asyncio.gather(*(one(argv) for argv in argvs))
