"""The alert engine (`nastui.core.alerting`): new, worse, repeat, recovered, flaps,
acknowledgements and their expiry, the book's JSON; all with the clock passed in."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nastui.core.ack import ack_alert
from nastui.core.alerting import (
    AlertBook,
    AlertPolicy,
    decode_book,
    encode_book,
    evaluate,
    prune_alert_acks,
)
from nastui.model import Acknowledgement, Alert, Health, Notice, NoticeKind, Subject

T0 = 1_700_000_000.0
HOUR = 3600.0
POLICY = AlertPolicy(repeat_interval_s=24 * HOUR, recovery_delay_s=120, growth_gap_s=0)
F, W, RP, RC = NoticeKind.FIRING, NoticeKind.WORSE, NoticeKind.REPEAT, NoticeKind.RECOVERED


def pending(value: int | None = 3, health: Health = Health.WARNING, host: str = "nas") -> Alert:
    text = f"HGST A: Current_Pending_Sector {value}"
    return Alert(
        "drive:A:attr:197", health, Subject.DRIVE, "bay 1 sda", text, 0.0, False, value, host
    )


def hot(health: Health = Health.WARNING) -> Alert:
    return Alert("drive:A:temp", health, Subject.DRIVE, "bay 1 sda", "temperature 47 °C", 0.0)


class Run:
    """The engine driven cycle by cycle, as the daemon does."""

    def __init__(self, policy: AlertPolicy = POLICY) -> None:
        self.book = AlertBook()
        self.policy = policy
        self.sent: list[tuple[float, Notice]] = []

    def at(
        self, now: float, *alerts: Alert, acks: Iterable[Acknowledgement] = ()
    ) -> list[NoticeKind]:
        self.book, notices = evaluate(self.book, alerts, acks, self.policy, now)
        self.sent += [(now, n) for n in notices]
        return [n.kind for n in notices]

    def last(self) -> Notice:
        return self.sent[-1][1]


def test_new_alert_fires_once_then_stays_quiet() -> None:
    run = Run()
    assert run.at(T0, pending()) == [F]
    notice = run.last()
    assert (notice.alert.since, notice.at, notice.previous) == (T0, T0, None)
    assert run.at(T0 + 60, pending()) == []
    assert run.at(T0 + 23 * HOUR, pending()) == []


def test_repeat_after_the_interval() -> None:
    run = Run()
    run.at(T0, pending())
    assert run.at(T0 + 24 * HOUR, pending()) == [RP]
    assert run.last().alert.since == T0
    assert run.at(T0 + 30 * HOUR, pending()) == []
    assert run.at(T0 + 48 * HOUR, pending()) == [RP]


def test_a_growing_value_is_news_at_once() -> None:
    run = Run()
    run.at(T0, pending(3))
    assert run.at(T0 + 60, pending(8)) == [W]
    assert run.last().previous == dataclasses.replace(pending(3), since=T0)
    assert run.last().alert.value == 8
    assert run.at(T0 + 120, pending(5)) == []  # fewer: not news
    assert run.at(T0 + 180, pending(8)) == []  # back to what was sent: not news either
    assert run.at(T0 + 240, pending(9)) == [W]


def test_a_count_growing_every_minute_is_told_at_most_hourly_with_all_its_growth() -> None:
    run = Run(AlertPolicy(growth_gap_s=HOUR))
    run.at(T0, pending(3))
    told = [run.at(T0 + 60 * i, pending(3 + i)) for i in range(1, 61)]
    assert told[:59] == [[]] * 59 and told[59] == [W]  # one notice after the hour
    previous = run.last().previous
    assert previous is not None and previous.value == 3
    assert run.last().alert.value == 63


def test_a_rising_health_is_news_a_falling_one_is_not() -> None:
    run = Run()
    run.at(T0, hot())
    assert run.at(T0 + 60, hot(Health.CRITICAL)) == [W]
    assert run.at(T0 + 120, hot()) == []
    assert run.at(T0 + 180, hot(Health.CRITICAL)) == []


def test_recovered_after_the_delay() -> None:
    run = Run()
    run.at(T0, pending(5))
    assert run.at(T0 + 60) == []
    assert run.book.get("nas", "drive:A:attr:197") is not None
    assert run.at(T0 + 179) == []
    assert run.at(T0 + 180) == [RC]
    assert run.last().alert.value == 5
    assert run.book == AlertBook()
    assert run.at(T0 + 240) == []
    assert run.at(T0 + 300, pending(5)) == [F]  # a new spell
    assert run.last().alert.since == T0 + 300


def test_a_flap_within_the_delay_sends_nothing() -> None:
    run = Run()
    kinds = [
        run.at(T0 + 60 * i, *([pending()] if up else [])) for i, up in enumerate([1, 0, 1, 0, 1])
    ]
    assert kinds == [[F], [], [], [], []]
    assert run.at(T0 + 300) == []
    assert run.at(T0 + 420) == [RC]


def test_zero_recovery_delay_recovers_at_once() -> None:
    run = Run(AlertPolicy(recovery_delay_s=0))
    run.at(T0, pending())
    assert run.at(T0 + 60) == [RC]


def test_unknown_alerts_never_repeat_but_recover() -> None:
    error = Alert("collect:smart", Health.UNKNOWN, Subject.HOST, "smart", "smartctl not found", 0)
    run = Run()
    assert run.at(T0, error) == [F]
    assert run.at(T0 + 100 * HOUR, error) == []
    assert run.at(T0 + 101 * HOUR) == []
    assert run.at(T0 + 102 * HOUR) == [RC]


def test_hosts_are_separate_and_duplicates_are_one_alert() -> None:
    run = Run()
    assert run.at(T0, pending(host="nas"), pending(host="nas2")) == [F, F]
    assert {n.alert.host for _, n in run.sent} == {"nas", "nas2"}
    run2 = Run()
    assert run2.at(T0, pending(3), pending(8)) == [F]
    assert run2.last().alert.value == 8


def test_notices_worst_first_and_book_sorted() -> None:
    run = Run()
    kinds = run.at(T0, pending(host="b"), hot(Health.CRITICAL), pending(host="a"))
    assert kinds == [F, F, F]
    assert run.sent[0][1].alert.health is Health.CRITICAL
    assert [t.ident for t in run.book.entries] == [
        ("", "drive:A:temp"),
        ("a", "drive:A:attr:197"),
        ("b", "drive:A:attr:197"),
    ]


# ------------------------------------------------------------------ acknowledgements


def test_an_acknowledged_alert_sends_nothing() -> None:
    run = Run()
    run.at(T0, pending(8))
    acks = [ack_alert(pending(8), T0 + 30)]
    assert run.at(T0 + 60, pending(8), acks=acks) == []
    assert run.at(T0 + 48 * HOUR, pending(8), acks=acks) == []  # no repeat
    assert run.at(T0 + 49 * HOUR, pending(6), acks=acks) == []


def test_acknowledged_from_the_start_never_fires_nor_recovers() -> None:
    run = Run()
    acks = [ack_alert(pending(8), T0 - 10)]
    assert run.at(T0, pending(8), acks=acks) == []
    assert run.at(T0 + 60, acks=acks) == []
    assert run.at(T0 + 300, acks=acks) == []
    assert run.book == AlertBook()


def test_a_value_growing_past_the_ack_notifies() -> None:
    run = Run()
    run.at(T0, pending(8))
    acks = [ack_alert(pending(8), T0 + 30)]
    run.at(T0 + 60, pending(8), acks=acks)
    assert run.at(T0 + 120, pending(9), acks=acks) == [W]
    assert run.last().alert.message.endswith("(grew past the acknowledged 8)")
    previous = run.last().previous
    assert previous is not None and previous.value == 8
    assert run.at(T0 + 180, pending(9), acks=acks) == []


def test_ack_expiry_notifies_again_and_says_so() -> None:
    run = Run()
    run.at(T0, pending(8))
    acks = [ack_alert(pending(8), T0 + 30, expires_at=T0 + 7 * HOUR)]
    assert run.at(T0 + 60, pending(8), acks=acks) == []
    assert run.at(T0 + 7 * HOUR - 1, pending(8), acks=acks) == []
    assert run.at(T0 + 7 * HOUR, pending(8), acks=acks) == [RP]
    notice = run.last()
    assert notice.alert.message == "HGST A: Current_Pending_Sector 8 (acknowledgement expired)"
    assert notice.alert.since == T0
    assert run.at(T0 + 8 * HOUR, pending(8), acks=acks) == []
    assert run.at(T0 + 31 * HOUR, pending(8), acks=acks) == [RP]  # the interval runs again


def test_ack_withdrawn_or_expired_before_first_notice() -> None:
    run = Run()
    acks = [ack_alert(pending(8), T0 - 10)]
    run.at(T0, pending(8), acks=acks)
    assert run.at(T0 + 60, pending(8)) == [F]
    assert run.last().alert.message.endswith("(no longer acknowledged)")


def test_health_rising_under_an_ack_is_sent_once() -> None:
    run = Run()
    run.at(T0, hot())
    acks = [ack_alert(hot(), T0 + 30)]
    assert run.at(T0 + 60, hot(), acks=acks) == []
    assert run.at(T0 + 120, hot(Health.CRITICAL), acks=acks) == [W]
    assert run.last().alert.message.endswith("(acknowledged at WARNING)")
    assert run.at(T0 + 180, hot(Health.CRITICAL), acks=acks) == []
    assert run.at(T0 + 240, hot(), acks=acks) == []
    assert run.at(T0 + 300, hot(Health.CRITICAL), acks=acks) == []


def test_an_acknowledged_alert_that_clears_recovers() -> None:
    run = Run()
    run.at(T0, pending(8))
    acks = [ack_alert(pending(8), T0 + 30)]
    run.at(T0 + 60, pending(8), acks=acks)
    run.at(T0 + 120, acks=acks)
    assert run.at(T0 + 240, acks=acks) == [RC]


def test_an_alert_acknowledged_at_its_source_counts_as_covered() -> None:
    run = Run()
    run.at(T0, pending(8))
    marked = dataclasses.replace(pending(8), acknowledged=True)
    assert run.at(T0 + 60, marked) == []  # acknowledging is not recovering
    assert run.at(T0 + 300, marked) == []
    assert run.at(T0 + 48 * HOUR, dataclasses.replace(marked, value=6)) == []
    assert run.at(T0 + 49 * HOUR, pending(9)) == [W]
    assert run.last().alert.message.endswith("(grew past the acknowledged 8)")
    assert not run.last().alert.acknowledged


def test_prune_keeps_baselines_drops_expired_and_cleared_value_less_acks() -> None:
    run = Run()
    run.at(T0, hot())
    temp_ack = ack_alert(hot(), T0)
    pending_ack = ack_alert(pending(8), T0)
    lapsed = Acknowledgement("x", None, T0, expires_at=T0 + 10)
    fresh = Acknowledgement("y", None, T0 + 4000)
    acks = (temp_ack, pending_ack, lapsed, fresh)
    assert prune_alert_acks(acks, run.book, T0 + 5000) == (temp_ack, pending_ack, fresh)
    run.at(T0 + 5000)
    run.at(T0 + 5200)
    assert prune_alert_acks(acks, run.book, T0 + 5200) == (pending_ack, fresh)


# ------------------------------------------------------------------ property: flapping


@settings(max_examples=200, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=40))
def test_any_flapping_sends_one_firing_and_at_most_one_recovery(ups: Sequence[bool]) -> None:
    """Cycles 60 s apart within the repeat interval: however the alert flaps, it fires at most
    once per spell, recovers only after 120 s clear, and FIRING/RECOVERED alternate."""
    run = Run()
    for i, up in enumerate(ups):
        run.at(T0 + 60 * i, *([pending()] if up else []))
    for j in range(3):  # and then it stays clear
        run.at(T0 + 60 * (len(ups) + j))
    kinds = [n.kind for _, n in run.sent]
    assert set(kinds) <= {F, RC}
    assert kinds == [F, RC] * (len(kinds) // 2)
    if any(ups):
        assert kinds[0] is F and kinds[-1] is RC
    for (t_fire, _), (t_rec, _) in zip(run.sent[::2], run.sent[1::2], strict=True):
        assert t_rec - t_fire >= 180
    assert run.book == AlertBook()


# ------------------------------------------------------------------ the book's JSON


alerts_st = st.builds(
    Alert,
    key=st.sampled_from(["drive:A:attr:197", "pool:tank:state", "host:unreachable"]),
    health=st.sampled_from(list(Health)),
    subject=st.sampled_from(list(Subject)),
    name=st.text(max_size=10),
    message=st.text(max_size=30),
    since=st.floats(0, 2e9),
    value=st.none() | st.integers(0, 2**40),
    host=st.sampled_from(["", "nas", "nas2"]),
)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(alerts_st, st.booleans(), st.booleans()), max_size=8))
def test_book_round_trips(steps: list[tuple[Alert, bool, bool]]) -> None:
    book = AlertBook()
    for i, (alert, acked, _) in enumerate(steps):
        acks = (
            [
                Acknowledgement(
                    f"{alert.host}/{alert.key}" if alert.host else alert.key,
                    alert.value,
                    0.0,
                    expires_at=5e9,
                )
            ]
            if acked
            else []
        )
        current = [alert] + [a for a, _, keep in steps[:i] if keep]
        book, _ = evaluate(book, current, acks, POLICY, T0 + 60 * i)
    text = encode_book(book)
    assert decode_book(text, "book") == book
    assert encode_book(decode_book(text, "book")) == text


def test_book_decode_skips_malformed_entries_and_names_the_source() -> None:
    run = Run()
    run.at(T0, pending(8), hot())
    data = json.loads(encode_book(run.book))
    data["alerts"][0]["latest"]["health"] = "DIRE"
    data["alerts"].append("junk")
    data["alerts"].append({"latest": data["alerts"][1]["latest"], "last_sent": "yesterday"})
    assert [t.ident for t in decode_book(json.dumps(data), "b").entries] == [
        ("nas", "drive:A:attr:197")
    ]
    with pytest.raises(ValueError, match=r"^state\.db \(alert-book\): not an alert state file"):
        decode_book("{not json", "state.db (alert-book)")
    with pytest.raises(ValueError, match=r"^b: not an alert state file"):
        decode_book('{"drives": {}}', "b")
    with pytest.raises(ValueError, match="version 2 not supported"):
        decode_book('{"version": 2, "alerts": []}', "b")


def test_a_decoded_book_carries_on_where_it_stopped() -> None:
    run = Run()
    run.at(T0, pending(3))
    run.book = decode_book(encode_book(run.book), "b")
    assert run.at(T0 + 60, pending(3)) == []
    assert run.at(T0 + 120, pending(4)) == [W]
