"""Editing a curve a key at a time, the preview of each zone's duty now, and the replay of a
curve over stored temperature history (all pure)."""

from __future__ import annotations

import dataclasses

from nastui.fans.logic import curveedit
from nastui.fans.logic.curve import valid_curve
from nastui.fans.logic.preview import (
    ReplayStep,
    draft_zone,
    history_metrics,
    preview,
    replay,
    stale_after,
    staleness_period,
    summarize,
    zone_temperatures,
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

POINTS = (CurvePoint(30, 20), CurvePoint(40, 50), CurvePoint(45, 100))
CURVE = FanCurve(POINTS)
ZONE = FanZone("drives", (FanSource.HOTTEST_DRIVE,), ZoneMode.CURVE, CURVE)


def test_move_within_the_neighbours() -> None:
    moved = curveedit.move_point(CURVE, 1, 1, 10)
    assert moved.refused is None
    assert moved.curve.points[1] == CurvePoint(41, 60)
    assert curveedit.move_point(CURVE, 1, 0, 80).curve.points[1] == CurvePoint(40, 100)
    assert curveedit.move_point(CURVE, 1, 0, -80).curve.points[1] == CurvePoint(40, 20)
    assert curveedit.move_point(CURVE, 0, 0, -50).curve.points[0] == CurvePoint(30, 0)


def test_a_move_past_a_neighbour_is_refused() -> None:
    for index, d_temp in ((1, 5), (1, -10), (2, -5), (0, -51)):
        edited = curveedit.move_point(CURVE, index, d_temp, 0)
        assert edited.curve == CURVE
        assert edited.refused and "neighbours" in edited.refused
    assert curveedit.move_point(CURVE, 2, 76, 0).refused  # past 120 °C


def test_add_and_delete() -> None:
    added = curveedit.add_point(CURVE, 0)
    assert added.curve.points[1] == CurvePoint(35, 35) and added.selected == 1
    last = curveedit.add_point(CURVE, 2)
    assert last.curve.points[-1] == CurvePoint(50, 100) and last.selected == 3
    tight = FanCurve((CurvePoint(30, 20), CurvePoint(31, 30)))
    assert curveedit.add_point(tight, 0).refused
    deleted = curveedit.delete_point(CURVE, 2)
    assert deleted.curve.points == POINTS[:2] and deleted.selected == 1
    single = FanCurve((CurvePoint(30, 20),))
    assert curveedit.delete_point(single, 0).refused


def test_every_edit_keeps_a_valid_curve() -> None:
    curve = CURVE
    selected = 0
    for step in range(200):  # a long deterministic walk over every key
        kind = step % 7
        if kind == 0:
            edit = curveedit.move_point(curve, selected, (step % 5) - 2, (step % 9) * 5 - 20)
        elif kind == 1:
            edit = curveedit.add_point(curve, selected)
        elif kind == 2 and step % 3 == 0:
            edit = curveedit.delete_point(curve, selected)
        else:
            edit = curveedit.Edited(curve, (selected + 1) % len(curve.points))
        curve, selected = edit.curve, edit.selected
        curve = curveedit.nudge_min_duty(curveedit.nudge_hysteresis(curve, 0.5), 5 - step % 11)
        assert valid_curve(curve) is None
        duties = [p.duty_percent for p in curve.points]
        assert duties == sorted(duties)


def test_nudges_are_bounded() -> None:
    assert curveedit.nudge_hysteresis(CURVE, -5).hysteresis_c == 0
    assert curveedit.nudge_hysteresis(CURVE, 50).hysteresis_c == 20
    assert curveedit.nudge_min_duty(CURVE, 500).min_duty == CURVE.max_duty
    assert curveedit.nudge_min_duty(CURVE, -500).min_duty == 0


NOW = 10_000.0


def drive(dev: str, temp: float | None, age: float = 5) -> Drive:
    reading = Temperature(temp, NOW - age, TempSource.DRIVETEMP) if temp is not None else None
    return Drive(dev, DriveIdentity(serial=dev.upper()), temperature=reading)


def test_preview_per_zone() -> None:
    cpu_zone = FanZone("cpu", (FanSource.CPU,), ZoneMode.CURVE, CURVE)
    snapshot = HostSnapshot(
        "nas", NOW, drives=(drive("sda", 36), drive("sdb", 40)), sensors=(Sensor("Fan1", 1.0),)
    )
    drives, cpu = preview([ZONE, cpu_zone], snapshot, 30)
    assert (drives.duty, drives.temp_c, drives.failsafe) == (50, 40, False)
    assert cpu.failsafe and cpu.duty == 100
    stale = HostSnapshot("nas", NOW, drives=(drive("sda", 36, age=200),))
    (decision,) = preview([ZONE], stale, 30)  # 3 periods of 30 s: 200 s is too old
    assert decision.failsafe


def test_staleness() -> None:
    assert staleness_period(5, 30) == 30
    assert staleness_period(60, 30) == 60
    assert stale_after(ZONE, 30) == 90


def test_draft_zone() -> None:
    assert draft_zone("exhaust", POINTS) == FanZone(
        "exhaust", (FanSource.HOTTEST_DRIVE,), ZoneMode.CURVE, FanCurve(POINTS)
    )


def test_history_metrics() -> None:
    snapshot = HostSnapshot(
        "nas",
        NOW,
        drives=(drive("sda", 36),),
        sensors=(Sensor("CPU package", 50.0), Sensor("Inlet", 22.0)),
    )
    assert history_metrics(ZONE, snapshot) == (["temp:SDA"], [])
    both = dataclasses.replace(ZONE, sources=(FanSource.CPU, FanSource.HOTTEST_DRIVE))
    assert history_metrics(both, snapshot) == (["temp:SDA"], ["sensor:CPU package"])


def test_zone_temperatures_from_history() -> None:
    drives = {
        "temp:A": [(0.0, 30.0), (60.0, 32.0), (120.0, 44.0)],
        "temp:B": [(30.0, 35.0), (90.0, 35.0)],
    }
    temps = zone_temperatures(ZONE, drives, {}, max_age=1000, steps=1000)
    assert temps == [(0.0, 30.0), (30.0, 35.0), (60.0, 35.0), (90.0, 35.0), (120.0, 44.0)]
    average = dataclasses.replace(ZONE, sources=(FanSource.AVERAGE_DRIVES,))
    assert zone_temperatures(average, drives, {}, 1000, 1000)[-1] == (120.0, 39.5)
    aged = zone_temperatures(ZONE, drives, {}, max_age=20, steps=1000)
    assert aged[2] == (60.0, 32.0)  # B's reading from 30 s ago has aged out
    cpu = dataclasses.replace(ZONE, sources=(FanSource.CPU,))
    assert zone_temperatures(cpu, {}, {"sensor:CPU": [(0.0, 60.0)]}, 10) == [(0.0, 60.0)]
    assert zone_temperatures(ZONE, {}, {}, 10) == []


def test_zone_temperatures_are_squeezed_to_the_step_count() -> None:
    series = {"temp:A": [(float(t), 30.0 + t % 7) for t in range(0, 86_400, 30)]}
    temps = zone_temperatures(ZONE, series, {}, max_age=90, steps=100)
    assert 100 <= len(temps) <= 101
    assert temps[-1][0] == 86_370.0


def test_replay_applies_hysteresis_and_summarizes() -> None:
    temps: list[tuple[float, float | None]] = [
        (0, 40.0), (60, 39.0), (120, 37.5), (180, None), (240, 46.0),
    ]  # fmt: skip
    steps = replay(ZONE, temps)
    assert [s.duty for s in steps] == [50.0, 50.0, 42.5, 20.0, 100.0]
    summary = summarize(steps)
    assert summary is not None
    assert (summary.steps, summary.span_s, summary.changes) == (5, 240, 3)
    assert (summary.min_duty, summary.max_duty, summary.mean_duty) == (20, 100, 52.5)
    assert summary.full_s == 0  # the last step has no time after it
    assert summarize([]) is None
    full = summarize([ReplayStep(0, 50, 100), ReplayStep(90, 50, 100)])
    assert full is not None and full.full_s == 90
