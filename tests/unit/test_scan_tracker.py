"""Rate and ETA from consecutive samples: smoothed, robust to figures that refresh slower than
the polls, reset for a new scan, zero when a scan stalls."""

from __future__ import annotations

import math

import pytest

from nastui.core.scanning.tracker import ScanTracker
from nastui.model import ScanKind, ScanProgress, ScanState

TOTAL = 1000 * 10**6


def running(done: int, *, rate: float | None = None, started: float = 0.0) -> ScanProgress:
    return ScanProgress(
        ScanKind.SCRUB,
        ScanState.RUNNING,
        started_at=started,
        bytes_done=done,
        bytes_total=TOTAL,
        rate_bytes_per_s=rate,
        eta_seconds=None,
    )


def test_first_sample_uses_the_tools_rate() -> None:
    scan = ScanTracker().update("zfs:tank", running(100 * 10**6, rate=5e6), 0.0)
    assert scan is not None and scan.rate_bytes_per_s == 5e6
    assert scan.eta_seconds == pytest.approx(900e6 / 5e6)


def test_steady_rate_is_found_and_eta_follows() -> None:
    tracker = ScanTracker()
    for t in range(0, 200, 10):
        scan = tracker.update("k", running(t * 2 * 10**6, rate=9e9), float(t))
    assert scan is not None and scan.rate_bytes_per_s == pytest.approx(2e6)
    assert scan.eta_seconds == pytest.approx((TOTAL - 190 * 2e6) / 2e6)


def test_smoothing_follows_a_slowdown_gradually() -> None:
    tracker = ScanTracker(tau=60.0)
    tracker.update("k", running(0), 0.0)
    tracker.update("k", running(100 * 10**6), 10.0)  # 10 MB/s
    scan = tracker.update("k", running(110 * 10**6), 20.0)  # then 1 MB/s
    alpha = 1 - math.exp(-10 / 60)
    assert scan is not None and scan.rate_bytes_per_s == pytest.approx(10e6 + alpha * (1e6 - 10e6))


def test_unchanged_samples_are_not_moves() -> None:
    """btrfs refreshes its figures every 5 s: a 2 s poll sees the same number twice."""
    tracker = ScanTracker()
    tracker.update("k", running(0), 0.0)
    tracker.update("k", running(50 * 10**6), 5.0)
    same = tracker.update("k", running(50 * 10**6), 7.0)
    assert same is not None and same.rate_bytes_per_s == pytest.approx(10e6)
    moved = tracker.update("k", running(100 * 10**6), 10.0)
    assert moved is not None and moved.rate_bytes_per_s == pytest.approx(10e6)


def test_stall_reports_zero_and_no_eta() -> None:
    tracker = ScanTracker(stall_after=300.0)
    tracker.update("k", running(0), 0.0)
    tracker.update("k", running(10 * 10**6), 10.0)
    stalled = tracker.update("k", running(10 * 10**6), 400.0)
    assert stalled is not None and (stalled.rate_bytes_per_s, stalled.eta_seconds) == (0.0, None)


def test_new_scan_or_going_backwards_starts_over() -> None:
    tracker = ScanTracker()
    tracker.update("k", running(0, started=0.0), 0.0)
    tracker.update("k", running(500 * 10**6, started=0.0), 10.0)
    fresh = tracker.update("k", running(10, rate=None, started=99.0), 20.0)
    assert fresh is not None and fresh.rate_bytes_per_s is None
    back = tracker.update("k", running(5, rate=3.0, started=99.0), 30.0)
    assert back is not None and back.rate_bytes_per_s == 3.0


def test_finished_paused_and_unknown_pass_through() -> None:
    tracker = ScanTracker()
    done = ScanProgress(ScanKind.SCRUB, ScanState.FINISHED, ended_at=5.0)
    assert tracker.update("k", done, 10.0) is done
    assert tracker.update("k", None, 10.0) is None
    unknown = ScanProgress(ScanKind.REPLACE, ScanState.RUNNING, reported_percent=20.0)
    assert tracker.update("k", unknown, 10.0) is unknown


def test_forget() -> None:
    tracker = ScanTracker()
    tracker.update("a", running(0), 0.0)
    tracker.update("b", running(0), 0.0)
    tracker.forget({"b"})
    first_again = tracker.update("a", running(10, rate=1.0), 10.0)
    assert first_again is not None and first_again.rate_bytes_per_s == 1.0
