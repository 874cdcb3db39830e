"""Per-drive I/O rates from the kernel's disk counters (/proc/diskstats).

Counters are cumulative; a rate needs two samples, so the first poll after start gives none and
every later one gives the average since the previous poll. A counter that went backwards (a
drive re-attached under the same name) restarts the baseline instead of showing a huge rate.
Reading /proc never touches a drive.

The file is parsed here, line by line, rather than by psutil, which raises ValueError for the
whole file on one line it does not expect (a new kernel's field count, a driver's odd name):
a line that is not understood is skipped and reported (`DiskStats.skipped`), the others are
used. (psutil also reads a process-wide path, which is not safe with two readers at once.)
Field layout (Documentation/admin-guide/iostats.rst): major minor name, then reads, reads
merged, sectors read, ms reading, writes, writes merged, sectors written, ms writing, in flight,
ms busy, weighted ms (14 fields), + 4 discard (4.18, 18), + 2 flush (5.5, 20); a partition on
2.6 kernels: reads, sectors read, writes, sectors written (7). Sectors are 512 bytes always.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from nastui.collectors.sysfs import TABLE_LIMIT, read_text
from nastui.model import IoRate

SECTOR = 512
DISK_FIELDS = 14
PARTITION_FIELDS = 7


@dataclass(frozen=True, slots=True)
class _Sample:
    at: float
    read_bytes: int
    write_bytes: int
    busy_ms: int


@dataclass(frozen=True, slots=True)
class DiskStats:
    """One reading of /proc/diskstats.

    Attributes:
        counters: per block device, what its line says.
        skipped: the lines that were not understood (stripped), in file order.
    """

    counters: dict[str, _Sample]
    skipped: tuple[str, ...] = ()


def _line(fields: list[str]) -> tuple[str, _Sample] | None:
    if not all(f.isdigit() for f in fields[3:]) or not fields[0].isdigit():
        return None
    if len(fields) >= DISK_FIELDS:
        values = [int(f) for f in fields[3:DISK_FIELDS]]
        return fields[2], _Sample(0.0, values[2] * SECTOR, values[6] * SECTOR, values[9])
    if len(fields) == PARTITION_FIELDS:
        values = [int(f) for f in fields[3:]]
        return fields[2], _Sample(0.0, values[1] * SECTOR, values[3] * SECTOR, 0)
    return None


def parse_diskstats(text: str) -> DiskStats:
    """Every line understood, and the ones that were not (pure).

    Sample: "   8       0 sda 70956 12642 4669682 55633 11724 62789 2183136 8265 0 11816 63899"
    """
    counters: dict[str, _Sample] = {}
    skipped: list[str] = []
    for raw in text.splitlines():
        fields = raw.split()
        if not fields:
            continue
        parsed = _line(fields)
        if parsed is None:
            skipped.append(raw.strip())
        else:
            counters[parsed[0]] = parsed[1]
    return DiskStats(counters, tuple(skipped))


def read_diskstats(root: Path) -> DiskStats | None:
    """/proc/diskstats under `root`, parsed; None when it is absent or unreadable."""
    text = read_text(root / "proc/diskstats", TABLE_LIMIT)
    return None if text is None else parse_diskstats(text)


def read_counters(root: Path) -> dict[str, _Sample] | None:
    """Current counters per block device under `root`, or None when /proc/diskstats is absent
    (lines not understood are left out: `read_diskstats` reports them)."""
    stats = read_diskstats(root)
    return None if stats is None else stats.counters


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
