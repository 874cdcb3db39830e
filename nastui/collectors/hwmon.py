"""Drive temperatures from hwmon: the kernel's drivetemp (SATA/SAS) and nvme sensors.

These never wake a disk and need no root: drivetemp reads the SCT status the drive keeps and
skips drives in standby (the read then fails with EAGAIN/ENODATA, which we treat as "no fresh
reading"). A hwmon chip is matched to its drive by the resolved `device` link, never by index.

Sample:
    /sys/class/hwmon/hwmon3/name          drivetemp
    /sys/class/hwmon/hwmon3/device     -> ../../../0:0:0:0        (== /sys/block/sda/device)
    /sys/class/hwmon/hwmon3/temp1_input   36000                   (millidegrees Celsius)
    /sys/class/hwmon/hwmon1/name          nvme
    /sys/class/hwmon/hwmon1/device     -> ../../nvme0             (== /sys/block/nvme0n1/device)
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from nastui.collectors.sysfs import list_names, read_int, read_text, resolved
from nastui.model import Temperature, TempSource

_DRIVE_CHIPS = {"drivetemp": TempSource.DRIVETEMP, "nvme": TempSource.NVME_HWMON}


def drive_chips(root: Path) -> dict[Path, tuple[Path, TempSource]]:
    """Resolved device path -> (hwmon directory, source) for every drive temperature chip."""
    chips: dict[Path, tuple[Path, TempSource]] = {}
    base = root / "sys/class/hwmon"
    for hwmon in (base / name for name in list_names(base)):
        source = _DRIVE_CHIPS.get(read_text(hwmon / "name") or "")
        device = resolved(hwmon / "device")
        if source is not None and device is not None:
            chips[device] = (hwmon, source)
    return chips


def drive_temperatures(root: Path, devs: Iterable[str], now: float) -> dict[str, Temperature]:
    """Temperatures of the named block devices that have a drivetemp or nvme hwmon chip."""
    chips = drive_chips(root)
    result: dict[str, Temperature] = {}
    for dev in devs:
        device = resolved(root / "sys/block" / dev / "device")
        if device is None or device not in chips:
            continue
        hwmon, source = chips[device]
        millidegrees = read_int(hwmon / "temp1_input")
        if millidegrees is not None:
            result[dev] = Temperature(round(millidegrees / 1000.0, 1), now, source)
    return result
