"""Per-drive I/O rates from the kernel's disk counters (psutil over /proc/diskstats).

Counters are cumulative; a rate needs two samples, so the first poll after start gives none and
every later one gives the average since the previous poll. A counter that went backwards (a
drive re-attached under the same name) restarts the baseline instead of showing a huge rate.
Reading /proc never touches a drive.

Sample of the source (under `root`):
    8       0 sda 70956 12642 4669682 55633 11724 62789 2183136 8265 0 11816 63899 ...
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import psutil

from nastui.model import IoRate


@dataclass(frozen=True, slots=True)
class _Sample:
    at: float
    read_bytes: int
    write_bytes: int
    busy_ms: int


def read_counters(root: Path) -> dict[str, _Sample] | None:
    """Current counters per block device under `root`, or None when /proc/diskstats is absent."""
    if not (root / "proc/diskstats").exists():
        return None
    previous = psutil.PROCFS_PATH
    psutil.PROCFS_PATH = str(root / "proc")  # psutil reads {PROCFS_PATH}/diskstats
    try:
        counters = psutil.disk_io_counters(perdisk=True, nowrap=False)
    except (OSError, RuntimeError):
        return None
    finally:
        psutil.PROCFS_PATH = previous
    return {
        name: _Sample(0.0, c.read_bytes, c.write_bytes, getattr(c, "busy_time", 0))
        for name, c in (counters or {}).items()
    }


def io_totals(counters: Mapping[str, _Sample] | None) -> dict[str, int] | None:
    """Bytes read and written so far per device, from `read_counters`; None when absent."""
    if counters is None:
        return None
    return {name: c.read_bytes + c.write_bytes for name, c in counters.items()}


class IoSampler:
    """Keeps the previous counters and turns each new reading into rates."""

    def __init__(self) -> None:
        self._last: dict[str, _Sample] = {}

    def sample(
        self, counters: Mapping[str, _Sample] | None, devs: Iterable[str], now: float
    ) -> dict[str, IoRate] | None:
        """Rates since the previous call for the named devices, from this poll's `counters`
        (`read_counters`); None when counters are absent."""
        if counters is None:
            return None
        rates: dict[str, IoRate] = {}
        for dev in devs:
            raw = counters.get(dev)
            if raw is None:
                continue
            current = _Sample(now, raw.read_bytes, raw.write_bytes, raw.busy_ms)
            before = self._last.get(dev)
            self._last[dev] = current
            rate = _rate(before, current)
            if rate is not None:
                rates[dev] = rate
        return rates


def _rate(before: _Sample | None, now: _Sample) -> IoRate | None:
    if before is None:
        return None
    elapsed = now.at - before.at
    read = now.read_bytes - before.read_bytes
    write = now.write_bytes - before.write_bytes
    busy = now.busy_ms - before.busy_ms
    if elapsed <= 0 or read < 0 or write < 0:
        return None
    busy_percent = min(100.0, max(0.0, 100.0 * busy / (elapsed * 1000.0)))
    return IoRate(read / elapsed, write / elapsed, busy_percent)
