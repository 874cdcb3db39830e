"""The self-test schedule's rules, as properties over generated boxes and a simulated month."""

from __future__ import annotations

import dataclasses
import itertools

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nastui.model import PowerState
from nastui.selftest.logic.plan import (
    DAY_S,
    Candidate,
    SelftestKind,
    in_hours,
    plan,
)
from nastui.selftest.logic.policy import SelftestPolicy

NOW = 1_800_000_000.0
HOUR_S = 3600.0
POWERS = st.sampled_from(list(PowerState))
LAST = st.one_of(st.none(), st.floats(NOW - 60 * DAY_S, NOW))


@st.composite
def boxes(draw: st.DrawFn) -> tuple[list[Candidate], list[list[str]]]:
    """Drives in vdevs (and some in none), in any state."""
    sizes = draw(st.lists(st.integers(1, 8), min_size=1, max_size=4))
    loose = draw(st.integers(0, 3))
    groups: list[list[str]] = []
    drives: list[Candidate] = []
    for g, size in enumerate([*sizes, *([1] * loose)]):
        keys = [f"g{g}d{i}" for i in range(size)]
        if g < len(sizes):
            groups.append(keys)
        for key in keys:
            drives.append(
                Candidate(
                    key,
                    key,
                    power=draw(POWERS),
                    last_short=draw(LAST),
                    last_long=draw(LAST),
                    running=draw(st.booleans()),
                    scanning=draw(st.booleans()),
                    retry_at=draw(st.one_of(st.none(), st.floats(NOW - DAY_S, NOW + DAY_S))),
                )
            )
    return drives, groups


POLICIES = st.builds(
    SelftestPolicy,
    enabled=st.booleans(),
    short_days=st.sampled_from([0.0, 1.0, 7.0, 31.0]),
    long_days=st.sampled_from([0.0, 7.0, 31.0, 90.0]),
    max_at_once=st.integers(1, 8),
)


@settings(max_examples=300, deadline=None)
@given(boxes(), POLICIES)
def test_every_rule_holds_in_one_cycle(
    box: tuple[list[Candidate], list[list[str]]], policy: SelftestPolicy
) -> None:
    drives, groups = box
    by_key = {c.key: c for c in drives}
    started = [d for d in plan(drives, groups, policy, NOW) if d.start is not None]
    for decision in started:
        drive = by_key[decision.key]
        assert policy.enabled
        assert not drive.power.spun_down, "a sleeping drive is never woken"
        assert not drive.scanning, "never during a scrub or resilver of its pool"
        assert not drive.running
        assert drive.retry_at is None or drive.retry_at <= NOW, "a failed start waits"
    for group in groups:
        testing = [k for k in group if by_key[k].running]
        testing += [d.key for d in started if d.key in group]
        assert len(testing) <= max(1, sum(by_key[k].running for k in group)), (
            "no two drives of one vdev test at once"
        )
        if any(by_key[k].running for k in group):
            assert not [d for d in started if d.key in group]
    running = sum(c.running for c in drives)
    assert len(started) <= max(0, policy.max_at_once - running)


def test_opted_out_drives_are_never_started() -> None:
    policy = SelftestPolicy(skip_models=("ST8000DM*",), skip_bays=(3,))
    drives = [Candidate("a", "sda", "ST8000DM004-2CX188"), Candidate("b", "sdb", "X", bay=3)]
    decisions = plan(drives, [], policy, NOW)
    assert [d.start for d in decisions] == [None, None]
    assert "skip_models" in decisions[0].reason and "skip_bays" in decisions[1].reason


def test_untestable_drives_never_take_a_place() -> None:
    """Virtual disks first in line, one place: the real drive is the one started (in the lab
    four QEMU disks took every place and no SATA drive was ever tested)."""
    policy = SelftestPolicy(max_at_once=1)
    virtual = [Candidate(f"v{n}", f"sd{n}", untestable="virtual disk") for n in range(4)]
    decisions = plan([*virtual, Candidate("real", "sdz")], [], policy, NOW)
    assert [d.start for d in decisions[:4]] == [None] * 4
    assert {d.reason for d in decisions[:4]} == {"virtual disk"}
    assert decisions[4].start is not None


def test_a_long_test_counts_as_a_short_one() -> None:
    drive = Candidate("a", "sda", last_short=NOW - 30 * DAY_S, last_long=NOW - DAY_S)
    (decision,) = plan([drive], [], SelftestPolicy(), NOW)
    assert decision.start is None and decision.reason == "not due"


LONG_H = st.integers(1, 12)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.integers(1, 8), min_size=1, max_size=3),
    LONG_H,
    st.lists(st.floats(0, 40 * DAY_S), min_size=24, max_size=24),
)
def test_every_drive_gets_its_tests_in_time_over_a_month(
    sizes: list[int], long_hours: int, ages: list[float]
) -> None:
    """Hourly cycles for 62 days: each short within 7 days, each long within 31 (awake drives,
    no scans), whatever the drives' histories at the start."""
    groups = [[f"g{g}d{i}" for i in range(n)] for g, n in enumerate(sizes)]
    keys = [k for group in groups for k in group]
    drives = {
        k: Candidate(k, k, last_short=NOW - ages[i], last_long=NOW - ages[-1 - i])
        for i, k in enumerate(keys)
    }
    done = simulate(drives, groups, SelftestPolicy(), long_hours, NOW)
    for key in keys:
        shorts = [at for at, _ in done[key]]  # a long one is a short one too
        longs = [at for at, kind in done[key] if kind is SelftestKind.LONG]
        _assert_gaps(shorts, NOW + 31 * DAY_S, NOW + 62 * DAY_S, 7 * DAY_S, key)
        _assert_gaps(longs, NOW + 31 * DAY_S, NOW + 62 * DAY_S, 31 * DAY_S, key)


def simulate(
    drives: dict[str, Candidate],
    groups: list[list[str]],
    policy: SelftestPolicy,
    long_hours: int,
    start: float,
    *,
    with_hour: bool = False,
) -> dict[str, list[tuple[float, SelftestKind]]]:
    """Hourly cycles for 62 days from `start`: a short test takes an hour, a long one
    `long_hours`; returns each drive's finished tests. With `with_hour`, the plan is told the
    hour of the day (`start` is midnight) and every start must fall in `policy.hours`."""
    ends: dict[str, tuple[float, SelftestKind]] = {}
    done: dict[str, list[tuple[float, SelftestKind]]] = {k: [] for k in drives}
    t = start
    while t < start + 62 * DAY_S:
        hour = int(t % DAY_S // HOUR_S) if with_hour else None
        for key, (end, kind) in list(ends.items()):
            if t >= end:
                del ends[key]
                drives[key] = dataclasses.replace(drives[key], running=False, last_short=t)
                if kind is SelftestKind.LONG:
                    drives[key] = dataclasses.replace(drives[key], last_long=t)
                done[key].append((t, kind))
        for decision in plan(list(drives.values()), groups, policy, t, hour=hour):
            if decision.start is not None:
                assert hour is None or in_hours(hour, policy.hours), f"started at {hour}:00"
                hours = long_hours if decision.start is SelftestKind.LONG else 1
                ends[decision.key] = (t + hours * HOUR_S, decision.start)
                drives[decision.key] = dataclasses.replace(drives[decision.key], running=True)
        t += HOUR_S
    return done


def _assert_gaps(times: list[float], start: float, end: float, most: float, key: str) -> None:
    """In [start, end] (after a month to settle), no gap between tests longer than `most`."""
    points = [start, *[t for t in times if start <= t <= end], end]
    widest = max(b - a for a, b in itertools.pairwise(points))
    assert widest <= most, f"{key}: {widest / DAY_S:.1f} days without its test"
