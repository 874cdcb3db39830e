"""Fan curves, hysteresis, rate limits, the spin-up kick and PID: exhaustively, as they decide
whether disks cook."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nastui.fans.logic.curve import (
    FanLimits,
    Hysteresis,
    curve_duty,
    fan_duty,
    kick,
    limit_rate,
    raw_curve_duty,
    valid_curve,
)
from nastui.fans.logic.pid import PidGains, PidState, pid_step
from nastui.model import CurveKind, CurvePoint, FanCurve
from nastui.sim.plant import Plant, PlantSpec

POINTS = (CurvePoint(30, 20), CurvePoint(40, 50), CurvePoint(45, 100))
CURVE = FanCurve(POINTS, CurveKind.LINEAR, hysteresis_c=2.0, min_duty=25.0, max_duty=100.0)


@pytest.mark.parametrize(
    ("temp", "duty"),
    [(10, 20), (30, 20), (35, 35), (40, 50), (42.5, 75), (45, 100), (80, 100)],
)
def test_linear_interpolation_clamped_at_the_ends(temp: float, duty: float) -> None:
    assert raw_curve_duty(POINTS, CurveKind.LINEAR, temp) == pytest.approx(duty)


@pytest.mark.parametrize(("temp", "duty"), [(10, 20), (35, 20), (40, 50), (44.9, 50), (46, 100)])
def test_step_curve_holds_each_point_until_the_next(temp: float, duty: float) -> None:
    assert raw_curve_duty(POINTS, CurveKind.STEP, temp) == duty


def test_curve_limits_and_nan() -> None:
    assert curve_duty(CURVE, 20) == 25.0  # min_duty over the curve's 20 %
    assert curve_duty(CURVE, math.nan) == 100.0  # no number, no gamble
    assert raw_curve_duty((), CurveKind.LINEAR, 30) == 100.0


@given(
    st.lists(st.tuples(st.floats(0, 90), st.floats(0, 100)), min_size=1, max_size=8),
    st.floats(-20, 120),
    st.sampled_from(list(CurveKind)),
)
def test_duty_always_within_the_points_range(
    raw: list[tuple[float, float]], temp: float, kind: CurveKind
) -> None:
    temps = sorted({round(t, 3) for t, _ in raw})
    points = tuple(CurvePoint(t, d) for t, (_, d) in zip(temps, raw, strict=False))
    duty = raw_curve_duty(points, kind, temp)
    assert min(p.duty_percent for p in points) <= duty <= max(p.duty_percent for p in points)


@given(st.floats(0, 90), st.floats(0, 90))
def test_monotone_curve_gives_monotone_duty(a: float, b: float) -> None:
    low, high = sorted((a, b))
    assert curve_duty(CURVE, low) <= curve_duty(CURVE, high)


def test_valid_curve_reasons() -> None:
    assert valid_curve(CURVE) is None
    assert valid_curve(FanCurve(())) == "a curve needs at least one point"
    flat = FanCurve((CurvePoint(30, 20), CurvePoint(30, 40)))
    assert valid_curve(flat) == "curve temperatures must rise strictly from point to point"
    assert valid_curve(FanCurve((CurvePoint(30, 120),))) == "curve duty must be between 0 and 100 %"
    assert valid_curve(FanCurve(POINTS, min_duty=90, max_duty=50)) is not None
    assert valid_curve(FanCurve(POINTS, hysteresis_c=-1)) is not None


def test_hysteresis_follows_rises_at_once_and_falls_late() -> None:
    state = Hysteresis()
    for temp, basis in [
        (40, 40),
        (41, 41),
        (40, 41),
        (39.5, 41),
        (39, 39),
        (39.5, 39.5),
        (38, 39.5),
    ]:
        state = state.update(temp, 2.0)
        assert state.basis == basis, temp


@given(st.lists(st.floats(30, 50), min_size=2, max_size=60), st.floats(0.5, 5))
def test_hysteresis_basis_never_below_reading_nor_too_far_above(
    temps: list[float], band: float
) -> None:
    state = Hysteresis()
    for temp in temps:
        state = state.update(temp, band)
        assert state.basis is not None
        assert temp <= state.basis < temp + band + 1e-9


def test_rate_limit_and_kick() -> None:
    assert limit_rate(None, 30, up=100, down=5) == 30
    assert limit_rate(60, 30, up=100, down=5) == 55
    assert limit_rate(30, 90, up=100, down=5) == 90
    assert limit_rate(30, 90, up=20, down=5) == 50
    assert kick(0, 25, 40) == 40
    assert kick(None, 25, 40) == 40
    assert kick(30, 25, 40) == 25  # already turning
    assert kick(0, 0, 40) == 0  # asked to stop: stays stopped


def test_fan_duty_respects_fan_limits_and_full_speed_wins() -> None:
    limits = FanLimits(min_duty=30, max_duty=80, start_duty=45, max_down=10)
    assert fan_duty(20, 50, limits) == 40  # 30 floor, but at most 10 down per period
    assert fan_duty(95, 50, limits) == 80
    assert fan_duty(100, 30, limits) == 100  # fail-safe ignores the fan's max
    assert fan_duty(35, 0, limits) == 45  # kick from a stop


@given(st.floats(0, 100), st.one_of(st.none(), st.floats(0, 100)))
def test_fan_duty_always_within_bounds(zone: float, previous: float | None) -> None:
    limits = FanLimits(min_duty=20, max_duty=90, start_duty=40, max_down=10)
    duty = fan_duty(zone, previous, limits)
    assert 0 <= duty <= 100
    if zone < 100:
        assert duty <= 90 or (previous is None and duty == 40)


GAINS = PidGains(kp=6.0, ki=0.05, kd=0.0)


def pid_period(
    state: PidState, plant: Plant, setpoint: float = 40.0, dt: float = 10.0
) -> tuple[float, PidState]:
    """One control period on `plant`: the duty set and the controller's next state."""
    duty, state = pid_step(
        state,
        setpoint=setpoint,
        measured=plant.reading(),
        dt=dt,
        gains=GAINS,
        out_min=20,
        out_max=100,
    )
    plant.step(duty, dt)
    return duty, state


def run_pid(
    plant: Plant, setpoint: float, minutes: int, dt: float = 10.0
) -> list[tuple[float, float]]:
    state = PidState()
    trace = []
    for _ in range(int(minutes * 60 / dt)):
        duty, state = pid_period(state, plant, setpoint, dt)
        trace.append((plant.temp_c, duty))
    return trace


def test_pid_holds_the_hottest_drive_at_40() -> None:
    plant = Plant(start_c=48.0)
    trace = run_pid(plant, 40.0, minutes=240)
    last_hour = trace[-360:]
    assert all(abs(t - 40.0) < 1.0 for t, _ in last_hour)
    duties = [d for _, d in last_hour]
    assert max(duties) - min(duties) < 15  # settled, not hunting


def test_pid_does_not_wind_up_when_it_cannot_win() -> None:
    # A set point below what full speed can reach: the integral must not wind up, so that once
    # the room cools the controller responds at once.
    hot_room = Plant(PlantSpec(ambient_c=38.0), start_c=45.0)
    state = PidState()
    for _ in range(360):
        duty, state = pid_period(state, hot_room)
    assert duty == 100
    assert state.integral <= 80  # clamped to the output range
    # The room cools: duty comes down within minutes, not hours.
    cool = Plant(PlantSpec(ambient_c=25.0), start_c=hot_room.temp_c)
    for _ in range(60):
        duty, state = pid_period(state, cool)
    assert duty < 100


def test_pid_step_needs_positive_dt() -> None:
    with pytest.raises(ValueError, match="dt"):
        pid_step(PidState(), setpoint=40, measured=41, dt=0, gains=GAINS, out_min=0, out_max=100)


def test_curve_with_hysteresis_does_not_flap_on_noisy_readings() -> None:
    plant = Plant(PlantSpec(noise_c=1.0), start_c=40.0, seed=3)
    state = Hysteresis()
    changes, previous = 0, None
    for _ in range(720):  # two hours, 10 s periods
        state = state.update(plant.reading(), CURVE.hysteresis_c)
        assert state.basis is not None
        duty = curve_duty(CURVE, state.basis)
        if previous is not None and duty != previous:
            changes += 1
        previous = duty
        plant.step(duty, 10)
    without = 0
    plant = Plant(PlantSpec(noise_c=1.0), start_c=40.0, seed=3)
    previous = None
    for _ in range(720):
        duty = curve_duty(CURVE, plant.reading())
        if previous is not None and duty != previous:
            without += 1
        previous = duty
        plant.step(duty, 10)
    assert changes < without / 3  # hysteresis removes most of the hunting
    assert 30 < plant.temp_c < 45
