"""Counting the wake-ups nastui itself causes, which must stay 0.

Every SMART query carries `-n standby`, so smartctl answers "in standby" instead of spinning a
sleeping disk up. Some drives and USB bridges do not honour that (smartctl says "CHECK POWER
MODE not implemented, ignoring -n option", or a bridge spins the disk up for any pass-through
command). `WakeTracker` catches those: a drive seen in standby and, at nastui's next query,
active without a single read or write in between (the kernel's disk counters did not move,
and SMART pass-through commands are not counted there) was woken by a command: nastui's own
query. Such a drive, and one whose power mode smartctl cannot check, is then queried only
while its counters show it is busy anyway.
"""

from __future__ import annotations

from dataclasses import dataclass

from nastui.model import PowerState


@dataclass(frozen=True, slots=True)
class _Seen:
    power: PowerState
    io_bytes: int | None


class WakeTracker:
    """Power states seen per drive, the wake-ups they show, and which drives need care."""

    def __init__(self) -> None:
        self._seen: dict[str, _Seen] = {}
        self._asked_io: dict[str, int | None] = {}
        self._wakes: dict[str, int] = {}
        self._cautious: set[str] = set()

    def observe(self, key: str, power: PowerState, io_bytes: int | None) -> bool:
        """Note a query's answer; True when it shows the drive woken by a command (nastui's).

        Args:
            key: the drive's `Drive.key`.
            power: the power state the query reported.
            io_bytes: the drive's read + written bytes so far (/proc/diskstats), if known.
        """
        before = self._seen.get(key)
        self._asked_io[key] = io_bytes
        if power is not PowerState.UNKNOWN:
            self._seen[key] = _Seen(power, io_bytes)
        if before is None or not before.power.spun_down or power.spun_down:
            return False
        if power is PowerState.UNKNOWN or before.io_bytes is None or io_bytes is None:
            return False
        if io_bytes != before.io_bytes:
            return False  # reads or writes happened: they woke it, not the query
        self._wakes[key] = self._wakes.get(key, 0) + 1
        self._cautious.add(key)
        return True

    def mark_cautious(self, key: str) -> None:
        """Query `key` only while it is busy (smartctl cannot check its power mode)."""
        self._cautious.add(key)

    def may_query(self, key: str, io_bytes: int | None) -> bool:
        """Whether asking the drive now is safe: always, unless it needs care and its counters
        have not moved since it was last asked (it may have gone to sleep, and asking would
        wake it)."""
        if key not in self._cautious or key not in self._asked_io:
            return True
        before = self._asked_io[key]
        return io_bytes is not None and before is not None and io_bytes != before

    def wakeups(self, key: str) -> int:
        """Wake-ups of this drive caused by nastui's queries."""
        return self._wakes.get(key, 0)

    @property
    def total(self) -> int:
        """Wake-ups caused by nastui across all drives (must stay 0)."""
        return sum(self._wakes.values())
