"""Temperatures as fresh as the control period: the daemon re-reads hwmon itself.

The backend reads drive temperatures on its `poll.temperature` schedule (30 s by default),
which suits a display; a fan daemon must notice within one period that a reading is gone. So
each period the drives whose temperature comes from hwmon (drivetemp, nvme) are read again, and
so is the CPU package (coretemp, k10temp): sysfs reads that never wake a disk and cost
microseconds. A drive reading that has vanished becomes None, and its zone goes blind (full
speed). Drives asleep, and temperatures from elsewhere (smartctl, the BMC, the simulator), are
left as the backend reported them.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from nastui.collectors.hwmon import drive_temperatures
from nastui.collectors.hwmon_fans import cpu_temperatures, list_chips
from nastui.model import HostSnapshot, TempSource

HWMON_SOURCES = frozenset({TempSource.DRIVETEMP, TempSource.NVME_HWMON})


def refresh_temperatures(snapshot: HostSnapshot, root: Path, now: float) -> HostSnapshot:
    """`snapshot` with every awake hwmon-read drive's temperature, and the CPU package's, read
    again at `now`."""
    devs = {
        d.dev
        for d in snapshot.drives
        if not d.power.spun_down
        and (d.temperature is None or d.temperature.source in HWMON_SOURCES)
    }
    fresh = drive_temperatures(root, sorted(devs), now) if devs else {}
    drives = tuple(
        dataclasses.replace(d, temperature=fresh.get(d.dev)) if d.dev in devs else d
        for d in snapshot.drives
    )
    cpus = tuple(cpu_temperatures(list_chips(root)))
    names = {s.name for s in cpus}
    sensors = tuple(s for s in snapshot.sensors if s.name not in names) + cpus
    return dataclasses.replace(snapshot, drives=drives, sensors=sensors)
