"""The daemon's cycle (`nastui.daemon.monitor`) on the simulator: what it tells, what it keeps,
and that a restart or a failed delivery neither repeats nor loses a notice."""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path

import pytest

from nastui.collectors.latest import read_latest
from nastui.core.ack import ack_alert
from nastui.core.codec import loads
from nastui.daemon.monitor import Monitor
from nastui.daemonlog import Log
from nastui.history.db import History
from nastui.model import Notice, NoticeKind
from nastui.notify.base import NotifyError
from nastui.session import Source, open_session


class Recorder:
    """A notifier that keeps what it is given, or refuses it."""

    def __init__(self, fail: bool = False, name: str = "recorder") -> None:
        self.fail = fail
        self.batches: list[tuple[str, tuple[Notice, ...]]] = []
        self.attempts = 0
        self._name = name

    @property
    def name(self) -> str:
        return self._name

    def send(self, host: str, notices: Sequence[Notice]) -> None:
        self.attempts += 1
        if self.fail:
            raise NotifyError(f"{self._name}: refused on purpose")
        self.batches.append((host, tuple(notices)))


class Ticks:
    """A monotonic clock that moves only when told to."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def monitor(
    tmp_path: Path,
    notifier: Recorder,
    scenario: str = "failing-drive",
    *,
    ticks: Ticks | None = None,
    others: Sequence[Recorder] = (),
) -> Monitor:
    session = open_session(Source(demo=True, scenario=scenario), {})
    history = History.open(tmp_path / "history.sqlite")
    log = Log(io.StringIO())
    return Monitor(
        session,
        history,
        [notifier, *others],
        log,
        latest_path=tmp_path / "latest.json",
        fleet=session.fleet,
        monotonic=ticks or Ticks(),
    )


def sent_keys(notifier: Recorder, host: str = "nano") -> set[str]:
    return {n.alert.key for h, batch in notifier.batches if h == host for n in batch}


async def test_first_cycle_tells_every_standing_alert_once_per_host(tmp_path: Path) -> None:
    notifier = Recorder()
    await monitor(tmp_path, notifier).step()
    # A batch per host the alerts are about, every one sent as the box.
    assert {host for host, _ in notifier.batches} == {"nano"}
    about = [{n.alert.host or "nano" for n in batch} for _, batch in notifier.batches]
    assert all(len(hosts) == 1 for hosts in about)
    assert len(about) == len({h for hosts in about for h in hosts}) > 1
    keys = sent_keys(notifier)
    assert "drive:PK1331PLPX28B6:attr:197" in keys
    assert all(n.kind is NoticeKind.FIRING for _, b in notifier.batches for n in b)


async def test_a_restart_sends_nothing_already_sent(tmp_path: Path) -> None:
    first = Recorder()
    await monitor(tmp_path, first).step()
    second = Recorder()
    await monitor(tmp_path, second).step()
    assert first.batches and second.batches == []


async def test_a_failed_delivery_is_tried_again_after_a_minute(tmp_path: Path) -> None:
    notifier = Recorder(fail=True)
    ticks = Ticks()
    daemon = monitor(tmp_path, notifier, ticks=ticks)
    deliveries = await daemon.step()
    assert deliveries and not any(d.delivered for d in deliveries)
    notifier.fail = False
    await daemon.step()
    assert not notifier.batches  # not yet: the first retry is a minute later
    ticks.now += 60
    await daemon.step()
    assert "drive:PK1331PLPX28B6:attr:197" in sent_keys(notifier)
    history = daemon.history
    outcomes = {row.delivery for row in history.notices(0)}
    assert "recorder: recorder: refused on purpose" in outcomes and "recorder: sent" in outcomes


async def test_an_acknowledged_alert_is_not_sent_and_shows_acknowledged(tmp_path: Path) -> None:
    probe = monitor(tmp_path / "probe", Recorder())
    snapshot = await probe.session.poll()
    (pending,) = [a for a in snapshot.alerts if a.key.endswith(":attr:197")]
    notifier = Recorder()
    daemon = monitor(tmp_path, notifier)
    daemon.history.add_ack(ack_alert(pending, probe.session.clock.now()))
    await daemon.step()
    assert "drive:PK1331PLPX28B6:attr:197" not in sent_keys(notifier)
    latest = read_latest(tmp_path / "latest.json")
    (shown,) = [a for a in latest.alerts if a.key.endswith(":attr:197")]
    assert shown.acknowledged


@pytest.mark.parametrize("scenario", ["healthy-24-bay", "resilvering"])
async def test_latest_snapshot_and_history_are_written(tmp_path: Path, scenario: str) -> None:
    daemon = monitor(tmp_path, Recorder(), scenario)
    await daemon.step()
    assert read_latest(tmp_path / "latest.json").host == "nano"
    assert any(m.startswith("temp:") for m in daemon.history.metrics("nano"))
    assert oct((tmp_path / "latest.json").stat().st_mode & 0o777) == "0o644"


async def test_the_kept_snapshot_has_the_pools_of_the_last_one(tmp_path: Path) -> None:
    daemon = monitor(tmp_path, Recorder(), "resilvering")
    for _ in range(3):
        await daemon.step()
    kept = loads(daemon.history.state("latest:nano") or "", "latest:nano")
    assert kept.pools == read_latest(tmp_path / "latest.json").pools
