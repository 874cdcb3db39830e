"""Fan drivers: the exact argv each BMC gets, hwmon writes landing in files and restored, dry
run writing nothing, and duty checked before anything is written."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pytest

from nastui.fans.io import (
    CommandFan,
    DellFans,
    DriverError,
    FanWriter,
    HwmonPwm,
    SimFan,
    SupermicroZone,
)
from nastui.fans.io import argv as fan_argv
from tests.fakehwmon import add_chip, read

LAN = ("ipmitool", "-I", "lanplus", "-H", "10.0.0.5")


@dataclass
class Outcome:
    ok: bool = True
    message: str = "ipmitool exited 1: Invalid command"

    def describe(self) -> str:
        return self.message


class Recorder:
    """A runner that records argv and answers from a script."""

    def __init__(self, *failing: tuple[str, ...]) -> None:
        self.calls: list[tuple[str, ...]] = []
        self.failing = set(failing)

    async def __call__(self, argv: tuple[str, ...]) -> Outcome:
        self.calls.append(argv)
        return Outcome(ok=argv not in self.failing)


@pytest.mark.parametrize(
    ("duty", "pwm", "byte"),
    [(0, 0, "0x00"), (50, 128, "0x32"), (37.4, 95, "0x25"), (100, 255, "0x64")],
)
def test_duty_scaling(duty: float, pwm: int, byte: str) -> None:
    assert fan_argv.pwm_value(duty) == pwm
    assert fan_argv.duty_byte(duty) == byte


@pytest.mark.parametrize("bad", [-0.1, 100.1, float("nan"), float("inf")])
def test_duty_outside_0_to_100_is_refused(bad: float) -> None:
    with pytest.raises(ValueError, match=r"0\.\.100"):
        fan_argv.pwm_value(bad)
    with pytest.raises(ValueError):
        fan_argv.supermicro_zone_duty(0, bad)


def test_supermicro_argv() -> None:
    assert fan_argv.supermicro_full_mode() == ("ipmitool", "raw", "0x30", "0x45", "0x01", "0x01")
    assert fan_argv.supermicro_zone_duty(1, 50) == (
        "ipmitool", "raw", "0x30", "0x70", "0x66", "0x01", "0x01", "0x32",
    )  # fmt: skip
    assert fan_argv.supermicro_zone_duty(0, 100, LAN)[len(LAN) :] == (
        "raw", "0x30", "0x70", "0x66", "0x01", "0x00", "0x64",
    )  # fmt: skip
    with pytest.raises(ValueError, match="zone"):
        fan_argv.supermicro_zone_duty(256, 50)


def test_dell_argv() -> None:
    assert fan_argv.dell_manual() == ("ipmitool", "raw", "0x30", "0x30", "0x01", "0x00")
    assert fan_argv.dell_duty(30) == ("ipmitool", "raw", "0x30", "0x30", "0x02", "0xff", "0x1e")
    assert fan_argv.dell_automatic() == ("ipmitool", "raw", "0x30", "0x30", "0x01", "0x01")


def test_command_argv() -> None:
    template = ("/usr/local/bin/set-blower", "--duty", "{duty}", "--unit=pct{duty}")
    assert fan_argv.command_argv(template, 42.6) == (
        "/usr/local/bin/set-blower", "--duty", "43", "--unit=pct43",
    )  # fmt: skip
    with pytest.raises(ValueError, match="duty"):
        fan_argv.command_argv(("set-blower",), 40)


def test_pwm_percent_reads_back() -> None:
    assert fan_argv.pwm_percent(255) == 100.0
    assert fan_argv.pwm_percent(128) == 50.2
    assert fan_argv.pwm_percent(300) == 100.0


def chip(tmp_path: Path, value: int = 100, enable: int = 5) -> Path:
    return add_chip(tmp_path, fans={2: 1100}, pwms={2: (value, enable)})


async def test_hwmon_takes_manual_mode_writes_and_restores(tmp_path: Path) -> None:
    hwmon = chip(tmp_path)
    writer = FanWriter()
    fan = HwmonPwm("front", hwmon, 2, writer)
    await fan.set(50)
    assert (read(hwmon / "pwm2_enable"), read(hwmon / "pwm2")) == ("1", "128")
    assert fan.original == ("5", "100")
    await fan.set(60)
    assert read(hwmon / "pwm2") == "153"
    assert writer.take() == [
        f"{hwmon}/pwm2_enable = 1",
        f"{hwmon}/pwm2 = 128",
        f"{hwmon}/pwm2 = 153",
    ]
    await fan.restore()
    assert (read(hwmon / "pwm2_enable"), read(hwmon / "pwm2")) == ("5", "100")


async def test_hwmon_reasserts_manual_mode_taken_away(tmp_path: Path) -> None:
    hwmon = chip(tmp_path)
    fan = HwmonPwm("front", hwmon, 2, FanWriter())
    await fan.set(40)
    (hwmon / "pwm2_enable").write_text("2\n")  # the BIOS took it back (after a resume)
    await fan.set(45)
    assert read(hwmon / "pwm2_enable") == "1"
    await fan.restore()
    assert read(hwmon / "pwm2_enable") == "5"  # the first original, not the BIOS's grab


async def test_hwmon_holds_what_it_set_and_says_what_it_found(tmp_path: Path) -> None:
    hwmon = chip(tmp_path)
    writer = FanWriter()
    fan = HwmonPwm("front", hwmon, 2, writer)
    assert await fan.hold() is None  # never set: nothing to hold, nothing written
    await fan.set(40)
    writer.take()
    assert await fan.hold() is None  # as it was left: read back, not written
    assert writer.take() == []
    for enable, value, found in [
        ("5", "60", "pwm2_enable=5, pwm2=60"),  # the BIOS's SmartFan mode took it back
        ("1", "0", "pwm2_enable=1, pwm2=0"),  # another tool stopped the fan
        ("1", "", "pwm2_enable=1, pwm2=''"),
    ]:
        (hwmon / "pwm2_enable").write_text(f"{enable}\n")
        (hwmon / "pwm2").write_text(f"{value}\n")
        assert await fan.hold() == found
        assert (read(hwmon / "pwm2_enable"), read(hwmon / "pwm2")) == ("1", "102")
        assert writer.take() == [f"{hwmon}/pwm2_enable = 1", f"{hwmon}/pwm2 = 102"]
    await fan.restore()
    assert await fan.hold() is None  # given back: no longer held


async def test_hwmon_without_a_mode_switch_holds_the_duty(tmp_path: Path) -> None:
    hwmon = chip(tmp_path)
    (hwmon / "pwm2_enable").unlink()
    fan = HwmonPwm("front", hwmon, 2, FanWriter())
    await fan.set(100)
    (hwmon / "pwm2").write_text("60\n")
    assert await fan.hold() == "pwm2=60"
    assert read(hwmon / "pwm2") == "255"
    assert not (hwmon / "pwm2_enable").exists()  # never created


async def test_hwmon_dry_run_holds_nothing(tmp_path: Path) -> None:
    hwmon = chip(tmp_path)
    writer = FanWriter(dry_run=True)
    fan = HwmonPwm("front", hwmon, 2, writer)
    await fan.set(40)
    writer.take()
    assert await fan.hold() is None
    assert writer.take() == []


async def test_bmc_and_command_fans_send_their_last_commands_again() -> None:
    runner = Recorder()
    writer = FanWriter(runner)
    smc = SupermicroZone("periph", 1, writer)
    dell = DellFans("idrac", writer)
    blower = CommandFan("blower", ("set-blower", "{duty}"), writer)
    sim = SimFan("sim", writer)
    for fan in (smc, dell, blower, sim):
        assert await fan.hold() is None  # never set: nothing sent
    assert runner.calls == []
    await smc.set(40)
    await dell.set(20)
    await blower.set(35)
    runner.calls.clear()
    for fan in (smc, dell, blower, sim):
        assert await fan.hold() is None  # nothing can be read back: nothing to report
    assert runner.calls == [
        fan_argv.supermicro_zone_duty(1, 40),  # the duty, not Full mode (100 % at once)
        fan_argv.dell_manual(),  # an iDRAC reset takes manual mode away
        fan_argv.dell_duty(20),
        ("set-blower", "35"),
    ]
    await smc.full()
    runner.calls.clear()
    await smc.hold()
    assert runner.calls == [fan_argv.supermicro_full_mode()]
    for fan in (smc, dell, blower):
        await fan.restore()
    runner.calls.clear()
    for fan in (smc, dell, blower):
        assert await fan.hold() is None
    assert runner.calls == []  # given back: no longer held


async def test_hwmon_never_touched_restores_nothing(tmp_path: Path) -> None:
    hwmon = chip(tmp_path)
    await HwmonPwm("front", hwmon, 2, FanWriter()).restore()
    assert (read(hwmon / "pwm2_enable"), read(hwmon / "pwm2")) == ("5", "100")


async def test_hwmon_without_an_original_restores_full_speed(tmp_path: Path) -> None:
    hwmon = chip(tmp_path)
    (hwmon / "pwm2_enable").unlink()
    fan = HwmonPwm("front", hwmon, 2, FanWriter())
    await fan.set(30)
    await fan.restore()
    assert read(hwmon / "pwm2") == "255"


async def test_hwmon_write_failure_is_a_driver_error(tmp_path: Path) -> None:
    fan = HwmonPwm("front", tmp_path / "gone", 2, FanWriter())
    with pytest.raises(DriverError, match=r"cannot write 1 to .*pwm2_enable"):
        await fan.set(30)


async def test_bad_duty_writes_nothing(tmp_path: Path) -> None:
    hwmon = chip(tmp_path)
    writer = FanWriter()
    with pytest.raises(ValueError):
        await HwmonPwm("front", hwmon, 2, writer).set(120)
    assert writer.take() == []
    assert read(hwmon / "pwm2_enable") == "5"


async def test_dry_run_records_and_writes_nothing(tmp_path: Path) -> None:
    hwmon = chip(tmp_path)
    runner = Recorder()
    writer = FanWriter(runner, dry_run=True)
    await HwmonPwm("front", hwmon, 2, writer).set(50)
    await SupermicroZone("cpu", 0, writer).set(50)
    assert (read(hwmon / "pwm2_enable"), read(hwmon / "pwm2")) == ("5", "100")
    assert runner.calls == []
    assert writer.take() == [
        f"{hwmon}/pwm2_enable = 1",
        f"{hwmon}/pwm2 = 128",
        "ipmitool raw 0x30 0x45 0x01 0x01",
        "ipmitool raw 0x30 0x70 0x66 0x01 0x00 0x32",
    ]


async def test_supermicro_sets_full_mode_once_and_restores_full_speed() -> None:
    runner = Recorder()
    fan = SupermicroZone("periph", 1, FanWriter(runner), LAN)
    await fan.set(40)
    await fan.set(45)
    await fan.restore()
    raw = [call[len(LAN) :] for call in runner.calls]
    assert raw == [
        ("raw", "0x30", "0x45", "0x01", "0x01"),
        ("raw", "0x30", "0x70", "0x66", "0x01", "0x01", "0x28"),
        ("raw", "0x30", "0x70", "0x66", "0x01", "0x01", "0x2d"),
        ("raw", "0x30", "0x45", "0x01", "0x01"),
    ]


async def test_dell_manual_then_duty_then_automatic() -> None:
    runner = Recorder()
    fan = DellFans("idrac", FanWriter(runner))
    await fan.set(20)
    await fan.full()
    await fan.restore()
    assert runner.calls == [
        fan_argv.dell_manual(),
        fan_argv.dell_duty(20),
        fan_argv.dell_manual(),
        fan_argv.dell_duty(100),
        fan_argv.dell_automatic(),
    ]


async def test_a_failing_command_is_a_driver_error() -> None:
    runner = Recorder(fan_argv.supermicro_zone_duty(0, 30))
    fan = SupermicroZone("cpu", 0, FanWriter(runner))
    with pytest.raises(DriverError, match="Invalid command"):
        await fan.set(30)
    await fan.full()  # the fail-safe still goes through
    assert runner.calls[-1] == fan_argv.supermicro_full_mode()


async def test_command_fan_and_its_restore() -> None:
    runner = Recorder()
    fan = CommandFan("blower", ("set-blower", "{duty}"), FanWriter(runner))
    await fan.restore()  # never used: nothing to do
    await fan.set(35)
    await fan.restore()
    assert runner.calls == [("set-blower", "35"), ("set-blower", "100")]
    with pytest.raises(ValueError):
        CommandFan("bad", ("set-blower",), FanWriter(runner))


async def test_commands_need_a_runner() -> None:
    with pytest.raises(DriverError, match="no command runner"):
        await DellFans("idrac", FanWriter()).set(30)


async def test_sim_fan_only_records() -> None:
    writer = FanWriter(dry_run=True)
    fan = SimFan("fan-wall-1", writer)
    await fan.set(45)
    await fan.full()
    await fan.restore()
    assert writer.take() == [
        "sim fan fan-wall-1 = 45 %",
        "sim fan fan-wall-1 = 100 %",
        "sim fan fan-wall-1 back to the simulator",
    ]


def test_the_writer_reads_only_a_regular_file_of_a_page(tmp_path: Path) -> None:
    writer = FanWriter()
    fifo = tmp_path / "pwm2"
    os.mkfifo(fifo)  # no writer: read at once as nothing, never waited on
    assert writer.read(fifo) is None
    assert writer.read(Path("/dev/zero")) is None  # never read without end
    big = tmp_path / "pwm3"
    big.write_text("1" * 5000)
    assert writer.read(big) is None
    big.write_text("128\n")
    assert writer.read(big) == "128"
