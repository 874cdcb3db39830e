"""A notifier that fails (`nastui.daemon.postman`): retried after 1 minute, doubling to an hour,
not every cycle; one WARNING alert naming it, through the others; everything it missed sent
in order when it works again, and the alert cleared."""

from __future__ import annotations

import io
from pathlib import Path
from typing import cast

from nastui.daemon.postman import notifier_key, retry_delay
from nastui.sim.clock import FakeClock
from tests.unit.test_monitor import Recorder, Ticks, monitor

PENDING = "drive:PK1331PLPX28B6:attr:197"
PERIOD = 10.0


def test_the_retry_delay_doubles_from_a_minute_to_an_hour() -> None:
    assert [retry_delay(n) for n in range(1, 9)] == [60, 120, 240, 480, 960, 1920, 3600, 3600]
    assert retry_delay(10_000) == 3600


async def test_a_dead_notifier_is_tried_a_handful_of_times_an_hour(tmp_path: Path) -> None:
    dead = Recorder(fail=True)
    ticks = Ticks()
    daemon = monitor(tmp_path, dead, ticks=ticks)
    for _ in range(360):  # an hour of 10 s cycles (the demo's clock stands still)
        await daemon.postman.post(daemon.outbox, lambda: None, 0.0, [])
        ticks.now += PERIOD
    assert dead.attempts == 0  # nothing owed yet: nothing tried
    await daemon.step()
    for _ in range(359):
        await daemon.postman.post(daemon.outbox, lambda: None, 0.0, [])
        ticks.now += PERIOD
    assert dead.attempts == 6  # at 0, 1, 3, 7, 15 and 31 minutes (not 360)


async def test_one_warning_through_the_others_and_everything_missed_when_it_works(
    tmp_path: Path,
) -> None:
    mail = Recorder(fail=True, name="email to a@example.org")
    hook = Recorder(name="exec /usr/local/bin/page")
    ticks = Ticks()
    daemon = monitor(tmp_path, mail, ticks=ticks, others=[hook])
    clock = cast(FakeClock, daemon.session.clock)
    key = notifier_key(mail.name)
    await daemon.step()  # the first failure: not yet an alert
    assert PENDING in {n.alert.key for _, b in hook.batches for n in b}
    assert key not in {n.alert.key for _, b in hook.batches for n in b}
    for _ in range(20):  # 200 s: the retry at 60 s fails too
        ticks.now += PERIOD
        clock.advance(PERIOD)
        await daemon.step()
    down = [n for _, b in hook.batches for n in b if n.alert.key == key]
    assert [(n.kind.value, n.alert.health.name) for n in down] == [("firing", "WARNING")]
    assert mail.name in down[0].alert.message and "refused on purpose" in down[0].alert.message
    assert mail.attempts == 3  # at 0, 60 and 180 s
    mail.fail = False
    for _ in range(60):  # its next try (at 420 s) works; the alert clears 2 minutes later
        ticks.now += PERIOD
        clock.advance(PERIOD)
        await daemon.step()
    got = [(n.kind.value, n.alert.key) for _, b in mail.batches for n in b]
    assert got[0] == ("firing", got[0][1]) and ("firing", PENDING) in got
    assert ("firing", key) in got and ("recovered", key) in got  # what it missed, in order
    assert got.index(("firing", key)) < got.index(("recovered", key))
    told = [(n.kind.value) for _, b in hook.batches for n in b if n.alert.key == key]
    assert told == ["firing", "recovered"]
    assert not daemon.outbox.batches  # nothing owed any more
    out = daemon.log._out
    assert isinstance(out, io.StringIO)
    assert "delivers again after 3 failure(s)" in out.getvalue()


async def test_what_a_dead_notifier_is_owed_survives_a_restart(tmp_path: Path) -> None:
    mail = Recorder(fail=True, name="email to a@example.org")
    await monitor(tmp_path, mail).step()
    again = Recorder(name="email to a@example.org")
    await monitor(tmp_path, again).step()  # restarted, and the mail server is back
    assert PENDING in {n.alert.key for _, b in again.batches for n in b}
    third = Recorder(name="email to a@example.org")
    await monitor(tmp_path, third).step()
    assert third.batches == []
