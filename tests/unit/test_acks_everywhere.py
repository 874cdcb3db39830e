"""Acknowledgements are one mechanism: an alert acknowledged in the state directory's
`acks.json` is acknowledged for status, the daemon (nothing sent; its latest.json says so), the
SNMP agent's table and the Prometheus export alike, on the simulator as on a real box."""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path

from nastui.agent import mib
from nastui.agent.table import build_table
from nastui.collectors.latest import read_latest
from nastui.control import acks as ack_file
from nastui.core.ack import ack_alert
from nastui.core.assess import overall
from nastui.core.metrics.render import render
from nastui.daemon.monitor import Monitor
from nastui.daemonlog import Log
from nastui.history.db import History
from nastui.model import Health, HostSnapshot, Notice
from nastui.session import Source, open_session

KEY = "drive:PK1331PLPX28B6:attr:197"


class Recorder:
    name = "recorder"

    def __init__(self) -> None:
        self.keys: set[str] = set()

    def send(self, host: str, notices: Sequence[Notice]) -> None:
        self.keys |= {n.alert.key for n in notices}


async def acknowledge_all(state: Path, scenario: str) -> HostSnapshot:
    """Acknowledge every standing alert of `scenario` in `state`, as `alert ack` does."""
    session = open_session(Source(demo=True, scenario=scenario), {"NASTUI_STATE_DIR": str(state)})
    snapshot = await session.poll()
    for alert in snapshot.alerts:
        ack_file.add_alert_ack(state, ack_alert(alert, session.clock.now()))
    return await session.poll()


async def test_the_daemon_sends_nothing_acknowledged(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    session = open_session(
        Source(demo=True, scenario="failing-drive"), {"NASTUI_STATE_DIR": str(state)}
    )
    alert = next(a for a in (await session.poll()).alerts if a.key == KEY)
    ack_file.add_alert_ack(state, ack_alert(alert, session.clock.now(), "disk ordered"))
    recorder = Recorder()
    daemon = Monitor(
        session,
        History.open(tmp_path / "history.sqlite"),
        [recorder],
        Log(io.StringIO()),
        latest_path=tmp_path / "latest.json",
    )
    await daemon.step()
    assert recorder.keys and KEY not in recorder.keys
    latest = read_latest(tmp_path / "latest.json")
    assert {a.key: a.acknowledged for a in latest.alerts}[KEY] is True


async def test_agent_and_export_see_the_same_acknowledgements(tmp_path: Path) -> None:
    snapshot = await acknowledge_all(tmp_path, "hot-bay")
    assert snapshot.alerts and all(a.acknowledged for a in snapshot.alerts)
    assert overall(snapshot) is Health.OK
    table = build_table(snapshot, now=snapshot.taken_at, max_age=600.0).as_dict()
    health = table[mib.host_oid(mib.DEFAULT_BASE, mib.HostCol.HEALTH)]
    assert health == ("integer", int(Health.OK))
    text = render(snapshot)
    assert "nastui_host_health" in text
    host_line = next(line for line in text.splitlines() if line.startswith("nastui_host_health"))
    assert host_line.endswith(" 0")
    counts = [line for line in text.splitlines() if line.startswith("nastui_alerts{")]
    assert counts and all(line.endswith(" 0") for line in counts)
    drives = [line for line in text.splitlines() if line.startswith("nastui_drive_health{")]
    assert drives and all(line.endswith(" 0") for line in drives)  # the rules stay quiet


async def test_without_state_the_demo_acknowledges_nothing(tmp_path: Path) -> None:
    session = open_session(Source(demo=True, scenario="hot-bay"), {})
    assert session.state_dir is None
    snapshot = await session.poll()
    assert overall(snapshot) is Health.CRITICAL
