"""The wake-up counter: a drive seen asleep and then awake with no I/O in between was woken by a
command (nastui's query); such a drive is then asked only while it is busy."""

from __future__ import annotations

from nastui.collectors.smart.wake import WakeTracker
from nastui.model import PowerState

STANDBY, ACTIVE = PowerState.STANDBY, PowerState.ACTIVE


def test_woken_without_io_counts_and_makes_the_drive_need_care() -> None:
    wakes = WakeTracker()
    assert not wakes.observe("A", STANDBY, 100)
    assert wakes.observe("A", ACTIVE, 100)
    assert (wakes.wakeups("A"), wakes.total) == (1, 1)
    assert not wakes.may_query("A", 100)  # counters did not move: it may be asleep again
    assert wakes.may_query("A", 200)


def test_woken_by_io_is_not_nastuis_doing() -> None:
    wakes = WakeTracker()
    wakes.observe("A", STANDBY, 100)
    assert not wakes.observe("A", ACTIVE, 4096)
    assert wakes.total == 0 and wakes.may_query("A", 4096)


def test_unknown_counters_never_count() -> None:
    wakes = WakeTracker()
    wakes.observe("A", STANDBY, None)
    assert not wakes.observe("A", ACTIVE, None)
    wakes.observe("B", STANDBY, 5)
    assert not wakes.observe("B", PowerState.UNKNOWN, 5)
    assert wakes.total == 0


def test_staying_asleep_or_awake_is_no_wake() -> None:
    wakes = WakeTracker()
    for power in (ACTIVE, ACTIVE, STANDBY, STANDBY):
        assert not wakes.observe("A", power, 1)
    assert wakes.total == 0


def test_a_drive_that_cannot_report_its_power_mode_is_asked_only_when_busy() -> None:
    wakes = WakeTracker()
    assert wakes.may_query("A", 1)
    wakes.mark_cautious("A")
    wakes.observe("A", PowerState.UNKNOWN, 1)
    assert not wakes.may_query("A", 1)
    assert wakes.may_query("A", 2)
