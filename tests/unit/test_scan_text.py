"""What the CLI and the confirmation dialog say about scrub actions."""

from __future__ import annotations

import dataclasses

from nastui.core.scanning.words import action_prompt, can_do, eta_text, find_pool, pointless
from nastui.model import PoolKind, ScanKind, ScanProgress, ScanState, ScrubAction
from nastui.sim import SimBackend


def test_find_pool_by_name_uuid_mount_and_md_path() -> None:
    found = SimBackend("mixed").snapshot().pools
    tank = found[0]
    with_ids = (dataclasses.replace(tank, uuid="123", mountpoint="/srv/x"), *found[1:])
    assert find_pool(with_ids, "tank") is with_ids[0]
    assert find_pool(with_ids, "123") is with_ids[0]
    assert find_pool(with_ids, "/srv/x") is with_ids[0]
    assert find_pool(with_ids, "/dev/md0") is with_ids[1]
    assert find_pool(with_ids, "nope") is None


def test_prompts() -> None:
    snap = SimBackend("mixed").snapshot()
    tank, md0, fast = snap.pools
    assert action_prompt(tank, ScrubAction.START) == (
        "Start a scrub of tank (zfs)? It reads all 11.0 TiB in use, about 2h53m at the last "
        "scrub's pace, and slows other I/O meanwhile."
    )
    assert action_prompt(md0, ScrubAction.START).startswith("Start a check of md0 (mdraid)?")
    running = ScanProgress(ScanKind.SCRUB, ScanState.RUNNING, bytes_done=1, bytes_total=4)
    busy = dataclasses.replace(fast, scan=running)
    assert action_prompt(busy, ScrubAction.STOP) == (
        "Stop the scrub of fast at 25.0%? `btrfs scrub resume` continues it."
    )
    paused = dataclasses.replace(tank, scan=dataclasses.replace(running, state=ScanState.PAUSED))
    assert action_prompt(paused, ScrubAction.START) == "Resume the paused scrub of tank (zfs)?"
    assert action_prompt(paused, ScrubAction.PAUSE).startswith("Pause the scrub of tank?")


def test_what_makes_no_sense() -> None:
    snap = SimBackend("mixed").snapshot()
    tank, md0, _ = snap.pools
    assert not can_do(md0, ScrubAction.PAUSE) and can_do(tank, ScrubAction.PAUSE)
    assert pointless(md0, ScrubAction.PAUSE) == "mdraid has no check pause: x stops it"
    assert pointless(tank, ScrubAction.STOP) == "tank: no scrub is running"
    assert pointless(tank, ScrubAction.START) is None
    running = ScanProgress(ScanKind.RESILVER, ScanState.RUNNING)
    assert pointless(dataclasses.replace(tank, scan=running), ScrubAction.START) == (
        "tank: a resilver is already running"
    )
    assert tank.kind is PoolKind.ZFS


def test_eta_text_prefers_the_tools_own_figure() -> None:
    scan = ScanProgress(ScanKind.SCRUB, ScanState.RUNNING, eta_seconds=7500.0)
    assert eta_text(scan, "zpool") == "ETA 2h05m"
    said = ScanProgress(
        ScanKind.SCRUB, ScanState.RUNNING, eta_seconds=7500.0, reported_eta_seconds=9660.0
    )
    assert eta_text(said, "zpool") == "ETA 2h41m (zpool; nastui 2h05m)"
    assert eta_text(said) == "ETA 2h41m"
    close = ScanProgress(
        ScanKind.SCRUB, ScanState.RUNNING, eta_seconds=9600.0, reported_eta_seconds=9660.0
    )
    assert eta_text(close, "zpool") == "ETA 2h41m (zpool)"
