"""IPMI sensors: the three ipmitool table shapes parsed from real captures, what is left out,
ParseError naming the line; the argv and environment per target; the collector's use of it
against a stand-in ipmitool (the real one against ipmi_sim is in tests/integration)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from nastui.collectors.fans import FanCollector
from nastui.collectors.ipmi import (
    IpmiReading,
    IpmiTarget,
    fans_and_sensors,
    local_bmc,
    parse_sdr,
    parse_sdr_report,
    sdr_argv,
)
from nastui.config import Config, PollConfig
from nastui.config.fancontrol import FanConfig, FanDriver
from nastui.model import CollectorError, Fan, Sensor


def fixture(fixtures: Path, name: str) -> str:
    path = fixtures / "ipmi" / name
    assert path.is_file(), f"missing fixture {path}"
    return path.read_text()


def test_sdr_list(fixtures: Path) -> None:
    readings = parse_sdr(fixture(fixtures, "ipmitool_sdr__telegraf_mockData.txt"))
    assert readings[0] == IpmiReading("Ambient Temp", 20.0, "C", "ok")
    assert IpmiReading("Fan 1A Tach", 2610.0, "RPM", "ok") in readings
    assert IpmiReading("Planar 12V", 12.04, "V", "ok") in readings
    assert len(readings) == 13  # 120 discrete (0x00) and "Not Readable" rows left out


def test_sdr_list_with_ipmitool_complaints_in_between(fixtures: Path) -> None:
    readings = parse_sdr(fixture(fixtures, "ipmitool_sdr__telegraf_v1Data.txt"))
    assert [r.name for r in readings] == [
        "Ambient Temp", "Altitude", "Avg Power", "Planar 3.3V", "Planar 5V", "Planar 12V",
    ]  # fmt: skip


def test_sdr_elist(fixtures: Path) -> None:
    readings = parse_sdr(fixture(fixtures, "ipmitool_sdr_elist__telegraf_v2Data.txt"))
    assert readings == [
        IpmiReading("Fan1", 5040.0, "RPM", "ok"),
        IpmiReading("Inlet Temp", 25.0, "C", "ok"),
        IpmiReading("Current 1", 7.2, "A", "ok"),
        IpmiReading("Power Supply 1", 110.0, "W", "ok"),  # "110 Watts, Presence detected"
    ]


def test_sensor_table(fixtures: Path) -> None:
    readings = parse_sdr(fixture(fixtures, "ipmitool_sensor__rubyipmi_sensors.txt"))
    assert readings[0] == IpmiReading("FCB FAN1", 5600.0, "RPM", "ok")
    assert IpmiReading("Processor 1 Temp", 23.0, "C", "ok") in readings
    assert IpmiReading("22-LOM", None, "C", "na") in readings  # unreadable, kept as unknown
    assert not any(r.name == "PEF Action" for r in readings)  # discrete


def test_lab_bmc_output() -> None:
    text = (
        "Bay Temp         | 01h | ok  |  7.1 | 55 degrees C\n"
        "Fan1             | 02h | ok  | 29.1 | 3500 RPM\n"
    )
    fans, sensors = fans_and_sensors(parse_sdr(text))
    assert fans == [Fan("Fan1", 3500, None, driver="ipmi")]
    assert sensors == [Sensor("Bay Temp", 55.0, "C", "ipmi", "ok")]


def test_fahrenheit_becomes_celsius() -> None:
    assert parse_sdr("Inlet | 77 degrees F | ok\n") == [IpmiReading("Inlet", 25.0, "C", "ok")]


def test_an_unknown_shape_is_a_note_naming_the_line_and_the_rest_is_kept() -> None:
    readings, notes = parse_sdr_report("Fan2 | 1200 RPM | ok\nFan1 | 1\n")
    assert readings == [IpmiReading("Fan2", 1200.0, "RPM", "ok")]
    assert notes == [
        "ipmitool output line 2: 2 columns, expected 3, 5 or 10: 'Fan1 | 1'",
    ]
    assert parse_sdr_report("Segmentation fault\n") == (
        [],
        ["ipmitool output line 1: 1 columns, expected 3, 5 or 10: 'Segmentation fault'"],
    )


def test_a_complaint_before_the_table_costs_no_reading(fixtures: Path) -> None:
    """ipmitool 1.8.19 without its IANA PEN data file starts `sensor` with a complaint (held-out
    sample: it used to raise, and every reading of the BMC was lost)."""
    text = fixture(fixtures, "ipmitool_sensor__haipmi25_iana_noise.txt")
    readings, notes = parse_sdr_report(text)
    assert [(r.name, r.value, r.unit) for r in readings] == [
        ("MB_Inlet_TEMP", 21.0, "C"),
        ("MB_Outlet_TEMP", 35.0, "C"),
        ("DIMM_Inlet_TEMP", 20.0, "C"),
        ("PVDDQ_AB", 1.231, "V"),
        ("PVDDQ_CD", 1.231, "V"),
    ]  # the five discrete rows (0x0080 states) are left out
    assert len(notes) == 1 and "line 1" in notes[0] and "IANA PEN registry" in notes[0]


def test_argv_and_password_stay_out_of_it() -> None:
    assert sdr_argv(IpmiTarget()) == ("ipmitool", "sdr", "elist", "full")
    lan = IpmiTarget("127.0.0.1", 19623, "admin", "secret")
    assert sdr_argv(lan) == (
        "ipmitool", "-I", "lanplus", "-C", "3", "-H", "127.0.0.1", "-p", "19623",
        "-U", "admin", "-E", "sdr", "elist", "full",
    )  # fmt: skip
    assert "secret" not in sdr_argv(lan)
    assert lan.env() == {"IPMI_PASSWORD": "secret"}


def test_local_bmc_device(tmp_path: Path) -> None:
    assert not local_bmc(tmp_path)
    (tmp_path / "dev/ipmi").mkdir(parents=True)
    (tmp_path / "dev/ipmi/0").touch()
    assert local_bmc(tmp_path)


@pytest.fixture
def fake_ipmitool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An `ipmitool` first on PATH that prints `out.txt`, exits with `rc`, counts its calls."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "ipmitool"
    script.write_text(
        "#!/bin/sh\n"
        f'echo "$*" >> {tmp_path}/calls\n'
        f'echo "pw=$IPMI_PASSWORD" >> {tmp_path}/calls\n'
        f"cat {tmp_path}/out.txt\n"
        f"exit $(cat {tmp_path}/rc)\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    (tmp_path / "rc").write_text("0\n")
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return tmp_path


SUPERMICRO = FanConfig("cpu-zone", FanDriver.IPMI_SUPERMICRO, "cpu", ipmi_zone=0)
PERIPHERAL = FanConfig("hdd-zone", FanDriver.IPMI_SUPERMICRO, "drives", ipmi_zone=1)


async def test_collector_reads_the_bmc_and_sorts_tachs_into_zones(fake_ipmitool: Path) -> None:
    (fake_ipmitool / "out.txt").write_text(
        "CPU Temp         | 01h | ok  |  3.1 | 45 degrees C\n"
        "FAN1             | 41h | ok  | 29.1 | 1400 RPM\n"
        "FANA             | 45h | ok  | 29.1 | 900 RPM\n"
    )
    config = Config(fans=(SUPERMICRO, PERIPHERAL), poll=PollConfig(fans_s=5.0))
    target = IpmiTarget("bmc.example", user="admin", password="pw1")
    collector = FanCollector(config, fake_ipmitool, ipmi=target)
    report = await collector.collect(100.0)
    assert report.errors == ()
    assert [(f.name, f.rpm, f.zone) for f in report.fans] == [
        ("cpu-zone", None, "cpu"),
        ("hdd-zone", None, "drives"),
        ("FAN1", 1400, "cpu"),
        ("FANA", 900, "drives"),
    ]
    assert report.sensors == (Sensor("CPU Temp", 45.0, "C", "ipmi", "ok"),)
    await collector.collect(103.0)  # within poll.fans: the BMC is not asked again
    await collector.collect(106.0)
    calls = (fake_ipmitool / "calls").read_text().splitlines()
    assert calls[0].endswith("-U admin -E sdr elist full")
    assert calls[1] == "pw=pw1"
    assert len(calls) == 4


async def test_a_failing_bmc_is_one_error(fake_ipmitool: Path) -> None:
    (fake_ipmitool / "out.txt").write_text("")
    (fake_ipmitool / "rc").write_text("1\n")
    report = await FanCollector(Config(), fake_ipmitool, ipmi=IpmiTarget()).collect(1.0)
    assert report.errors == (CollectorError("ipmi", "IPMI: ipmitool exited 1"),)


async def test_no_ipmitool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    report = await FanCollector(Config(), tmp_path, ipmi=IpmiTarget()).collect(1.0)
    assert report.errors == (
        CollectorError(
            "ipmi", "ipmitool not found: install ipmitool to read the BMC's fans and sensors"
        ),
    )


async def test_garbage_from_the_bmc_is_an_error_not_a_crash(fake_ipmitool: Path) -> None:
    (fake_ipmitool / "out.txt").write_text("Fan1 | 1200 RPM | ok\nhalf a line | 3\n")
    report = await FanCollector(Config(), fake_ipmitool, ipmi=IpmiTarget()).collect(1.0)
    assert report.fans == (Fan("Fan1", 1200, None, driver="ipmi"),)  # kept: degrade, not drop
    assert len(report.errors) == 1
    assert "line 2: 2 columns" in report.errors[0].message


async def test_no_bmc_is_asked_under_another_root(fake_ipmitool: Path) -> None:
    (fake_ipmitool / "dev").mkdir()
    (fake_ipmitool / "dev/ipmi0").touch()
    config = Config(fans=(SUPERMICRO,))
    await FanCollector(config, fake_ipmitool).collect(1.0)  # a captured tree: not this BMC
    assert not (fake_ipmitool / "calls").exists()


def test_the_lab_bmc_in_every_shape(fixtures: Path) -> None:
    """The same two sensors of the lab's ipmi_sim, as the three commands print them."""
    expected = [IpmiReading("Bay Temp", 41.0, "C", "ok"), IpmiReading("Fan1", 1200.0, "RPM", "ok")]
    for name in (
        "ipmitool_sdr_list__ipmi_sim_lab.txt",
        "ipmitool_sdr_elist_full__ipmi_sim_lab.txt",
        "ipmitool_sensor__ipmi_sim_lab.txt",
    ):
        assert parse_sdr(fixture(fixtures, name)) == expected, name
    hot = parse_sdr(fixture(fixtures, "ipmitool_sdr_elist_full__ipmi_sim_lab_hot.txt"))
    assert hot[0] == IpmiReading("Bay Temp", 57.0, "C", "ucr")
