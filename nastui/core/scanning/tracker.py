"""Scan rate and ETA from consecutive samples, smoothed (pure logic with a little memory).

The tools' own figures are poor guides: ZFS prints the average since the pass began (slow to
notice a slowdown), btrfs the average since start, md a speed of the last few seconds, and a
btrfs replace nothing at all. `ScanTracker` keeps, per pool and scan, the last position that
*moved* and an exponentially smoothed rate of the moves:

    rate <- rate + (1 - exp(-dt / tau)) * (moved / dt - rate)

so a 10-second poll and a 60-second poll converge alike. Samples where the position did not
change are not moves (btrfs refreshes its figures every 5 s; ZFS rounds to three digits): the
next move spans the whole time since the last one. A scan that has not moved for `stall_after`
seconds reports rate 0 and no ETA. Until two moves are seen the tool's own rate is used.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from nastui.model import ScanProgress, ScanState

TAU_S = 60.0
STALL_AFTER_S = 300.0


@dataclass(slots=True)
class _Track:
    started_at: float | None
    kind: str
    position: int
    moved_at: float
    rate: float | None = None


class ScanTracker:
    """Remembers the scans it is shown and fills in smoothed rates and ETAs."""

    def __init__(self, tau: float = TAU_S, stall_after: float = STALL_AFTER_S) -> None:
        self._tau = tau
        self._stall_after = stall_after
        self._tracks: dict[str, _Track] = {}

    def update(self, key: str, scan: ScanProgress | None, now: float) -> ScanProgress | None:
        """`scan` with its rate and ETA from this and earlier samples of the same scan.

        Args:
            key: which pool ("zfs:tank"); one scan per key is followed.
            scan: the scan as the tool reports it now.
            now: when it was sampled.
        """
        if scan is None or scan.state is not ScanState.RUNNING or scan.bytes_done is None:
            self._tracks.pop(key, None)
            return scan
        track = self._tracks.get(key)
        if track is None or not self._same(track, scan):
            self._tracks[key] = _Track(scan.started_at, scan.kind.value, scan.bytes_done, now)
            return self._with_rate(scan, scan.rate_bytes_per_s)
        moved, elapsed = scan.bytes_done - track.position, now - track.moved_at
        if moved > 0 and elapsed > 0:
            sample = moved / elapsed
            alpha = 1.0 - math.exp(-elapsed / self._tau)
            track.rate = (
                sample if track.rate is None else track.rate + alpha * (sample - track.rate)
            )
            track.position, track.moved_at = scan.bytes_done, now
        elif elapsed >= self._stall_after:
            return dataclasses.replace(scan, rate_bytes_per_s=0.0, eta_seconds=None)
        rate = track.rate if track.rate is not None else scan.rate_bytes_per_s
        return self._with_rate(scan, rate)

    @staticmethod
    def _same(track: _Track, scan: ScanProgress) -> bool:
        """Still the scan being followed: same kind and start, and it did not go backwards."""
        return (
            track.kind == scan.kind.value
            and track.started_at == scan.started_at
            and (scan.bytes_done or 0) >= track.position
        )

    @staticmethod
    def _with_rate(scan: ScanProgress, rate: float | None) -> ScanProgress:
        if rate is None or rate <= 0:
            return dataclasses.replace(scan, rate_bytes_per_s=rate)
        eta = scan.eta_seconds
        if scan.bytes_total is not None and scan.bytes_done is not None:
            eta = max(0.0, (scan.bytes_total - scan.bytes_done) / rate)
        return dataclasses.replace(scan, rate_bytes_per_s=rate, eta_seconds=eta)

    def forget(self, keep: set[str]) -> None:
        """Drop the tracks of pools no longer reported."""
        for key in set(self._tracks) - keep:
            del self._tracks[key]


def current_scan(scans: list[ScanProgress]) -> ScanProgress | None:
    """The scan a pool shows when its tools report several (a scrub and dRAID rebuilds, a
    btrfs scrub and a replace): one running or paused, else the one that ended last."""
    for scan in scans:
        if scan.state in (ScanState.RUNNING, ScanState.PAUSED):
            return scan
    return max(scans, key=lambda s: s.ended_at or 0.0, default=None)
