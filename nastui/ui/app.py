"""The Textual application and `make_app`, the one factory the CLI, tests and screenshots use.

Data flow: a worker polls the session (collect -> assess -> store) and posts `SnapshotReady`;
the app keeps the newest snapshot in a `var`; screens watch it and hand it to widgets, which
only render. Nothing in the UI collects anything itself.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from importlib import import_module
from typing import TYPE_CHECKING, Any, ClassVar

from textual import work
from textual.app import App, ScreenStackError
from textual.binding import Binding, BindingType
from textual.drivers.linux_driver import LinuxDriver
from textual.message import Message
from textual.notifications import SeverityLevel
from textual.reactive import Reactive, var
from textual.screen import Screen
from textual.scrollbar import ScrollBar, ScrollBarRender
from textual.worker import Worker, WorkerState

from nastui.core.glyphs import Glyphs, glyphs_for
from nastui.model import FleetHost, HostSnapshot, Thresholds
from nastui.safeio import package_text
from nastui.session import Session, attach_history
from nastui.ui.asciiwire import ascii_driver
from nastui.ui.quietinput import QuietLinuxDriver
from nastui.ui.redraw import install_changed_cells_only, paint_now
from nastui.ui.screens.dashboard import DashboardScreen

if TYPE_CHECKING:
    from nastui.history.db import History
    from nastui.ui.screens.bench_source import BenchSource

# The longest the first paint waits for the first snapshot (a box whose first poll is slow
# gets a frame by then, and another when its snapshot comes).
STARTUP_HOLD_MAX_S = 0.25
# The longest the history's load waits after the first paint for the fleet's first poll.
HISTORY_WAIT_S = 0.25
# The longest one of the interface's polls waits for the SMART reads it started (a full read
# of every drive comes each `poll.smart_s`): a slow or hung smartctl does not freeze the
# temperatures and I/O rates on screen; the read goes on and the next poll takes it up.
POLL_SMART_WAIT_S = 1.0


def _screen(module: str, name: str) -> Callable[[], Screen[Any]]:
    """A mode's screen, its module imported when the mode is first shown: the first frame
    waits for no screen but the dashboard (nor for the swap, the bench or the fleet they
    bring)."""

    def make() -> Screen[Any]:
        screen: type[Screen[Any]] = getattr(import_module(f"nastui.ui.screens.{module}"), name)
        return screen()

    return make


class AsciiScrollBar(ScrollBarRender):
    """A scrollbar without eighth-block glyphs: a serial console's font has none."""

    VERTICAL_BARS: ClassVar[list[str]] = [" "] * 8
    HORIZONTAL_BARS: ClassVar[list[str]] = [" "] * 8


class SnapshotReady(Message):
    """A new assessed snapshot is in the store."""

    def __init__(self, snapshot: HostSnapshot) -> None:
        super().__init__()
        self.snapshot = snapshot

    def can_replace(self, message: Message) -> bool:
        """Only the newest snapshot matters: an undelivered older one is dropped."""
        return isinstance(message, SnapshotReady)


class FleetReady(Message):
    """A fleet poll finished: every remote host as it found them."""

    def __init__(self, hosts: tuple[FleetHost, ...]) -> None:
        super().__init__()
        self.hosts = hosts

    def can_replace(self, message: Message) -> bool:
        """Only the newest poll matters."""
        return isinstance(message, FleetReady)


class NastuiApp(App[int]):
    """nastui's full-screen interface."""

    # Through the package's loader, not a path: the zipapp (`make dist`) runs from its archive.
    CSS = package_text("nastui.ui", "app.tcss")
    TITLE = "nastui"
    MODES: ClassVar[dict[str, str | Callable[[], Screen[Any]]]] = {
        "dashboard": DashboardScreen,
        "bays": _screen("bays", "BaysScreen"),
        "pools": _screen("pools", "PoolsScreen"),
        "fans": _screen("fans", "FansScreen"),
        "bench": _screen("bench", "BenchScreen"),
        "fleet": _screen("fleet", "FleetScreen"),
        "help": _screen("help", "HelpScreen"),
    }
    DEFAULT_MODE = "dashboard"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("d,1", "switch_mode('dashboard')", "dashboard"),
        Binding("b,2", "switch_mode('bays')", "bays"),
        Binding("p,3", "switch_mode('pools')", "pools"),
        Binding("f,4", "switch_mode('fans')", "fans"),
        Binding("n,5", "switch_mode('bench')", "bench"),
        Binding("H,6", "switch_mode('fleet')", "fleet"),
        Binding("question_mark,f1", "switch_mode('help')", "help"),
        Binding("q", "quit", "quit"),
        # Textual's own Ctrl+C only says "press ctrl+q": on a serial line Ctrl+Q is XON, and
        # many consoles never pass it on. Ctrl+C quits, and the terminal is restored.
        Binding("ctrl+c", "quit", "quit", show=False, priority=True, system=True),
    ]
    ENABLE_COMMAND_PALETTE = False
    # ANSI colours (see app.tcss), from the start: a theme set in `__init__` is a change, whose
    # watcher parses the whole stylesheet once more before the first frame.
    theme: Reactive[str] = Reactive("ansi-dark")

    # A var, not a reactive: a reactive would repaint the whole screen on every snapshot, and
    # on a serial console only the cells that changed may be written.
    snapshot: var[HostSnapshot | None] = var(None)
    # The remote hosts as the last fleet poll found them; None before it.
    fleet: var[tuple[FleetHost, ...] | None] = var(None)

    def __init__(
        self,
        session: Session,
        *,
        ascii_only: bool = False,
        live: bool = True,
        poll_interval: float | None = None,
        initial: HostSnapshot | None = None,
        bench_source: BenchSource | None = None,
        history_loader: Callable[[], History | None] | None = None,
    ) -> None:
        """Build the app over an opened session.

        Args:
            session: from `nastui.session.open_session`.
            ascii_only: draw with plain ASCII (serial consoles).
            live: keep polling; False polls once (snapshot tests, screenshots).
            poll_interval: seconds between polls (default: the config's I/O interval).
            initial: a snapshot taken just before the start: the first frame shows it, and
                (while live) the first poll of the app's own comes an interval later.
            bench_source: where the bench screen runs (default: the session's machine, or the
                demo's modelled drive).
            history_loader: opens the history after the first frame (the session has none yet).
        """
        super().__init__(ansi_color=True)
        install_changed_cells_only()  # a partial update writes the changed cells, no more
        self._history_loader = history_loader
        self._history_started = False
        self.session = session
        self.bench_source = bench_source
        self.ascii_only = ascii_only
        self.glyphs: Glyphs = glyphs_for(ascii_only)
        if self.driver_class is LinuxDriver:
            self.driver_class = QuietLinuxDriver  # no 10 Hz wake-ups while idle
        if ascii_only:
            self.driver_class = ascii_driver(self.driver_class)
            # Before anything is styled: added once mounted, it restyled every widget again.
            self.add_class("-ascii", update=False)
        self._live = live
        # Live, the first paint is held until the first snapshot is laid out (see `on_mount`).
        self._holding_first_paint = live
        self._interval = poll_interval or session.config.poll.io_s
        self._wake = asyncio.Event()
        self._swap_lines: tuple[str, ...] = ()
        self._local: HostSnapshot | None = initial  # the box alone, before the fleet's alerts
        self.mode_before_help = "dashboard"
        if initial is not None:
            self.set_reactive(NastuiApp.snapshot, initial)
        # The variables the stylesheet was made with (in `App.__init__`), until it is refreshed.
        self._first_css_variables: dict[str, str] | None = dict(self.theme_variables)
        # Textual keeps one scrollbar renderer for the process: set it either way.
        ScrollBar.renderer = AsciiScrollBar if ascii_only else ScrollBarRender

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Textual's notification, always as plain text (`markup` is ignored): every message
        nastui shows carries paths, serials, pool, zone and host names and tools' errors as
        they are, so a typed target "/tmp/[/]x" ended the interface on a MarkupError and
        "[bold]" vanished from a name."""
        del markup
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=False)

    def refresh_css(self, animate: bool = True) -> None:
        """Parse the stylesheets again with the theme's variables, and restyle.

        Textual does it as it sets up the first screen too, before anything was styled with
        other variables: a whole parse of every stylesheet again before the first frame, after
        which the dashboard's widgets' own were parsed anew with all the others (a refresh
        empties the parse cache). That first one is skipped while the variables are the ones
        the stylesheet was made with; every later one runs."""
        first, self._first_css_variables = self._first_css_variables, None
        if first is not None and self.get_css_variables() == first:
            return
        super().refresh_css(animate)

    @property
    def live(self) -> bool:
        """Polling on (False: one poll, for tests and screenshots)."""
        return self._live

    @property
    def holding_first_paint(self) -> bool:
        """Nothing has been painted yet, and nothing will be until the first snapshot is laid
        out (`on_mount`)."""
        return self._holding_first_paint

    @property
    def limits(self) -> Thresholds:
        """The configured thresholds."""
        return self.session.config.thresholds

    def on_mount(self) -> None:
        # Hold the first paint until the first snapshot has been laid out: Textual would
        # otherwise paint the screen three times on start-up (empty, laid out, filled), and
        # each full frame costs most of a second on a 115200-baud serial console. (Not when
        # polling once, for tests and screenshots: they read the screen, not the terminal.)
        if self._live:
            self._begin_batch()
            self.set_timer(STARTUP_HOLD_MAX_S, self._release_first_paint)
        if self._local is not None:
            # The snapshot taken before the start is on the screens already (they were
            # composed with it): shown as every later one is, it is the first frame's.
            self._publish(self._local)
        self.poll_forever()
        if not self._live:
            self._background()

    def _release_first_paint(self) -> None:
        """Paint: the first snapshot is laid out, or it took longer than `STARTUP_HOLD_MAX_S`.
        What the first frame does not show (the fleet, the history) starts after it."""
        if not self._holding_first_paint:
            return
        self._holding_first_paint = False
        self._end_batch()
        paint_now(self.screen)
        self.call_after_refresh(self._background)

    def _background(self) -> None:
        """Start what the first frame does not wait for: the fleet's polls and the history.
        While live, the history's load (a thread sharing the interpreter) starts once the
        fleet's first poll has been painted, which completes the first frame, or at the latest
        `HISTORY_WAIT_S` after the first paint: started with it, it slowed that poll."""
        self.poll_fleet()
        if self._live:
            self.set_timer(HISTORY_WAIT_S, self._start_history)
        else:
            self._start_history()

    def _start_history(self) -> None:
        """Load the history, once."""
        if self._history_loader is not None and not self._history_started:
            self._history_started = True
            self.load_history()

    @work(exclusive=True, group="history", exit_on_error=False)
    async def load_history(self) -> None:
        """Open the history off the event loop, then put its last day in the store."""
        if self._history_loader is not None:
            history = await asyncio.to_thread(self._history_loader)
            attach_history(self.session, history)

    def on_unmount(self) -> None:
        if self.session.fleet is not None:
            self.session.fleet.close()

    @work(exclusive=True, group="poll", exit_on_error=False)
    async def poll_forever(self) -> None:
        """Collect, assess and publish; once, or every interval while live (the first time an
        interval after the snapshot the app was given, if any: that one is fresh)."""
        if self._live and self._local is not None:
            await self._wait_interval()
        while True:
            snapshot = await self.session.poll(wait=POLL_SMART_WAIT_S)
            self.post_message(SnapshotReady(snapshot))
            if not self._live:
                return
            await self._wait_interval()

    async def _wait_interval(self) -> None:
        """Until the next poll is due, or `poll_now` asks for one."""
        self._wake.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._wake.wait(), self._interval)

    @work(exclusive=True, group="fleet", exit_on_error=False)
    async def poll_fleet(self) -> None:
        """Poll the remote hosts; once, or every `poll.fleet_s` while live. A worker of its
        own, so a slow or hanging host never holds up the local panes. The fleet is set up
        here, off the event loop, if the source left it for later."""
        fleet = self.session.fleet or await asyncio.to_thread(self.session.open_fleet)
        if fleet is None:
            self._start_history()
            return
        while True:
            self.post_message(FleetReady(await fleet.poll()))
            if not self._live:
                return
            await asyncio.sleep(self.session.config.poll.fleet_s)

    def poll_now(self) -> None:
        """Collect again right away (after an action): wake the loop, or poll once more."""
        if self._live:
            self._wake.set()
        else:
            self.poll_forever()

    def clear_selection(self) -> None:
        """Clear the text selection, if there is a screen to hold one yet.

        On Python 3.12+ Textual runs with asyncio's eager task factory, so the first screen of
        a mode is composed and its widgets mounted before that screen is on the mode's stack;
        an `Input` among them clears the selection while mounting and `self.screen` raises
        `ScreenStackError` (Textual issue 6444), which killed the interface at start. A screen
        not on a stack yet holds no selection: there is nothing to clear.
        """
        with contextlib.suppress(ScreenStackError):
            super().clear_selection()

    async def action_switch_mode(self, mode: str) -> None:
        """Switch screens, remembering where help was opened from (Esc there goes back)."""
        if mode == "help" and self.current_mode != "help":
            self.mode_before_help = self.current_mode
        await super().action_switch_mode(mode)

    def on_snapshot_ready(self, message: SnapshotReady) -> None:
        self._publish(message.snapshot)

    def _publish(self, polled: HostSnapshot) -> None:
        """Show a polled snapshot (as the swap in progress explains it, with the fleet's
        alerts); the held first paint goes once it is laid out."""
        snapshot, lines = self._swap_view(polled)
        self._local = snapshot
        self.snapshot = self._with_fleet(snapshot)
        self._swap_notice(tuple(lines))
        if self._holding_first_paint:
            self.call_after_refresh(self._release_first_paint)

    def _swap_view(self, snapshot: HostSnapshot) -> tuple[HostSnapshot, list[str]]:
        """`snapshot` as the swap in progress explains it, and the swap's lines. The swap's
        code is loaded only when there may be one (`Session.may_keep_swap`)."""
        if not self.session.may_keep_swap():
            return snapshot, []
        from nastui.swap.flow.status import Pointers, swap_view

        keys = Pointers("w on its bay", "a on its screen")
        shown, lines, _ = swap_view(self.session, snapshot, keys)
        return shown, lines

    def _with_fleet(self, local: HostSnapshot) -> HostSnapshot:
        """The box's snapshot with its fleet's alerts (`[[ups]]`es, `[[host]]`s: each naming
        its host, acknowledged as `nastui alert ack` left them) among its own, as the daemon
        sends them: the header and the alerts panel show them (a UPS's as the box's own power)."""
        hosts = self.fleet or ()
        if not hosts:
            return local
        from nastui.core.fleetview import fleet_alert_list, with_alerts  # with the first poll

        return with_alerts(
            local, fleet_alert_list(hosts, self.session.alert_acks(), local.taken_at)
        )

    def _swap_notice(self, lines: tuple[str, ...]) -> None:
        """A swap in progress (picked up on start) and a wrong pull, on whatever screen is up."""
        if lines == self._swap_lines:
            return
        self._swap_lines = lines
        for line in lines:
            critical = line.startswith("CRITICAL")
            self.notify(line, severity="error" if critical else "information", timeout=20)

    def on_fleet_ready(self, message: FleetReady) -> None:
        self.fleet = message.hosts
        if self._local is not None:
            merged = self._with_fleet(self._local)
            if self.snapshot is None or merged.alerts != self.snapshot.alerts:
                self.snapshot = merged
        self.call_after_refresh(self._start_history)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR and event.worker.error is not None:
            error = event.worker.error
            self.notify(
                f"{type(error).__name__}: {error}", title="collector failed", severity="error"
            )

    async def toggle_locate(self, bay: int) -> None:
        """Switch a bay's locate LED through the control layer and say what happened."""
        snapshot = self.snapshot
        slot = snapshot.slot(bay) if snapshot else None
        on = not (slot is not None and slot.locate_lit)
        result = await self.session.locator.locate(bay, on)
        self.notify(result.message, severity="information" if result.ok else "warning")
        self.poll_now()


# The one factory the CLI, tests and screenshots use: the class itself (see `NastuiApp.__init__`).
make_app = NastuiApp
