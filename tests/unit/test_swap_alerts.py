"""A swap's emergencies as daemon alerts: a wrong pull once (in place of its bay's missing
alert), a second failure once, the wrongly pulled member not told twice."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from nastui.model import Alert, Health, HostSnapshot, PoolState, Subject, Vdev
from nastui.swap.logic.alerts import swap_alerts, with_swap_alerts
from nastui.swap.logic.state import SwapPhase
from tests.unit.test_swap_state import start, without


def gone(snap: HostSnapshot, keys: dict[str, str]) -> HostSnapshot:
    """The pool's leaves behind `keys` (drive key -> the name the tool now gives) REMOVED and no
    longer linked to a drive, as after a pull."""

    def fix(node: Vdev) -> Vdev:
        if node.drive in keys:
            return dataclasses.replace(
                node, name=keys[node.drive], state=PoolState.REMOVED, drive=None
            )
        return dataclasses.replace(node, children=tuple(fix(c) for c in node.children))

    pools = tuple(dataclasses.replace(p, root=fix(p.root)) for p in snap.pools)
    return dataclasses.replace(snap, pools=pools)


def missing(bay: int, host: str = "") -> Alert:
    return Alert(
        f"bay:{bay}:missing", Health.CRITICAL, Subject.BAY, f"bay {bay}", "gone", 0, host=host
    )


def test_a_wrong_pull_is_one_critical_alert_in_place_of_its_bays() -> None:
    swap, snap = start()
    other = snap.drives[5]
    after = without(snap, other.key)
    fleet = missing(5, host="elsewhere")
    alerts = with_swap_alerts([missing(5), fleet], swap, after)
    assert [a.key for a in alerts] == ["bay:5:missing", "swap:wrong-pull:5"]
    assert alerts[0] is fleet  # another host's bay 5 is not this swap's
    wrong = alerts[1]
    assert wrong.health is Health.CRITICAL and wrong.name == "bay 5"
    assert wrong.message.endswith("put it back in bay 5 now")
    assert other.key in wrong.message
    assert swap_alerts(swap, snap) == []  # back in: nothing
    over = dataclasses.replace(swap, phase=SwapPhase.ABORTED)
    assert swap_alerts(over, after) == []


def test_the_wrongly_pulled_member_is_not_also_a_second_failure() -> None:
    swap, snap = start()
    a, b = snap.drives[5], snap.drives[6]
    # md/bare names hold no serial: one unnamed gone member per unnamed pull is the pull's
    after = gone(without(snap, a.key), {a.key: "sdq"})
    assert [x.key for x in swap_alerts(swap, after)] == ["swap:wrong-pull:5"]
    # a by-id name holds the serial; a real second failure (still linked) is told
    after = gone(without(snap, a.key), {a.key: f"ata-X_{a.key}", b.key: "sdr"})
    keys = [x.key for x in swap_alerts(swap, after)]
    assert keys == ["swap:wrong-pull:5", f"swap:member-down:{swap.pool}:sdr"]


def test_a_second_failure_without_a_wrong_pull_is_told() -> None:
    swap, snap = start()
    b = snap.drives[6]
    (alert,) = swap_alerts(swap, gone(snap, {b.key: "sdr"}))
    assert alert.key == f"swap:member-down:{swap.pool}:sdr" and alert.health is Health.CRITICAL
    assert "ANOTHER MEMBER FAILED" in alert.message and "sdr" in alert.message


def test_records_of_a_bay_or_a_drive() -> None:
    from nastui.swap.logic.codec import records_for

    a = {"host": "nano", "bay": 10, "old": {"serial": "OLD"}, "new": {"serial": "NEW"}}
    b = {"host": "nano", "bay": 3, "old": {"serial": "NEW"}, "new": None}
    c = {"host": "other", "bay": 10, "old": {"serial": "X"}, "new": None}
    records = [a, b, c]
    assert records_for(records, 10, None, "nano") == [a]
    assert records_for(records, None, "NEW", "nano") == [a, b]  # went in at 10, out of 3
    assert records_for(records, 10, "nothing") == [a, c]
    assert records_for(records, 7, "nothing", "nano") == []


async def test_the_daemon_says_once_when_the_swap_file_cannot_be_read(tmp_path: Path) -> None:
    import io

    from nastui.daemon.monitor import Monitor
    from nastui.daemonlog import Log
    from nastui.history.db import History
    from nastui.session import Source, open_session
    from tests.unit.test_monitor import Recorder, sent_keys

    session = open_session(Source(demo=True, scenario="failing-drive"), {})
    session.state_dir = tmp_path  # where the demo keeps its swap
    (tmp_path / "swap.json").write_text("{not a swap")
    out, notifier = io.StringIO(), Recorder()
    history = History.open(tmp_path / "history.sqlite")
    daemon = Monitor(session, history, [notifier], Log(out), latest_path=None)
    await daemon.step()
    await daemon.step()
    assert out.getvalue().count("swap.json is not a swap nastui can read") == 1
    assert "drive:PK1331PLPX28B6:attr:197" in sent_keys(notifier)  # the rest goes on
    assert not [k for k in sent_keys(notifier) if k.startswith("swap:")]


def test_the_planned_pull_is_a_warning_not_a_missing_drive() -> None:
    from nastui.swap.logic.alerts import explained_by_swap

    swap, snap = start()
    pulled = without(snap, swap.old.key)
    other_host = missing(2, host="elsewhere")
    alerts = with_swap_alerts([missing(2), other_host], swap, pulled)
    assert [(a.key, a.health) for a in alerts] == [
        ("swap:bay-open:2", Health.WARNING),
        ("bay:2:missing", Health.CRITICAL),  # another host's bay 2 is not this swap's
    ]
    assert f"{swap.old.serial} is out for its swap (prepared)" in alerts[0].message
    assert alerts[0].since == 0  # as long as the bay has been open
    over = dataclasses.replace(swap, phase=SwapPhase.DONE)
    assert explained_by_swap([missing(2)], over, pulled) == [missing(2)]
    assert explained_by_swap([missing(3)], swap, pulled) == [missing(3)]  # not the swap's bay
