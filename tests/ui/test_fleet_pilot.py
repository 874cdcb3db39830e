"""The fleet screen driven through Textual's Pilot: opening it, moving, the drill-down and back,
an empty fleet, and a fleet poll that never returns while the local panes keep updating."""

from __future__ import annotations

import asyncio
from pathlib import Path

from nastui.config import load_config
from nastui.model import FleetHost, HostSnapshot
from nastui.session import Source, open_session
from nastui.sim import SimBackend
from nastui.sim.clock import FakeClock
from nastui.sim.locate import SimLocator
from nastui.ui.app import NastuiApp, make_app
from nastui.ui.screens.dashboard import DashboardScreen
from nastui.ui.screens.fleet import FleetScreen
from nastui.ui.screens.fleet_host import FleetHostScreen
from nastui.ui.widgets.textpanel import TextPanel
from tests.ui.helpers import demo_app
from tests.ui.screentext import screen_lines

SIZE = (80, 24)


def panel(app: NastuiApp, name: str) -> str:
    return app.screen.query_one(f"#{name}", TextPanel).plain


async def test_h_and_6_open_the_fleet_with_one_row_per_host() -> None:
    app = demo_app("failing-drive")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("H")
        await pilot.pause()
        assert isinstance(app.screen, FleetScreen)
        rows = panel(app, "fleet-rows").split("\n")
        assert [r.split()[1] if r.startswith(">") else r.split()[0] for r in rows] == [
            "backup-nas",
            "archive",
            "ups-rack",
            "offsite",
        ]
        assert rows[0].startswith("> backup-nas")
        assert "unreachable" in rows[3] and "3 h ago" in rows[3]
        assert "HOST" in panel(app, "fleet-head")
        await pilot.press("d")
        assert isinstance(app.screen, DashboardScreen)
        await pilot.press("6")
        assert isinstance(app.screen, FleetScreen)


async def test_cursor_moves_and_clamps_and_the_selected_host_is_described() -> None:
    app = demo_app("failing-drive")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("H", "down")
        screen = app.screen
        assert isinstance(screen, FleetScreen)
        assert screen.selected == 1
        assert panel(app, "fleet-rows").split("\n")[1].startswith("> archive")
        assert "WARN cold: pool DEGRADED" in panel(app, "fleet-selected")
        await pilot.press("j", "j", "j", "down")  # past the end: stays on the last host
        assert screen.selected == 3
        await pilot.press("k", "up")
        assert screen.selected == 1
        await pilot.press("home")
        assert screen.selected == 0


async def test_enter_opens_the_host_and_escape_returns() -> None:
    app = demo_app("failing-drive")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("H", "down", "enter")
        await pilot.pause()
        assert isinstance(app.screen, FleetHostScreen)
        assert app.screen.host_name == "archive"
        assert "192.0.2.30:161  profile truenas" in panel(app, "host-host")
        assert "WARN cold: pool DEGRADED" in panel(app, "host-alerts")
        drives = panel(app, "host-drives")
        assert drives.startswith("drives")
        assert "sdh" in drives
        assert "cold zfs DEGRADED" in panel(app, "host-pools")
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, FleetScreen)
        assert app.screen.selected == 1


async def test_unreachable_host_shows_the_error_and_last_contact() -> None:
    app = demo_app("failing-drive")  # offsite is silent where the scenario shows problems
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("H", "end", "enter")
        await pilot.pause()
        head = panel(app, "host-host")
        assert "X CRITICAL" in head
        assert "last contact 3 h ago" in head
        assert "no answer from 192.0.2.40:161 within 2 s" in head


async def test_ups_host_shows_its_state() -> None:
    app = demo_app("hot-bay", ascii_only=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("H", "down", "down", "enter")
        await pilot.pause()
        ups = panel(app, "host-ups")
        assert "ON BATTERY" in ups
        assert "charge  #" in ups
        assert panel(app, "host-drives") == ""


async def test_no_hosts_configured_says_how_to_add_them() -> None:
    session = open_session(Source(demo=True), {})
    session.fleet, session.fleet_opener = None, lambda: None  # a box with no [[host]]
    app = make_app(session, live=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("H")
        await pilot.pause()
        text = panel(app, "fleet-head")
        assert "[[host]]" in text
        # where the example is found: the file ships inside the package, out of an operator's
        # sight ("see config.example.toml" named a file a wheel install has nowhere to see)
        assert "`nastui config init -` prints the annotated example" in text
        await pilot.press("enter", "down")  # nothing to open or move to
        assert isinstance(app.screen, FleetScreen)


async def test_configured_hosts_show_as_not_polled_before_the_first_answer(
    tmp_path: Path,
) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[[host]]\nname = "vault"\naddress = "192.0.2.9"\nprofile = "synology"\n')
    hang = HangingFleet()
    session = open_session(Source(demo=True, config=path), {})
    session.fleet = hang
    assert load_config(path).hosts[0].name == "vault"
    app = make_app(session, live=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("H")
        await pilot.pause()
        row = panel(app, "fleet-rows")
        assert row.startswith("> vault")
        assert "? not polled" in row and "never" in row


class HangingFleet:
    """A fleet whose poll never returns (a host that swallows every packet, no timeout)."""

    def __init__(self) -> None:
        self.started = 0
        self.cancelled = False
        self.closed = False

    async def poll(self) -> tuple[FleetHost, ...]:
        self.started += 1
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.cancelled = True
            raise
        return ()

    def close(self) -> None:
        self.closed = True


class CountingBackend:
    """The simulator, counting collections."""

    def __init__(self, sim: SimBackend) -> None:
        self.sim = sim
        self.collected = 0
        self.swap, self.tester = sim.swap, sim.tester

    @property
    def host(self) -> str:
        return self.sim.host

    def collect_at_once(self) -> None:
        return None  # collected on the event loop, as the machine's

    async def collect(self) -> HostSnapshot:
        self.collected += 1
        return await self.sim.collect()


async def test_a_hanging_fleet_poll_never_stalls_the_local_panes() -> None:
    clock = FakeClock()
    sim = SimBackend(clock=clock)
    counting = CountingBackend(sim)
    session = open_session(Source(demo=True), {})
    session.backend, session.clock, session.locator = counting, clock, SimLocator(sim)
    hang = HangingFleet()
    session.fleet = hang
    app = make_app(session, live=True, poll_interval=0.01)
    async with app.run_test(size=SIZE) as pilot:
        # Until the fleet's poll has started (after the first frame) and the local poll has
        # run a few times (bounded).
        for _ in range(500):
            await pilot.pause(0.01)
            if counting.collected >= 5 and hang.started:
                break
        assert counting.collected >= 5
        assert hang.started == 1
        assert app.fleet is None
        assert isinstance(app.screen, DashboardScreen)
        assert "bay 0:" in panel(app, "selected")
        await pilot.press("H")
        await pilot.pause()
        assert "polling the fleet" in panel(app, "fleet-head")
        before = counting.collected
        for _ in range(500):
            await pilot.pause(0.01)
            if counting.collected > before:
                break
        assert counting.collected > before
    assert hang.cancelled
    assert hang.closed


def test_only_the_live_front_ends_set_up_the_fleet() -> None:
    from argparse import Namespace

    one_shot = open_session(Source.from_options(Namespace(demo=True)), {})
    assert one_shot.fleet is None  # `nastui status` never polls it
    live = open_session(Source.from_options(Namespace(demo=True), live=True), {})
    assert live.fleet is not None


async def test_a_host_name_is_shown_as_written(tmp_path: Path) -> None:
    """The host screen's title took the configured name as markup: "vault [/] 2" ended the
    interface on a MarkupError as the host was opened."""
    path = tmp_path / "config.toml"
    path.write_text('[[host]]\nname = "vault [/] 2"\naddress = "192.0.2.9"\n')
    session = open_session(Source(demo=True, config=path), {})
    session.fleet = HangingFleet()
    app = make_app(session, live=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("H", "enter")
        await pilot.pause()
        assert "vault [/] 2" in screen_lines(app)[1]
