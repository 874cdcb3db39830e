"""UPSes over NUT against a real upsd with the dummy-ups driver (Debian nut-server).

The driver re-reads its .dev file when it changes, so the test switches the UPS from mains to
battery to battery low and checks the fleet row and the alerts at each step, then stops upsd.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from nastui.collectors.fleet_source import fleet_source
from nastui.collectors.nut import NutFleet, read_vars
from nastui.collectors.nut_parse import NutError
from nastui.config import load_config
from nastui.config.remote import UpsConfig
from nastui.core.assess import fleet_alerts
from nastui.core.fleetview import fleet_row
from nastui.model import FleetHost, Health, UpsStatus
from nastui.session import Source, open_session
from nastui.sim.clock import FakeClock
from tests.nutlab import UPS, NutLab, start_upsd, unused_tcp_port
from tests.waiting import wait_for

pytestmark = pytest.mark.integration

ONLINE = {
    "device.mfr": "Eaton",
    "device.model": "5E 650i",
    "ups.status": "OL",
    "battery.charge": "100",
    "battery.runtime": "2520",
    "ups.load": "23",
    "input.voltage": "230.0",
}


@pytest.fixture
def lab(tmp_path: Path) -> Iterator[NutLab]:
    nut = start_upsd(tmp_path / "nut", ONLINE)
    try:
        yield nut
    finally:
        nut.stop()


def poll_until(fleet: NutFleet, ok: Callable[[FleetHost], bool]) -> FleetHost:
    """Poll until the UPS's state satisfies `ok` (the driver picks a change up within its
    poll interval); fail naming the last state."""
    last: list[FleetHost] = []

    def polled() -> FleetHost | None:
        last[:] = [*asyncio.run(fleet.poll())]
        return last[0] if ok(last[0]) else None

    host = wait_for(polled, step=0.2, what="the UPS's state", shown=lambda: last)
    assert host is not None  # wait_for returns what held
    return host


def status_is(status: UpsStatus) -> Callable[[FleetHost], bool]:
    return lambda h: h.snapshot is not None and h.snapshot.ups[0].status is status


def test_mains_battery_low_battery_and_a_dead_upsd(lab: NutLab) -> None:
    clock = FakeClock(1000.0)
    ups = UpsConfig("rack", UPS, "127.0.0.1", lab.port)
    fleet = NutFleet([ups], clock)

    host = poll_until(fleet, status_is(UpsStatus.ONLINE))
    assert host.error is None and host.reachable
    assert (host.profile, host.address) == ("nut", f"127.0.0.1:{lab.port}")
    assert host.snapshot is not None
    (state,) = host.snapshot.ups
    assert (state.charge_percent, state.runtime_s, state.load_percent) == (100.0, 2520.0, 23.0)
    assert fleet_alerts(host, clock.now()) == ()
    row = fleet_row(host, clock.now())
    assert (row.health, row.status, row.ups) == (Health.OK, "OK", "online 100% 42 min")

    lab.set({**ONLINE, "ups.status": "OB DISCHRG", "battery.charge": "80"})
    host = poll_until(fleet, status_is(UpsStatus.ON_BATTERY))
    clock.advance(120)
    host = poll_until(fleet, status_is(UpsStatus.ON_BATTERY))
    (alert,) = fleet_alerts(host, clock.now())
    assert (alert.key, alert.health, alert.host) == ("ups:rack:power", Health.WARNING, "rack")
    assert alert.message == (
        "on battery: mains power lost (for 2m00s, charge 80%, 42m00s runtime left)"
    )
    assert fleet_row(host, clock.now()).ups == "ON BATTERY 80% 42 min"

    lab.set({**ONLINE, "ups.status": "OB LB", "battery.charge": "9", "battery.runtime": "300"})
    host = poll_until(fleet, status_is(UpsStatus.BATTERY_LOW))
    (alert,) = fleet_alerts(host, clock.now())
    assert (alert.key, alert.health) == ("ups:rack:power", Health.CRITICAL)
    assert alert.message.startswith("battery low: shutdown imminent (for 2m00s, charge 9%")

    lab.stop()
    clock.advance(60)
    (gone,) = asyncio.run(fleet.poll())
    assert gone.error is not None and "connection refused: upsd is not running" in gone.error
    assert gone.snapshot == host.snapshot  # the last known state is kept
    assert fleet_row(gone, clock.now()).status == "unreachable"
    keys = [a.key for a in fleet_alerts(gone, clock.now())]
    assert keys == ["host:unreachable", "ups:rack:power"]


def test_an_unknown_ups_name_is_one_line(lab: NutLab) -> None:
    ups = UpsConfig("x", "nosuchups", "127.0.0.1", lab.port)
    with pytest.raises(NutError) as caught:
        asyncio.run(read_vars(ups))
    assert str(caught.value) == (
        f"nosuchups@127.0.0.1:{lab.port}: upsd answered UNKNOWN-UPS: upsd has no UPS of that "
        "name: check the name with `upsc -l 127.0.0.1`"
    )


def test_nothing_listening_is_one_line() -> None:
    port = unused_tcp_port()
    with pytest.raises(NutError, match=r"connection refused: upsd is not running"):
        asyncio.run(read_vars(UpsConfig("x", "ups", "127.0.0.1", port, timeout_s=1.0)))


def test_configured_ups_reaches_the_session_fleet(lab: NutLab, tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(f'[[ups]]\ntarget = "{UPS}@127.0.0.1:{lab.port}"\nname = "rack"\n')
    session = open_session(Source(config=path, fleet=True, history=False), {})
    assert session.fleet is not None
    try:
        (host,) = asyncio.run(session.fleet.poll())
    finally:
        session.fleet.close()
    assert host.name == "rack" and host.error is None
    assert host.snapshot is not None and host.snapshot.ups[0].status is UpsStatus.ONLINE
    config = load_config(path)
    both = fleet_source((), FakeClock(), ups=config.ups)
    assert isinstance(both, NutFleet)


async def test_the_dashboard_shows_the_ups(lab: NutLab, tmp_path: Path) -> None:
    from nastui.ui.app import make_app
    from nastui.ui.widgets.textpanel import TextPanel

    path = tmp_path / "config.toml"
    path.write_text(f'[[ups]]\ntarget = "{UPS}@127.0.0.1:{lab.port}"\nname = "rack"\n')
    lab.set({**ONLINE, "ups.status": "OB DISCHRG", "battery.charge": "80"})
    fleet = NutFleet(load_config(path).ups, FakeClock())
    on_battery = status_is(UpsStatus.ON_BATTERY)
    for _ in range(100):  # until the driver has read the change (bounded: 20 s)
        if on_battery((await fleet.poll())[0]):
            break
        await asyncio.sleep(0.2)
    session = open_session(Source(demo=True, config=path, fleet=False), {})
    session.fleet = fleet  # the demo box, with the real UPS beside it
    app = make_app(session, live=False)
    async with app.run_test(size=(100, 30)) as pilot:
        for _ in range(200):  # until the fleet worker's one poll has landed (bounded)
            await pilot.pause(0.02)
            if app.fleet is not None:
                break
        await pilot.pause()
        thermal = app.screen.query_one("#thermal", TextPanel).plain
    assert "UPS rack  ON BATTERY 80% 42 min" in thermal


def test_the_daemon_alerts_on_battery_low(lab: NutLab, tmp_path: Path) -> None:
    lab.set({**ONLINE, "ups.status": "OB LB", "battery.charge": "9", "battery.runtime": "300"})
    ups = UpsConfig("rack", UPS, "127.0.0.1", lab.port)
    poll_until(NutFleet([ups], FakeClock()), status_is(UpsStatus.BATTERY_LOW))
    path = tmp_path / "config.toml"
    path.write_text(f'[[ups]]\ntarget = "{UPS}@127.0.0.1:{lab.port}"\nname = "rack"\n')
    env = {**os.environ, "NASTUI_STATE_DIR": str(tmp_path / "state")}
    env.pop("JOURNAL_STREAM", None)
    argv = [sys.executable, "-m", "nastui", "--config", str(path)]  # this box + the UPS
    done = subprocess.run(
        [*argv, "daemon", "--once", "--no-notify"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert (
        "alert firing CRITICAL rack: battery low: shutdown imminent (charge 9%, 5m00s runtime left)"
        in done.stdout.splitlines()
    ), done.stdout


def test_status_reads_the_ups_and_says_its_alerts(lab: NutLab, tmp_path: Path) -> None:
    import json

    path = tmp_path / "config.toml"
    path.write_text(f'[[ups]]\ntarget = "{UPS}@127.0.0.1:{lab.port}"\nname = "rack"\n')
    env = {**os.environ, "NASTUI_STATE_DIR": str(tmp_path / "state")}

    def status(*extra: str) -> subprocess.CompletedProcess[str]:
        argv = [sys.executable, "-m", "nastui", "--demo", "--config", str(path), "status"]
        return subprocess.run(
            [*argv, *extra], capture_output=True, text=True, env=env, timeout=60, check=False
        )

    mains = status()
    assert mains.returncode == 0, mains.stdout + mains.stderr
    assert "ups      rack online 100% 42 min" in mains.stdout
    lab.set({**ONLINE, "ups.status": "OB LB", "battery.charge": "9", "battery.runtime": "300"})
    ups = UpsConfig("rack", UPS, "127.0.0.1", lab.port)
    poll_until(NutFleet([ups], FakeClock()), status_is(UpsStatus.BATTERY_LOW))
    low = status()
    assert low.returncode == 2, low.stdout
    assert low.stdout.startswith("NASTUI CRITICAL") and "rack" in low.stdout.splitlines()[1]
    data = json.loads(status("--json").stdout)
    (entry,) = data["ups"]
    assert (entry["name"], entry["reachable"], entry["status"]) == ("rack", True, "battery low")
    assert any(a["key"] == "ups:rack:power" and a["health"] == "CRITICAL" for a in data["alerts"])
    lab.stop()
    gone = status()
    assert gone.returncode == 2, gone.stdout
    assert "ups      rack unreachable: " in gone.stdout


def test_a_ups_alert_is_listed_and_acknowledged_like_any_other(lab: NutLab, tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(f'[[ups]]\ntarget = "{UPS}@127.0.0.1:{lab.port}"\nname = "rack"\n')
    env = {**os.environ, "NASTUI_STATE_DIR": str(tmp_path / "state")}

    def nastui(*argv: str) -> subprocess.CompletedProcess[str]:
        full = [sys.executable, "-m", "nastui", "--demo", "--config", str(path), *argv]
        return subprocess.run(
            full, capture_output=True, text=True, env=env, timeout=60, check=False
        )

    lab.set({**ONLINE, "ups.status": "OB DISCHRG", "battery.charge": "80"})
    ups = UpsConfig("rack", UPS, "127.0.0.1", lab.port)
    poll_until(NutFleet([ups], FakeClock()), status_is(UpsStatus.ON_BATTERY))
    assert nastui("status").returncode == 1
    listed = nastui("alert", "list")
    assert "WARN  rack/ups:rack:power\n      rack: on battery" in listed.stdout, listed.stdout
    acked = nastui("alert", "ack", "rack/ups:rack:power", "--note", "generator test")
    assert acked.returncode == 0, acked.stderr
    assert acked.stdout.startswith("acknowledged rack/ups:rack:power")
    quiet = nastui("status")
    assert quiet.returncode == 0, quiet.stdout  # acknowledged: no longer in the exit code
    assert "(acknowledged)" in nastui("alert", "list").stdout
