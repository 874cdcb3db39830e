"""Fake hwmon chips for fan tests: the real nct6779/coretemp tree from node_exporter's fixture,
and Super I/O chips built to order, shaped like the kernel's (class link -> device's hwmon dir,
`device` link back to the device)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from tests.conftest import FIXTURES

CORPUS_TREE = FIXTURES / "hwmon" / "node_exporter"
NCT_DEVICE = "devices/platform/nct6775.656"


def _link(link: Path, target: Path) -> None:
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(os.path.relpath(target, link.parent))


def _write(path: Path, value: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"{value}\n")


def corpus_tree(root: Path) -> Path:
    """A writable copy of the captured tree, with the links SYMLINKS.txt lists."""
    shutil.copytree(CORPUS_TREE / "sys", root / "sys", dirs_exist_ok=True)
    for path in (root / "sys").rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    for line in (CORPUS_TREE / "SYMLINKS.txt").read_text().splitlines():
        name, _, target = line.partition(" -> ")
        link = root / name
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(target.rstrip("/"))
    return root


def add_chip(
    root: Path,
    name: str = "nct6779",
    *,
    device: str = NCT_DEVICE,
    index: int = 13,
    fans: dict[int, int] | None = None,
    pwms: dict[int, tuple[int, int]] | None = None,
) -> Path:
    """A Super I/O chip at /sys/<device>: fanN_input RPMs and (pwmN, pwmN_enable) pairs."""
    device_dir = root / "sys" / device
    hwmon = device_dir / "hwmon" / f"hwmon{index}"
    _write(hwmon / "name", name)
    for channel, rpm in (fans or {}).items():
        _write(hwmon / f"fan{channel}_input", rpm)
    for channel, (value, enable) in (pwms or {}).items():
        _write(hwmon / f"pwm{channel}", value)
        _write(hwmon / f"pwm{channel}_enable", enable)
    _link(hwmon / "device", device_dir)
    _link(root / "sys/class/hwmon" / f"hwmon{index}", hwmon)
    return hwmon


def add_coretemp(root: Path, package_c: float, *, socket: int = 0, index: int = 20) -> Path:
    """coretemp for one socket: "Package id N" and one core."""
    device_dir = root / "sys/devices/platform" / f"coretemp.{socket}"
    hwmon = device_dir / "hwmon" / f"hwmon{index}"
    _write(hwmon / "name", "coretemp")
    _write(hwmon / "temp1_label", f"Package id {socket}")
    _write(hwmon / "temp1_input", round(package_c * 1000))
    _write(hwmon / "temp2_label", "Core 0")
    _write(hwmon / "temp2_input", round(package_c * 1000) - 2000)
    _link(hwmon / "device", device_dir)
    _link(root / "sys/class/hwmon" / f"hwmon{index}", hwmon)
    return hwmon


def read(path: Path) -> str:
    """A sysfs value as the daemon left it."""
    return path.read_text().strip()
