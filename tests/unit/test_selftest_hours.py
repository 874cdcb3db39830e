"""`[selftest] hours`: tests start only in the configured hours of the local day, wrapping
past midnight; a month of hourly cycles still gets every drive its tests in time."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nastui.config import ConfigError, parse_config
from nastui.selftest.logic.plan import Candidate, SelftestKind, in_hours, plan
from nastui.selftest.logic.policy import SelftestPolicy
from tests.unit.test_selftest_plan import NOW, _assert_gaps, simulate

DAY_S = 86400.0


@pytest.mark.parametrize(
    ("window", "inside"),
    [
        ((1, 6), [1, 2, 3, 4, 5]),
        ((22, 6), [22, 23, 0, 1, 2, 3, 4, 5]),
        ((0, 24), list(range(24))),
        ((23, 24), [23]),
        (None, list(range(24))),
    ],
)
def test_hours_of_a_window(window: tuple[int, int] | None, inside: list[int]) -> None:
    assert [h for h in range(24) if in_hours(h, window)] == sorted(inside)


def test_a_due_drive_waits_for_the_window_and_a_running_one_is_left_alone() -> None:
    policy = SelftestPolicy(hours=(1, 6))
    due = Candidate("a", "sda")  # never tested: due
    (out,) = plan([due], [], policy, NOW, hour=12)
    assert out.start is None
    assert out.reason == "outside [selftest] hours 01-06: started from 01:00"
    (inside,) = plan([due], [], policy, NOW, hour=3)
    assert inside.start is SelftestKind.LONG
    (running,) = plan([dataclasses.replace(due, running=True)], [], policy, NOW, hour=12)
    assert running.reason == "a self-test is running"


@pytest.mark.parametrize(
    ("value", "expected"),
    [('"01-06"', (1, 6)), ('"22-06"', (22, 6)), ('" 0 - 24 "', (0, 24)), ('"23-24"', (23, 24))],
)
def test_hours_are_read(value: str, expected: tuple[int, int]) -> None:
    config = parse_config(f"[selftest]\nhours = {value}\n", Path("/etc/nastui/config.toml"))
    assert config.selftest.hours == expected


@pytest.mark.parametrize("value", ['"06-06"', '"25-03"', '"1-25"', "6", '"1-6-7"', '"night"'])
def test_wrong_hours_are_one_line_naming_the_form(value: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(f"[selftest]\nhours = {value}\n", Path("/etc/nastui/config.toml"))
    message = str(info.value)
    assert message.startswith("config.toml:2: selftest.hours must be a range of hours")
    assert '"01-06"' in message and "\n" not in message


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.integers(1, 4), min_size=1, max_size=3),
    st.integers(1, 12),
    st.lists(st.floats(0, 40 * DAY_S), min_size=12, max_size=12),
    st.sampled_from([(1, 7), (22, 4), (0, 6)]),
)
def test_a_month_of_cycles_starts_only_in_the_window_and_in_time(
    sizes: list[int], long_hours: int, ages: list[float], window: tuple[int, int]
) -> None:
    """Hourly cycles for 62 days with a six-hour window: every start falls in the window, each
    short within 7 days and each long within 31."""
    groups = [[f"g{g}d{i}" for i in range(n)] for g, n in enumerate(sizes)]
    keys = [k for group in groups for k in group]
    drives = {
        k: Candidate(k, k, last_short=NOW - ages[i], last_long=NOW - ages[-1 - i])
        for i, k in enumerate(keys)
    }
    start = NOW - NOW % DAY_S  # midnight, so the hour of the day is t's
    done = simulate(drives, groups, SelftestPolicy(hours=window), long_hours, start, with_hour=True)
    for key in keys:
        shorts = [at for at, _ in done[key]]
        longs = [at for at, kind in done[key] if kind is SelftestKind.LONG]
        _assert_gaps(shorts, start + 31 * DAY_S, start + 62 * DAY_S, 7 * DAY_S, key)
        _assert_gaps(longs, start + 31 * DAY_S, start + 62 * DAY_S, 31 * DAY_S, key)
