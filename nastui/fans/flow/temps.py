"""Drive temperatures as fresh as the control period: the daemon re-reads hwmon itself.

The backend reads drive temperatures on its `poll.temperature` schedule (30 s by default),
which suits a display; a fan daemon must notice within one period that a reading is gone. So
each period the drives whose temperature comes from hwmon (drivetemp, nvme) are read again:
sysfs reads that never wake a disk and cost microseconds. A drive reading that has vanished
becomes None, and its zone goes blind (full speed). Drives asleep, and temperatures from
elsewhere (smartctl, the BMC, the simulator), are left as the backend reported them. The CPU
package needs nothing here: the backend's fan collector reads it on every poll.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from nastui.collectors.hwmon import drive_temperatures
from nastui.model import HostSnapshot, TempSource

HWMON_SOURCES = frozenset({TempSource.DRIVETEMP, TempSource.NVME_HWMON})


def refresh_temperatures(snapshot: HostSnapshot, root: Path, now: float) -> HostSnapshot:
    """`snapshot` with every awake hwmon-read drive's temperature read again at `now`."""
    devs = {
        d.dev
        for d in snapshot.drives
        if not d.power.spun_down
        and (d.temperature is None or d.temperature.source in HWMON_SOURCES)
    }
    if not devs:
        return snapshot
    fresh = drive_temperatures(root, sorted(devs), now)
    drives = tuple(
        dataclasses.replace(d, temperature=fresh.get(d.dev)) if d.dev in devs else d
        for d in snapshot.drives
    )
    return dataclasses.replace(snapshot, drives=drives)
