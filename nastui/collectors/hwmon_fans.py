"""Fans and CPU temperatures from hwmon: chips found by name and device path, never by index.

`hwmonN` numbers follow driver load order and change between boots, so a chip is named by its
`name` file plus the device it hangs off (two identical Super I/O chips differ only there).
Fan N's tachometer is `fanN_input` (RPM), its duty `pwmN` (0..255) and its mode `pwmN_enable`
(1 manual, 2 and up the chip's own automatic modes).

Sample (a real nct6779 and coretemp, from node_exporter's sysfs fixture):
    /sys/class/hwmon/hwmon3 -> ../../devices/platform/nct6775.656/hwmon/hwmon3
    /sys/devices/platform/nct6775.656/hwmon/hwmon3/name          nct6779
    /sys/devices/platform/nct6775.656/hwmon/hwmon3/fan2_input    1098
    /sys/devices/platform/nct6775.656/hwmon/hwmon3/pwm1_enable   5
    /sys/devices/platform/coretemp.0/hwmon/hwmon0/temp1_label    Physical id 0   (or Package id 0)
    /sys/devices/platform/coretemp.0/hwmon/hwmon0/temp1_input    55000
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from nastui.collectors.sysfs import list_names, read_int, read_text, resolved
from nastui.model import Fan, Sensor

DRIVE_CHIPS = frozenset({"drivetemp", "nvme"})  # drive temperatures: see collectors.hwmon
# Sample: fan2_input
_FAN_INPUT = re.compile(r"^fan(?P<n>\d+)_input$")
# Sample: temp1_label
_TEMP_LABEL = re.compile(r"^temp\d+_label$")
# Sample: Package id 0    Physical id 1    (coretemp's per-socket sensor; cores are "Core N")
_PACKAGE = re.compile(r"^(?:package|physical) id (?P<socket>\d+)$", re.I)
_K10_LABELS = ("Tdie", "Tctl")  # k10temp: Tdie is the real die temperature, Tctl may be offset


@dataclass(frozen=True, slots=True)
class Chip:
    """A hwmon chip.

    Attributes:
        name: the chip's `name` ("nct6779", "coretemp").
        path: its hwmon directory (resolved).
        device: the device it belongs to, as a path under the root ("/sys/devices/platform/
            nct6775.656"); None when it has none.
    """

    name: str
    path: Path
    device: str | None


def _device_of(hwmon: Path, root: Path) -> str | None:
    device = resolved(hwmon / "device")
    if device is None and hwmon.parent.name == "hwmon":
        device = hwmon.parent.parent
    top = resolved(root)
    if device is None or top is None:
        return None
    try:
        return "/" + str(device.relative_to(top))
    except ValueError:
        return None


def list_chips(root: Path = Path("/")) -> list[Chip]:
    """Every hwmon chip under `root` that has a name, in /sys/class/hwmon order."""
    chips: list[Chip] = []
    base = root / "sys/class/hwmon"
    for entry in sorted(list_names(base), key=_natural):
        hwmon = resolved(base / entry)
        if hwmon is None:
            continue
        name = read_text(hwmon / "name")
        if name:
            chips.append(Chip(name, hwmon, _device_of(hwmon, root)))
    return chips


def _natural(name: str) -> tuple[str, int]:
    match = re.match(r"^(\D*)(\d+)$", name)
    return (match[1], int(match[2])) if match else (name, -1)


def same_device(found: str | None, wanted: str) -> bool:
    """Whether a chip's device is the configured one; the configured path may leave out a
    leading part ("platform/nct6775.656" matches "/sys/devices/platform/nct6775.656")."""
    if found is None:
        return False
    tail = wanted.strip().strip("/")
    return found.rstrip("/") == "/" + tail or found.rstrip("/").endswith("/" + tail)


def find_chip(chips: list[Chip], name: str, device: str | None) -> Chip | str:
    """The one chip called `name` (on `device`, when given); else why not, in one line."""
    named = [c for c in chips if c.name == name]
    if device is not None:
        on_device = [c for c in named if same_device(c.device, device)]
        if on_device:
            return on_device[0]
        where = ", ".join(str(c.device) for c in named) or "nowhere"
        return f"no hwmon chip {name} at {device} (chips of that name: {where})"
    if len(named) == 1:
        return named[0]
    if not named:
        seen = ", ".join(sorted({c.name for c in chips})) or "none"
        return f"no hwmon chip named {name} (is its driver loaded? chips seen: {seen})"
    devices = ", ".join(str(c.device) for c in named)
    return f"{len(named)} hwmon chips named {name} ({devices}): set hwmon_device to choose one"


def read_fan(chip: Chip, channel: int, name: str) -> Fan:
    """Fan `channel` of `chip` as read now: `fanN_input` RPM and `pwmN` duty (None unreadable).

    Whether it is controllable says only that the `pwmN` file exists; writing it needs root.
    """
    rpm = read_int(chip.path / f"fan{channel}_input")
    pwm = read_int(chip.path / f"pwm{channel}")
    duty = round(max(0, min(255, pwm)) * 100 / 255, 1) if pwm is not None else None
    controllable = (chip.path / f"pwm{channel}").exists()
    return Fan(name, rpm, duty, driver="hwmon", controllable=controllable)


def pwm_mode(chip: Chip, channel: int) -> int | None:
    """Channel `channel`'s `pwmN_enable` now (0 full speed, 1 manual, 2 and up the chip's
    automatic modes); None when unreadable."""
    return read_int(chip.path / f"pwm{channel}_enable")


def fan_channels(chip: Chip) -> list[int]:
    """The N of every `fanN_input` the chip has, in order."""
    return sorted(int(m["n"]) for n in list_names(chip.path) if (m := _FAN_INPUT.match(n)))


def other_fans(chips: list[Chip], taken: set[tuple[Path, int]]) -> list[Fan]:
    """Fans of every non-drive chip not in `taken` ((chip path, channel) of configured fans).

    A tachometer reading 0 that nobody configured is an empty header, not a dead fan: left out.
    """
    fans: list[Fan] = []
    for chip in chips:
        if chip.name in DRIVE_CHIPS:
            continue
        for channel in fan_channels(chip):
            if (chip.path, channel) in taken:
                continue
            fan = read_fan(chip, channel, f"{chip.name} fan{channel}")
            if fan.rpm:
                fans.append(Fan(fan.name, fan.rpm, fan.duty_percent, driver="hwmon"))
    return fans


def _labelled_temps(chip: Chip) -> dict[str, float]:
    temps: dict[str, float] = {}
    labels = [chip.path / n for n in list_names(chip.path) if _TEMP_LABEL.match(n)]
    for label_file in labels:
        label = read_text(label_file)
        value = read_int(label_file.with_name(label_file.name.replace("_label", "_input")))
        if label and value is not None:
            temps[label] = value / 1000.0
    return temps


def cpu_temperatures(chips: list[Chip]) -> list[Sensor]:
    """Each CPU package's temperature, from coretemp (Intel) or k10temp (AMD).

    Named "CPU package" (one socket) or "CPU package 0", "CPU package 1" (several), the names
    fan zones with `source = "cpu"` follow.
    """
    found: list[tuple[str, float]] = []
    for chip in chips:  # only CPU chips' labels are read: others are never looked at
        if chip.name == "coretemp":
            for label, value in _labelled_temps(chip).items():
                if match := _PACKAGE.match(label):
                    found.append((f"coretemp {match['socket']}", value))
        elif chip.name == "k10temp":
            temps = _labelled_temps(chip)
            die = next((temps[k] for k in _K10_LABELS if k in temps), None)
            if die is None:  # old kernels: one unlabelled sensor
                plain = read_int(chip.path / "temp1_input")
                die = plain / 1000.0 if plain is not None else None
            if die is not None:
                found.append(("k10temp", die))
    if len(found) == 1:
        return [Sensor("CPU package", found[0][1], "C", found[0][0].split()[0])]
    return [
        Sensor(f"CPU package {i}", value, "C", what.split()[0])
        for i, (what, value) in enumerate(found)
    ]
