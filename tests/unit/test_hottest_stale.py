"""The hottest drive's temperature, when it is an old one (the drive asleep, or its reading
older than `stale_after_s`), says so in `nastui status`: on the `sleeping` scenario it gave a
drive asleep for 41 minutes as "hottest 40 °C (bay 1 sds)", as if read just now."""

from __future__ import annotations

import dataclasses

from nastui.cli.statusview import section_lines
from nastui.core.summary import reading_age
from nastui.model import PowerState, Thresholds
from nastui.sim.backend import SimBackend
from nastui.sim.clock import FakeClock


def _drive_line(scenario: str, limits: Thresholds | None = None) -> str:
    snapshot = SimBackend(scenario, clock=FakeClock()).snapshot()
    return section_lines(snapshot, limits=limits)[0]


def test_an_asleep_hottest_drive_says_when_it_was_read() -> None:
    line = _drive_line("sleeping")
    assert line.endswith(", hottest 40 °C (bay 1 sds, asleep, read 42 min ago)"), line


def test_a_fresh_reading_is_given_as_before() -> None:
    assert _drive_line("healthy-24-bay").endswith(", hottest 40 °C (bay 2 sdt)")


def test_a_reading_older_than_the_limit_says_its_age() -> None:
    snapshot = SimBackend("healthy-24-bay", clock=FakeClock()).snapshot()
    drive = next(d for d in snapshot.drives if d.temperature is not None)
    assert drive.power is not PowerState.STANDBY and drive.temperature is not None
    age = drive.temperature.age(snapshot.taken_at)
    assert reading_age(drive, snapshot.taken_at, Thresholds()) is None
    short = dataclasses.replace(Thresholds(), stale_after_s=age - 1.0)
    assert reading_age(drive, snapshot.taken_at, short) == "read just now"
