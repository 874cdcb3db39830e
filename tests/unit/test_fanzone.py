"""Fan zones: sources, sleeping drives, stale readings and the fail-safe."""

from __future__ import annotations

from nastui.fans.logic.curve import FULL
from nastui.fans.logic.zone import Blind, Reading, ZoneState, zone_reading, zone_step
from nastui.model import (
    CurveKind,
    CurvePoint,
    Drive,
    DriveIdentity,
    FanCurve,
    FanSource,
    FanZone,
    PowerState,
    Sensor,
    Temperature,
    TempSource,
    ZoneMode,
)

NOW = 10_000.0
MAX_AGE = 90.0
CURVE = FanCurve(
    (CurvePoint(30, 20), CurvePoint(40, 50), CurvePoint(45, 100)), CurveKind.LINEAR, 2.0, 25.0
)
ZONE = FanZone("drives", (FanSource.HOTTEST_DRIVE,), ZoneMode.CURVE, CURVE)


def drive(
    dev: str, temp: float | None, *, age: float = 5, power: PowerState = PowerState.ACTIVE
) -> Drive:
    reading = Temperature(temp, NOW - age, TempSource.DRIVETEMP) if temp is not None else None
    return Drive(dev, DriveIdentity(serial=dev.upper()), power=power, temperature=reading)


DRIVES = (drive("sda", 36), drive("sdb", 41), drive("sdc", 38))
CPU = (Sensor("CPU package", 55.0), Sensor("System", 30.0))


def test_hottest_and_average() -> None:
    hot = zone_reading((FanSource.HOTTEST_DRIVE,), DRIVES, (), NOW, MAX_AGE)
    assert hot == Reading(41, "hottest drive sdb")
    avg = zone_reading((FanSource.AVERAGE_DRIVES,), DRIVES, (), NOW, MAX_AGE)
    assert isinstance(avg, Reading) and round(avg.celsius, 2) == 38.33


def test_several_sources_follow_the_hottest() -> None:
    both = zone_reading((FanSource.HOTTEST_DRIVE, FanSource.CPU), DRIVES, CPU, NOW, MAX_AGE)
    assert both == Reading(55.0, "CPU package")


def test_sleeping_drives_are_left_out() -> None:
    drives = (drive("sda", 36), drive("sdb", 48, age=3600, power=PowerState.STANDBY))
    assert zone_reading((), drives, (), NOW, MAX_AGE) == Reading(36, "hottest drive sda")
    asleep = tuple(drive(d, 40, age=3600, power=PowerState.STANDBY) for d in ("sda", "sdb"))
    assert zone_reading((FanSource.HOTTEST_DRIVE,), asleep, (), NOW, MAX_AGE) is None


def test_an_awake_drive_we_cannot_read_blinds_the_zone() -> None:
    missing = (*DRIVES, drive("sdd", None))
    assert zone_reading((), missing, (), NOW, MAX_AGE) == Blind("sdd: no temperature")
    stale = (*DRIVES, drive("sdd", 35, age=300))
    assert zone_reading((), stale, (), NOW, MAX_AGE) == Blind("sdd: temperature 300s old")
    assert zone_reading((FanSource.CPU,), DRIVES, (), NOW, MAX_AGE) == Blind(
        "no CPU temperature sensor"
    )


def test_blind_zone_goes_to_full_speed_at_once() -> None:
    decision, state = zone_step(ZONE, ZoneState(), Blind("sdd: no temperature"), NOW)
    assert decision.duty == FULL
    assert decision.failsafe
    assert decision.reason == "fail-safe: sdd: no temperature"
    assert state == ZoneState()


def test_all_asleep_is_quiet_not_full() -> None:
    decision, _ = zone_step(ZONE, ZoneState(), None, NOW)
    assert decision.duty == CURVE.min_duty
    assert not decision.failsafe


def test_curve_mode_with_hysteresis() -> None:
    state = ZoneState()
    decision, state = zone_step(ZONE, state, Reading(40, "hottest drive sdb"), NOW)
    assert decision.duty == 50
    decision, state = zone_step(ZONE, state, Reading(39, "hottest drive sdb"), NOW + 10)
    assert decision.duty == 50  # within the 2 degree band: holds
    decision, state = zone_step(ZONE, state, Reading(37.5, "hottest drive sdb"), NOW + 20)
    assert decision.duty == 42.5


def test_pid_mode_steps_with_elapsed_time() -> None:
    pid_zone = FanZone("drives", (), ZoneMode.PID, CURVE, setpoint_c=40, kp=5, ki=0.1, kd=0)
    decision, state = zone_step(pid_zone, ZoneState(), Reading(44, "hottest drive sdb"), NOW)
    assert decision.duty == 25.0  # kp*4 + ki*4*1 = 20.4, raised to the curve's 25 % floor
    decision, state = zone_step(pid_zone, state, Reading(46, "hottest drive sdb"), NOW + 30)
    assert decision.duty > 30
    assert "set point 40" in decision.reason
