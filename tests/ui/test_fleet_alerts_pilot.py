"""UPS and fleet alerts in the interface: the header and the alerts panel show them as the
daemon sends them, and an acknowledgement made by `nastui alert ack` quiets them here too."""

from __future__ import annotations

from pathlib import Path

from nastui.control import acks as ack_file
from nastui.core.ack import ack_alert
from nastui.core.fleetview import fleet_alert_list
from nastui.session import Source, open_session
from nastui.ui.app import NastuiApp, make_app
from nastui.ui.widgets.textpanel import TextPanel

SIZE = (120, 40)


def hot_bay(state: Path | None = None) -> NastuiApp:
    env = {"NASTUI_STATE_DIR": str(state)} if state is not None else {}
    session = open_session(Source(demo=True, scenario="hot-bay"), env)
    return make_app(session, live=False)


async def fleet_landed(app: NastuiApp, pilot: object) -> None:
    from textual.pilot import Pilot

    assert isinstance(pilot, Pilot)
    for _ in range(200):  # until the fleet worker's one poll has landed (bounded)
        await pilot.pause(0.02)
        if app.fleet is not None:
            break
    await pilot.pause()


def plain(app: NastuiApp, name: str) -> str:
    return app.screen.query_one(f"#{name}", TextPanel).plain


async def test_the_ups_on_battery_and_a_dead_host_are_in_the_header_and_the_panel() -> None:
    app = hot_bay()
    async with app.run_test(size=SIZE) as pilot:
        await fleet_landed(app, pilot)
        title, alerts = plain(app, "title"), plain(app, "alerts")
    # The box's own state counts its UPS (its power); another host's is a badge beside it.
    assert "dashboard   CRITICAL   fleet CRIT" in title
    assert "WARN ups-rack: on battery: mains power lost" in alerts
    assert "CRIT offsite: 192.0.2.40:161 not answering" in alerts


async def test_an_acknowledged_ups_alert_is_quiet_in_the_interface(tmp_path: Path) -> None:
    probe = hot_bay(tmp_path)
    fleet = probe.session.fleet
    assert fleet is not None
    hosts = await fleet.poll()
    now = probe.session.clock.now()
    for alert in fleet_alert_list(hosts, (), now):  # what `nastui alert ack` writes, each
        ack_file.add_alert_ack(tmp_path, ack_alert(alert, now))
    app = hot_bay(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await fleet_landed(app, pilot)
        title, alerts = plain(app, "title"), plain(app, "alerts")
    assert "fleet" not in title  # every fleet alert acknowledged: no badge
    assert "ups-rack" not in alerts and "offsite" not in alerts
    assert "fan-wall-2" in alerts  # the box's own still stand
