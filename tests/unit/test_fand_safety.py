"""The fan daemon's safety pieces in-process: implausible temperatures, the bounded reader, the
watchdog thread, sd_notify's environment, and `--full-speed`'s plan on fake trees."""

from __future__ import annotations

import asyncio
import io
import math
import socket
import threading
from pathlib import Path

import pytest

from nastui.core.fancurve import FULL
from nastui.core.fanzone import (
    Blind,
    Reading,
    Seen,
    ZoneState,
    implausible,
    remember,
    zone_reading,
    zone_step,
)
from nastui.daemon.fanlog import Log
from nastui.daemon.fanreads import BoundedReader, Stall
from nastui.daemon.fanrescue import bounded, file_commands, pwm_files, rescue
from nastui.daemon.fanwatch import Notifier, Watchdog
from nastui.model import (
    CurvePoint,
    Drive,
    DriveIdentity,
    FanCurve,
    FanSource,
    FanZone,
    HostSnapshot,
    Sensor,
    Temperature,
    TempSource,
    ZoneMode,
)
from tests.fakehwmon import add_chip, read

NOW = 1000.0
CURVE = FanCurve((CurvePoint(30, 20), CurvePoint(40, 50), CurvePoint(45, 100)))
AVERAGE = FanZone("drives", (FanSource.AVERAGE_DRIVES,), ZoneMode.CURVE, CURVE)


def drive(dev: str, celsius: float, at: float = NOW) -> Drive:
    return Drive(
        dev, DriveIdentity(serial=dev), temperature=Temperature(celsius, at, TempSource.DRIVETEMP)
    )


@pytest.mark.parametrize("celsius", [0.0, -40.0, -1e20, 127.0, 255.0, math.nan, math.inf])
def test_impossible_values_are_implausible(celsius: float) -> None:
    assert implausible(celsius) is not None


@pytest.mark.parametrize("celsius", [1.0, 20.0, 44.0, 70.0, 110.0])
def test_real_values_are_believed(celsius: float) -> None:
    assert implausible(celsius) is None


def test_a_drive_cannot_jump_faster_than_it_heats() -> None:
    before = Seen(44.0, NOW - 5)
    assert implausible(48.0, before, NOW) is None  # 4 C in 5 s: within the slack
    assert implausible(54.0, before, NOW) is None  # 10 C in 5 s: 5 + 1 C/s
    assert implausible(20.0, before, NOW) == "implausible temperature jump 44 -> 20 C in 5 s"
    assert implausible(20.0, Seen(44.0, NOW - 60), NOW) is None  # a minute: believable


@pytest.mark.parametrize("celsius", [0.0, -40.0, -1e20])
def test_one_impossible_drive_no_longer_idles_an_average_zone(celsius: float) -> None:
    drives = (drive("sda", 44.0), drive("sdb", celsius))
    reading = zone_reading(AVERAGE.sources, drives, (), NOW, 30.0)
    assert isinstance(reading, Blind) and reading.why.startswith("sdb: implausible temperature")
    decision, _ = zone_step(AVERAGE, ZoneState(), reading, NOW)
    assert decision.duty == FULL and decision.failsafe  # was 20 %: the average of 44 and 0


def test_a_jump_is_lost_once_then_believed() -> None:
    previous = remember((drive("sda", 44.0, NOW - 5),), {})
    jumped = (drive("sda", 20.0),)
    assert isinstance(zone_reading((), jumped, (), NOW, 30.0, previous=previous), Blind)
    previous = remember(jumped, previous)
    later = (drive("sda", 20.0, NOW + 5),)
    assert zone_reading((), later, (), NOW + 5, 30.0, previous=previous) == Reading(
        20.0, "hottest drive sda"
    )


def test_an_impossible_cpu_sensor_is_skipped_or_blind() -> None:
    sensors = (Sensor("Package id 0", 0.0, "C"), Sensor("Package id 1", 61.0, "C"))
    assert zone_reading((FanSource.CPU,), (), sensors, NOW, 30.0) == Reading(61.0, "Package id 1")
    dead = (Sensor("Package id 0", -273.0, "C"),)
    assert isinstance(zone_reading((FanSource.CPU,), (), dead, NOW, 30.0), Blind)


async def test_a_stalled_read_is_a_stall_and_starts_no_second_read() -> None:
    release, calls = threading.Event(), [0]
    snapshot = HostSnapshot("box", NOW)

    async def job() -> HostSnapshot:
        calls[0] += 1
        release.wait()  # a read that does not return (on the reader thread)
        return snapshot

    reader = BoundedReader(job, deadline=0.05)
    assert isinstance(await reader.read(), Stall)
    assert isinstance(await reader.read(), Stall)
    assert calls[0] == 1
    release.set()
    got: HostSnapshot | Stall = Stall(0)
    while isinstance(got, Stall):
        got = await reader.read()
        await asyncio.sleep(0.01)
    assert got is snapshot


async def test_a_stop_interrupts_the_wait_for_a_read() -> None:
    release = threading.Event()

    async def job() -> HostSnapshot:
        release.wait()
        return HostSnapshot("box", NOW)

    reader = BoundedReader(job, deadline=3600)
    stop = asyncio.Event()
    stop.set()
    try:
        assert isinstance(await reader.read(stop), Stall)
    finally:
        release.set()


async def test_a_failed_read_raises() -> None:
    async def job() -> HostSnapshot:
        raise RuntimeError("collector bug")

    with pytest.raises(RuntimeError, match="collector bug"):
        await BoundedReader(job, deadline=10).read()


def test_the_watchdog_calls_when_the_beats_stop() -> None:
    fired: list[str] = []
    done = threading.Event()

    def stuck(why: str) -> None:
        fired.append(why)
        done.set()

    watchdog = Watchdog(0.05, stuck)
    watchdog.start()
    assert done.wait(10)
    assert fired[0].startswith("control loop stuck for ") and fired[0].endswith("(limit 0.05 s)")


def test_notifier_environment() -> None:
    assert not Notifier({}).active
    assert Notifier({"NOTIFY_SOCKET": "/run/systemd/notify"}).interval is None
    assert Notifier({"NOTIFY_SOCKET": "@x", "WATCHDOG_USEC": "30000000"}).interval == 30.0
    other = {"NOTIFY_SOCKET": "@x", "WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "1"}
    assert Notifier(other).interval is None  # meant for another process
    Notifier({}).send("READY=1")  # nothing to notify: nothing happens


def test_notifier_sends_datagrams(tmp_path: Path) -> None:
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(str(tmp_path / "notify"))
        notifier = Notifier({"NOTIFY_SOCKET": str(tmp_path / "notify")})
        notifier.ready("driving 2 fans")
        assert sock.recv(100) == b"READY=1\nSTATUS=driving 2 fans"
    gone = Notifier({"NOTIFY_SOCKET": str(tmp_path / "gone")})
    gone.stopping()
    assert gone.trouble is not None and "cannot notify systemd" in gone.trouble


def test_full_speed_finds_only_pwm_duty_files(tmp_path: Path) -> None:
    hwmon = add_chip(tmp_path, pwms={1: (80, 2), 2: (100, 5)})
    (hwmon / "pwm1_mode").write_text("1\n")
    (hwmon / "pwm1_auto_point1_pwm").write_text("50\n")
    assert [p.name for p in pwm_files(tmp_path)] == ["pwm1", "pwm2"]
    assert pwm_files(tmp_path / "nowhere") == []


def test_full_speed_commands_of_a_broken_file(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(
        '[[fan]]\nname = "bmc"\ndriver = "ipmi-dell"\nzone = "none"\nipmi_zone = 0\n'
        '[[fan]]\nname = "x"\ndriver = "command"\nset_command = ["/bin/true", "{duty}"]\n'
    )
    notes: list[str] = []
    commands = file_commands(config)(notes)
    assert [what for what, _ in commands] == ["fan bmc", "fan bmc"]
    assert notes[0].startswith("configuration invalid (config.toml:")
    assert notes[1] == "fan x: its command is not run from an invalid configuration"
    notes.clear()
    assert file_commands(None)(notes) == []
    assert notes == ["no configuration file: IPMI and command fans, if any, not driven"]


async def test_full_speed_writes_every_pwm_before_reading_the_configuration(
    tmp_path: Path,
) -> None:
    hwmon = add_chip(tmp_path, pwms={1: (80, 2), 2: (100, 5)})
    seen: list[tuple[str, ...]] = []

    def commands(notes: list[str]) -> list[tuple[str, tuple[str, ...]]]:
        seen.append(tuple(read(hwmon / f) for f in ("pwm1", "pwm2")))
        release.wait()  # a configuration that never reads: the rescue does not wait for it
        return []

    release = threading.Event()
    log = Log(io.StringIO())
    try:
        assert not await rescue(tmp_path, commands, log, timeout=0.05)
    finally:
        release.set()
    assert seen == [("255", "255")]  # full speed already written when it was asked
    assert log.lines[-1] == (
        "fand --full-speed: configuration not read (no answer within 0.05 s): "
        "IPMI and command fans not driven"
    )


def test_a_hung_write_is_abandoned() -> None:
    release = threading.Event()

    def hang() -> None:
        release.wait()

    try:
        assert bounded(hang, 0.05) == "no answer within 0.05 s"
    finally:
        release.set()
