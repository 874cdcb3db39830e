"""The wall clock set back an hour while the daemon runs: a cleared alert is still told
RECOVERED after the recovery delay (not an hour later), and every schedule is due again at once
rather than waiting out the hour (`nastui.core.clock.due`). Before: "recovered" was not sent
within 200 s, and SMART and temperatures were not read again for an hour."""

from __future__ import annotations

from nastui.core.alerting import AlertBook, AlertPolicy, evaluate
from nastui.core.clock import due
from nastui.model import Alert, Health, NoticeKind, Subject

T0 = 1_800_000_000.0
BACK = 3600.0
PERIOD = 10.0


def hot(now: float) -> Alert:
    return Alert("drive:S1:temp", Health.WARNING, Subject.DRIVE, "bay 1 sda", "55 C", now)


def test_recovered_is_sent_within_the_delay_after_the_clock_went_back() -> None:
    policy = AlertPolicy()
    book, notices = evaluate(AlertBook(), [hot(T0)], [], policy, T0)
    assert [n.kind for n in notices] == [NoticeKind.FIRING]
    book, _ = evaluate(book, [], [], policy, T0 + PERIOD)  # cleared: the delay starts
    told_at = None
    for tick in range(2, 60):  # real seconds = tick * PERIOD; the clock went back at tick 2
        wall = T0 + tick * PERIOD - BACK
        book, notices = evaluate(book, [], [], policy, wall)
        if any(n.kind is NoticeKind.RECOVERED for n in notices):
            told_at = tick * PERIOD
            break
    assert told_at is not None and told_at <= 200


def test_a_standing_alert_is_not_repeated_because_the_clock_went_back() -> None:
    policy = AlertPolicy(repeat_interval_s=600)
    book, _ = evaluate(AlertBook(), [hot(T0)], [], policy, T0)
    for tick in range(1, 50):
        wall = T0 + tick * PERIOD - BACK
        book, notices = evaluate(book, [hot(T0)], [], policy, wall)
        kinds = [n.kind for n in notices]
        assert NoticeKind.FIRING not in kinds
        if tick * PERIOD < 600:
            assert not kinds  # nothing said twice within the interval


def test_a_schedule_is_due_again_when_the_clock_went_back_past_it() -> None:
    assert due(None, T0, 300)
    assert not due(T0, T0 + 10, 300)
    assert due(T0, T0 + 300, 300)
    assert due(T0, T0 - BACK, 300)  # before: not due for an hour and five minutes
