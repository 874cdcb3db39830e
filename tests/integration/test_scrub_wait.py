"""`nastui scrub start --wait`: on a real btrfs RAID1 on loop devices, and on the simulator."""

from __future__ import annotations

from nastui.cli.scrubwait import Waited, is_new, outcome
from nastui.model import ScanKind, ScanProgress, ScanState
from tests.cli.test_export_cli import nastui
from tests.integration.test_btrfs_loop import Lab, lab

__all__ = ["lab"]

OLD = ScanProgress(ScanKind.SCRUB, ScanState.FINISHED, started_at=100.0, ended_at=200.0)


def test_btrfs_scrub_followed_to_the_end(lab: Lab) -> None:
    done = nastui("scrub", "start", "--wait", "--interval", "0.5", str(lab.mnt))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].endswith("scrub started (btrfs scrub)") or "btrfs scrub" in lines[0], lines
    assert lines[-2].endswith("100%  0 errors"), lines  # not a terminal: a line per tenth
    assert lines[-1].startswith("scrub of ") and lines[-1].endswith(": 0 errors"), lines


def test_demo_scrub_followed_to_the_end() -> None:
    done = nastui("--demo", "scrub", "start", "--wait", "--interval", "0.1", "storage")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "storage: scrub started (simulated)"
    assert lines[1].startswith("scrub storage ")
    assert lines[-1].startswith("scrub of storage finished in ")
    assert lines[-1].endswith(": 0 errors")


def test_wait_only_with_start() -> None:
    done = nastui("--demo", "scrub", "stop", "--wait", "storage")
    assert done.returncode == 64
    assert done.stderr == "nastui: --wait goes with start only\n"


def test_an_old_scrub_is_not_the_new_one() -> None:
    assert not is_new(OLD, OLD)
    assert is_new(ScanProgress(ScanKind.SCRUB, ScanState.RUNNING, started_at=100.0), OLD)
    newer = ScanProgress(ScanKind.SCRUB, ScanState.FINISHED, started_at=300.0, ended_at=301.0)
    assert is_new(newer, OLD)
    assert not is_new(ScanProgress(ScanKind.RESILVER, ScanState.RUNNING), None)
    assert outcome("tank", Waited(None))[1] == 69
    found = ScanProgress(ScanKind.SCRUB, ScanState.FINISHED, 0.0, 90.0, errors=3)
    assert outcome("tank", Waited(found)) == ("scrub of tank finished in 1m30s: 3 errors", 1)
    cancelled = ScanProgress(ScanKind.SCRUB, ScanState.CANCELED)
    assert outcome("tank", Waited(cancelled)) == ("scrub of tank canceled before the end", 69)
