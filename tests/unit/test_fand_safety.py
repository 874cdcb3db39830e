"""The fan daemon's safety pieces in-process: implausible temperatures, the bounded reader, the
watchdog thread, sd_notify's environment, and `--full-speed`'s plan on fake trees."""

from __future__ import annotations

import asyncio
import io
import math
import socket
import threading
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nastui.daemonlog import Log
from nastui.fans.flow.reads import BoundedReader, Stall
from nastui.fans.flow.rescue import bounded, file_commands, pwm_files, rescue
from nastui.fans.flow.watch import Notifier, Watchdog
from nastui.fans.logic.curve import FULL
from nastui.fans.logic.zone import (
    PLAUSIBLE_C,
    Blind,
    Reading,
    Seen,
    Trust,
    ZoneState,
    implausible,
    vetted_reading,
    zone_reading,
    zone_step,
)
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


def periods(
    values: Sequence[float | None], need: int = 5, step: float = 0.5, zone: FanZone = AVERAGE
) -> list[Reading | Blind | None]:
    """sda's readings, one a period of `step` s (None: no reading), through one zone's trust."""
    trusts: dict[str, Trust] = {}
    out: list[Reading | Blind | None] = []
    for i, value in enumerate(values):
        at = NOW + i * step
        drives = (drive("sda", value, at) if value is not None else bare("sda"),)
        reading, trusts = judge(drives, at, trusts, need, zone.sources)
        out.append(reading)
    return out


def judge(
    drives: tuple[Drive, ...],
    at: float,
    trusts: dict[str, Trust],
    need: int,
    sources: tuple[FanSource, ...] = (),
    *,
    sensors: tuple[Sensor, ...] = (),
) -> tuple[Reading | Blind | None, dict[str, Trust]]:
    """One period of a zone's sensors through `trusts` (readings stale after 30 s)."""
    return vetted_reading(sources, drives, sensors, at, 30.0, trusts=trusts, need=need)


def bare(dev: str) -> Drive:
    return Drive(dev, DriveIdentity(serial=dev))


def test_a_jump_that_sticks_is_lost_until_it_could_have_cooled() -> None:
    seen = periods([60.0] + [5.0] * 200)  # 60 -> 5 C, then stuck there: 100 s of readings
    assert isinstance(seen[0], Reading)
    first = next(i for i, r in enumerate(seen) if i and isinstance(r, Reading))
    assert seen[1] == Blind("sda: implausible temperature jump 60 -> 5 C in 0 s")
    # 55 C down is plausible after 50 s at a drive's pace, then 5 readings more: 52 s
    assert first * 0.5 == 52.0
    assert seen[first - 1] == Blind(
        "sda: lost; 4 of 5 plausible readings in a row to be believed again"
    )
    assert all(isinstance(r, Reading) for r in seen[first:])


@pytest.mark.parametrize("bad", [None, math.nan, 0.0, -40.0, 127.0])
def test_a_sensor_alternating_good_and_bad_stays_lost(bad: float | None) -> None:
    seen = periods([40.0, bad] * 50)
    assert isinstance(seen[0], Reading)
    assert all(isinstance(r, Blind) for r in seen[1:])  # never believed again: full speed


@pytest.mark.parametrize("need", [1, 2, 5, 60])
def test_a_lost_sensor_is_believed_after_need_steady_readings(need: int) -> None:
    seen = periods([40.0, None] + [40.0] * 70, need=need)
    believed = [isinstance(r, Reading) for r in seen]
    assert believed == [True, False] + [False] * (need - 1) + [True] * (71 - need)


def test_the_same_reading_again_is_no_new_evidence() -> None:
    trusts: dict[str, Trust] = {}
    _, trusts = judge((bare("sda"),), NOW, trusts, 3)
    for later in range(10):  # a backend polling slower than the loop: one reading, 10 periods
        reading, trusts = judge((drive("sda", 40.0),), NOW + later, trusts, 3)
        assert isinstance(reading, Blind)
    assert trusts["sda"].streak == 1


def test_a_stale_reading_loses_the_sensor_too() -> None:
    trusts: dict[str, Trust] = {}
    _, trusts = judge((drive("sda", 40.0),), NOW, trusts, 2)
    old, trusts = judge((drive("sda", 40.0),), NOW + 60, trusts, 2)
    assert old == Blind("sda: temperature 60s old")
    first, trusts = judge((drive("sda", 41.0, NOW + 61),), NOW + 61, trusts, 2)
    again, _ = judge((drive("sda", 41.0, NOW + 62),), NOW + 62, trusts, 2)
    assert isinstance(first, Blind) and again == Reading(41.0, "hottest drive sda")


def test_a_cpu_package_that_flaps_stays_lost() -> None:
    trusts: dict[str, Trust] = {}
    package = (Sensor("Package id 0", 50.0, "C"),)
    for i in range(20):
        sensors = package if i % 2 == 0 else ()
        reading, trusts = judge((), NOW + i, trusts, 5, (FanSource.CPU,), sensors=sensors)
        assert isinstance(reading, Reading) == (i == 0)
    for i in range(20, 25):  # steady again: believed at the fifth reading
        reading, trusts = judge((), NOW + i, trusts, 5, (FanSource.CPU,), sensors=package)
    assert reading == Reading(50.0, "Package id 0")


def test_a_drive_in_two_sources_is_counted_once_a_period() -> None:
    both = FanZone("d", (FanSource.HOTTEST_DRIVE, FanSource.AVERAGE_DRIVES), ZoneMode.CURVE, CURVE)
    seen = periods([40.0, None] + [40.0] * 6, need=3, zone=both)
    assert [isinstance(r, Reading) for r in seen] == [True, False, False, False] + [True] * 4


READINGS = st.lists(
    st.one_of(
        st.none(),
        st.sampled_from([math.nan, 0.0, -40.0, 127.0, 5.0, 90.0]),
        st.floats(min_value=30.0, max_value=45.0),
    ),
    max_size=60,
)


@settings(max_examples=300, deadline=None)
@given(READINGS, st.integers(min_value=1, max_value=8))
def test_never_believed_within_need_readings_of_a_bad_one(
    values: list[float | None], need: int
) -> None:
    seen = periods(values, need=need)
    low, high = PLAUSIBLE_C
    bad = [v is None or not low <= v <= high for v in values]
    for i, reading in enumerate(seen):
        if isinstance(reading, Reading) and any(bad[:i]):
            assert not any(bad[max(0, i - need + 1) : i + 1]), (i, values)


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
