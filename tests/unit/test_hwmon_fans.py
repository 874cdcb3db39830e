"""Fans and CPU temperatures from hwmon trees: the real nct6779/coretemp capture and built ones;
chips found by name and device path whatever their hwmonN number; the `FanCollector` report."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from nastui.collectors import hwmon_fans, runner
from nastui.collectors.fans import FanCollector, FanReport
from nastui.collectors.local import LocalBackend
from nastui.config import Config
from nastui.config.fancontrol import FanConfig, FanDriver
from nastui.core.clock import Clock
from nastui.model import CollectorError, Fan, HostSnapshot, Sensor
from nastui.selftest.io.tester import SmartctlTester
from nastui.swap.io.machine import MachineSwap
from tests.fakehwmon import NCT_DEVICE, add_chip, add_coretemp, corpus_tree
from tests.fakepools import install
from tests.fakesys import SATA_PARENT, FakeDisk, build

FRONT = FanConfig(
    "front",
    FanDriver.HWMON,
    "drives",
    hwmon_name="nct6779",
    hwmon_device=f"/sys/{NCT_DEVICE}",
    pwm=2,
)


def test_the_captured_tree(tmp_path: Path) -> None:
    chips = hwmon_fans.list_chips(corpus_tree(tmp_path))
    assert [(c.name, c.device) for c in chips] == [
        ("coretemp", "/sys/devices/platform/coretemp.0"),
        ("nct6779", "/sys/devices/platform/nct6775.656"),
    ]  # hwmon4 has no name, hwmon5 is a dangling link: both passed over
    assert hwmon_fans.cpu_temperatures(chips) == [Sensor("CPU package", 55.0, "C", "coretemp")]
    nct = chips[1]
    assert hwmon_fans.fan_channels(nct) == [2]
    assert hwmon_fans.read_fan(nct, 2, "fan2") == Fan("fan2", 1098, None, driver="hwmon")
    assert hwmon_fans.other_fans(chips, set()) == [Fan("nct6779 fan2", 1098, driver="hwmon")]


def test_found_by_device_not_by_index(tmp_path: Path) -> None:
    first = add_chip(tmp_path, "nct6779", device="devices/platform/nct6775.656", index=2)
    second = add_chip(tmp_path, "nct6779", device="devices/platform/nct6775.2608", index=1)
    chips = hwmon_fans.list_chips(tmp_path)
    found = hwmon_fans.find_chip(chips, "nct6779", "/sys/devices/platform/nct6775.656")
    assert isinstance(found, hwmon_fans.Chip) and found.path == first.resolve()
    short = hwmon_fans.find_chip(chips, "nct6779", "platform/nct6775.2608")
    assert isinstance(short, hwmon_fans.Chip) and short.path == second.resolve()
    both = hwmon_fans.find_chip(chips, "nct6779", None)
    assert both == (
        "2 hwmon chips named nct6779 (/sys/devices/platform/nct6775.2608, "
        "/sys/devices/platform/nct6775.656): set hwmon_device to choose one"
    )
    assert hwmon_fans.find_chip(chips, "it8721", None) == (
        "no hwmon chip named it8721 (is its driver loaded? chips seen: nct6779)"
    )
    assert "no hwmon chip nct6779 at platform/nct6775.1" in str(
        hwmon_fans.find_chip(chips, "nct6779", "platform/nct6775.1")
    )


def test_renumbered_after_a_reboot(tmp_path: Path) -> None:
    for index in (3, 7):
        root = tmp_path / str(index)
        add_chip(root, index=index, fans={2: 900}, pwms={2: (77, 1)})
        chip = hwmon_fans.find_chip(hwmon_fans.list_chips(root), "nct6779", NCT_DEVICE)
        assert isinstance(chip, hwmon_fans.Chip)
        assert hwmon_fans.read_fan(chip, 2, "front") == Fan("front", 900, 30.2, controllable=True)


def test_cpu_packages(tmp_path: Path) -> None:
    add_coretemp(tmp_path, 48.0, socket=0, index=20)
    add_coretemp(tmp_path, 51.5, socket=1, index=21)
    k10 = add_chip(tmp_path, "k10temp", device="devices/pci0000:00/0000:00:18.3", index=22)
    for n, (label, millic) in enumerate((("Tctl", 63000), ("Tdie", 53000)), start=1):
        (k10 / f"temp{n}_label").write_text(label + "\n")
        (k10 / f"temp{n}_input").write_text(f"{millic}\n")
    sensors = hwmon_fans.cpu_temperatures(hwmon_fans.list_chips(tmp_path))
    assert sensors == [
        Sensor("CPU package 0", 48.0, "C", "coretemp"),
        Sensor("CPU package 1", 51.5, "C", "coretemp"),
        Sensor("CPU package 2", 53.0, "C", "k10temp"),  # Tdie, not the offset Tctl
    ]


def test_unlabelled_k10temp(tmp_path: Path) -> None:
    k10 = add_chip(tmp_path, "k10temp", device="devices/pci0000:00/0000:00:18.3", index=2)
    (k10 / "temp1_input").write_text("41250\n")
    sensors = hwmon_fans.cpu_temperatures(hwmon_fans.list_chips(tmp_path))
    assert sensors == [Sensor("CPU package", 41.25, "C", "k10temp")]


def test_empty_headers_are_not_fans(tmp_path: Path) -> None:
    add_chip(tmp_path, fans={1: 0, 2: 1200, 3: 0}, pwms={1: (128, 5), 2: (128, 5)})
    fans = hwmon_fans.other_fans(hwmon_fans.list_chips(tmp_path), set())
    assert [f.name for f in fans] == ["nct6779 fan2"]


def config(*fans: FanConfig) -> Config:
    return Config(fans=fans)


async def test_collector_reports_configured_and_other_fans(tmp_path: Path) -> None:
    add_chip(tmp_path, fans={1: 800, 2: 1100}, pwms={1: (200, 5), 2: (153, 1)})
    add_coretemp(tmp_path, 44.0)
    report = await FanCollector(config(FRONT), tmp_path).collect(1000.0)
    assert report.fans == (
        Fan("front", 1100, 60.0, "drives", "hwmon", controllable=True),
        Fan("nct6779 fan1", 800, 78.4, None, "hwmon"),
    )
    assert report.sensors == (Sensor("CPU package", 44.0, "C", "coretemp"),)
    assert report.errors == ()


async def test_a_configured_fan_that_is_not_there_is_an_error(tmp_path: Path) -> None:
    missing = dataclasses.replace(FRONT, hwmon_device="/sys/devices/platform/it87.552")
    report = await FanCollector(config(missing), tmp_path).collect(1000.0)
    assert report.fans == (Fan("front", zone="drives", driver="hwmon"),)
    assert report.errors == (
        CollectorError(
            "fan:front",
            "fan front: no hwmon chip nct6779 at /sys/devices/platform/it87.552 "
            "(chips of that name: nowhere)",
        ),
    )


async def test_ipmi_and_command_fans_are_listed_with_their_zones(tmp_path: Path) -> None:
    fans = (
        FanConfig("cpu-and-rear", FanDriver.IPMI_SUPERMICRO, "cpu", ipmi_zone=0),
        FanConfig("blower", FanDriver.COMMAND, "drives", set_command=("b", "{duty}")),
    )
    report = await FanCollector(config(*fans), tmp_path).collect(1000.0)
    assert report.fans == (
        Fan("cpu-and-rear", None, None, "cpu", "ipmi-supermicro", controllable=True),
        Fan("blower", None, None, "drives", "command", controllable=True),
    )


def test_report_adds_to_a_snapshot() -> None:
    snapshot = HostSnapshot("nas", 5.0, errors=(CollectorError("smart", "later"),))
    report = FanReport(
        (Fan("front", 900),), (Sensor("CPU package", 40.0),), (CollectorError("ipmi", "no"),)
    )
    merged = report.add_to(snapshot)
    assert merged.fans == (Fan("front", 900),)
    assert merged.sensors == (Sensor("CPU package", 40.0),)
    assert [e.source for e in merged.errors] == ["smart", "ipmi"]


class Clock0:
    def now(self) -> float:
        return 1_000.0


async def test_the_local_backend_reports_fans_and_cpu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`LocalBackend` adds its `FanCollector`'s fans and sensors to every snapshot."""
    (tmp_path / "tools").mkdir()
    install(tmp_path / "tools", monkeypatch)  # no smartctl or zpool of this machine
    build(tmp_path, [FakeDisk("sda", SATA_PARENT.format(n=0), temp_millic=38000)])
    add_chip(tmp_path, fans={2: 1100}, pwms={2: (153, 1)})
    add_coretemp(tmp_path, 47.0)
    cfg = config(FRONT)
    clock: Clock = Clock0()
    backend = LocalBackend(
        cfg,
        root=tmp_path,
        clock=clock,
        swap=lambda: MachineSwap(tmp_path, runner.run),
        tester=lambda: SmartctlTester(runner.run),
    )
    snapshot = await backend.collect()
    assert [f.name for f in snapshot.fans] == ["front"]
    assert snapshot.sensors == (Sensor("CPU package", 47.0, "C", "coretemp"),)
    assert snapshot.drives[0].temperature is not None
