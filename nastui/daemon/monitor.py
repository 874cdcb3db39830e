"""One cycle of `nastui daemon`: collect, assess, decide what to tell, tell it, remember.

    poll the local host (and the fleet when due) -> alerts (a drive swap's wrong pull or second
    failure among them: `nastui.swap.logic.alerts`; a notifier that does not deliver) with
    acknowledgements applied -> the alert engine (new / worse / repeat / recovered) and one-off
    events -> one batch per host, owed to every notifier (`nastui.daemon.outbox`) -> the book
    and the outbox committed (fsync) -> each host's last snapshot kept -> what is due sent
    (`nastui.daemon.postman`; each batch taken committed at once) -> the alert log, the
    history and the latest snapshot (for `nastui snmp-agent` and `nastui export`) written.

The book and the outbox are committed before anything is sent, so a restart (even after a
SIGKILL) neither repeats what was sent (but the batch a notifier was sending at that moment)
nor loses what was decided. A notifier that fails keeps what it is owed until it answers.
Each host's last snapshot is kept in the history too (for events after a restart), rewritten
only when what events compare (its pools) changed, after the commit and before sending; the
local snapshot is encoded once per cycle, for that and for latest.json. Every write goes
through `nastui.daemon.keeper.Keeper`, which never lets a full disk or a damaged history file
stop the cycle (and raises the storage alert, which joins the others here).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from nastui.collectors.base import FleetSource
from nastui.control.acks import remove_alert_ack
from nastui.control.statefile import StateError
from nastui.core.ack import apply_alert_acks
from nastui.core.alerting import AlertBook, AlertPolicy, evaluate, prune_alert_acks
from nastui.core.assess import fleet_alerts
from nastui.core.clock import due
from nastui.core.codec import dumps, loads
from nastui.core.events import events
from nastui.core.metrics.render import families, format_families
from nastui.daemon.delivery import Delivery
from nastui.daemon.keeper import Keeper
from nastui.daemon.metrics_http import MetricsServer
from nastui.daemon.postman import Postman
from nastui.daemonlog import Log
from nastui.history.db import History
from nastui.model import (
    Acknowledgement,
    Alert,
    FleetHost,
    Health,
    HostSnapshot,
    Notice,
    NoticeKind,
    Subject,
)
from nastui.notify.base import Notifier
from nastui.selftest.flow.duty import SelftestDuty
from nastui.session import Session
from nastui.swap.flow.status import alerts_with_swap

PRUNE_EVERY_S = 86400.0
CYCLE_KEY = "daemon:cycle"


@dataclass
class MonitorState:
    """What the monitor carries from one cycle to the next."""

    book: AlertBook
    previous: dict[str, HostSnapshot] = field(default_factory=dict)
    fleet: tuple[FleetHost, ...] = ()
    fleet_polled_at: float | None = None
    pruned_at: float | None = None


class Monitor:
    """The daemon's cycle; `step` is one of it."""

    def __init__(
        self,
        session: Session,
        history: History | Keeper,
        notifiers: Sequence[Notifier],
        log: Log,
        *,
        latest_path: Path | None,
        fleet: FleetSource | None = None,
        keep_days: float = 90.0,
        prometheus: Path | None = None,
        metrics: MetricsServer | None = None,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.session = session
        self.keeper = history if isinstance(history, Keeper) else Keeper(history, log)
        self.notifiers = tuple(notifiers)
        self.log = log
        self.latest_path = latest_path
        self.fleet = fleet
        self.keep_days = keep_days
        self.prometheus = prometheus
        self.metrics = metrics
        alerts = session.config.alerts
        self.policy = AlertPolicy(repeat_interval_s=alerts.repeat_interval_s)
        book, self.outbox = self.keeper.load()
        self.state = MonitorState(book=book)
        self.postman = Postman(notifiers, log, monotonic=monotonic)
        self._monotonic = monotonic
        self._fleet_every = session.config.poll.fleet_s
        self._dropped_told = 0  # /metrics connections dropped, as last logged
        self._dropped_at: float | None = None
        self._failure: str | None = None  # the failing cycle's error, while it lasts
        self._swap_error: str | None = None  # the swap file's, while it lasts
        self._host = session.config.hostname or "localhost"
        self.selftests = SelftestDuty(session, log)  # SMART self-tests (issue 16)

    @property
    def history(self) -> History:
        """The history file in use (a new one after a damaged one was moved aside)."""
        return self.keeper.history

    def previous(self, host: str) -> HostSnapshot | None:
        """The last snapshot of `host` seen, from this run or the history (for events)."""
        if host in self.state.previous:
            return self.state.previous[host]
        text = self.keeper.state(f"latest:{host}")
        if text is None:
            return None
        try:
            return loads(text, f"{self.history.path} (latest:{host})")
        except ValueError:
            return None

    async def _poll_fleet(self) -> tuple[FleetHost, ...]:
        tick = self._monotonic()  # the fleet's schedule never follows a wall clock set back
        if self.fleet is not None and due(self.state.fleet_polled_at, tick, self._fleet_every):
            self.state.fleet = await self.fleet.poll()
            self.state.fleet_polled_at = tick
        return self.state.fleet

    async def cycle(self) -> list[Delivery]:
        """`step`, for the loop: a cycle that fails unexpectedly is logged in one line and sent
        once as a CRITICAL alert (`CYCLE_KEY`) while it keeps failing; the daemon goes on."""
        try:
            deliveries = await self.step()
        except Exception as exc:  # an unforeseen failure must not end the watch
            return await self._cycle_failed(f"{type(exc).__name__}: {exc}")
        if self._failure is not None:
            self.log.info("daemon: cycles work again")
            self._failure = None
        return deliveries

    async def _cycle_failed(self, text: str) -> list[Delivery]:
        if text == self._failure:
            return []
        self._failure = text
        self.log.error(
            f"daemon: a cycle failed: {text} (a bug: please report it); "
            "still running, trying again every period"
        )
        now = self.session.clock.now()
        message = f"the monitoring cycle fails ({text}): nothing is watched until it works again"
        alert = Alert(CYCLE_KEY, Health.CRITICAL, Subject.HOST, "nastui daemon", message, now)
        return await self._tell([Notice(NoticeKind.FIRING, alert, now)], self._host, now)

    async def step(self) -> list[Delivery]:
        """One cycle; returns how the notices went (empty when there was nothing to say)."""
        self.keeper.begin()
        snapshot = await self.session.poll()
        self._host = snapshot.host
        now = self.session.clock.now()
        fleet = await self._poll_fleet()
        acks = (*self.keeper.acks(), *self.session.alert_acks())  # acks.json wins a tie
        own = [*self.keeper.alerts(now), *self.postman.alerts(snapshot.host)]
        alerts = self._with_swap(snapshot, [*snapshot.alerts, *own])
        for host in fleet:
            alerts.extend(fleet_alerts(host, now))
        alerts = list(apply_alert_acks(alerts, acks, now))
        book, notices = evaluate(self.state.book, alerts, acks, self.policy, now)
        snapshots = [snapshot, *(h.snapshot for h in fleet if h.snapshot is not None)]
        extra: list[Notice] = []
        for current in snapshots:
            extra.extend(events(self.previous(current.host), current, now))
        # SMART self-tests: a newly failed one is sent once; starts and results are recorded.
        tests = await self.selftests.cycle(snapshot, now)
        if tests is not None:
            extra.extend(tests.notices)
            if tests.lines:
                self.keeper.log_notices(snapshot.host, tests.records(snapshot.host, now), "kept")
        local = dataclasses.replace(
            snapshot, alerts=tuple(a for a in alerts if a.host in ("", snapshot.host))
        )
        text = dumps(local)
        self.state.book = book
        deliveries = await self._tell(
            [*notices, *extra], snapshot.host, now, snapshots, {snapshot.host: text}
        )
        self._forget_acks(acks, book, now)
        self._remember(snapshots, now)
        self._publish(local, text)
        self._export(local, fleet, alerts)
        self.keeper.end(now)
        return deliveries

    def _with_swap(self, snapshot: HostSnapshot, alerts: list[Alert]) -> list[Alert]:
        """`alerts` with a swap's wrong pull or second failure
        (`nastui.swap.flow.status.alerts_with_swap`); a swap file that cannot be read is logged
        once, while it lasts."""
        out, error = alerts_with_swap(self.session, snapshot, alerts)
        if error is not None and error != self._swap_error:
            self.log.error(error)
        self._swap_error = error
        return out

    def _forget_acks(self, acks: Sequence[Acknowledgement], book: AlertBook, now: float) -> None:
        keep = {a.key for a in prune_alert_acks(acks, book, now)}
        lapsed = [ack.key for ack in acks if ack.key not in keep]
        if not lapsed:
            return
        done = set(self.keeper.remove_acks(lapsed))
        state_dir = self.session.state_dir
        try:
            done |= {k for k in lapsed if state_dir is not None and remove_alert_ack(state_dir, k)}
        except StateError as exc:
            self.log.error(str(exc))
        for key in sorted(done):
            self.log.info(f"acknowledgement of {key} lapsed")

    async def _tell(
        self,
        notices: Sequence[Notice],
        local: str,
        now: float,
        snapshots: Sequence[HostSnapshot] = (),
        encoded: Mapping[str, str] | None = None,
    ) -> list[Delivery]:
        """Owe the notices (one batch per host) to every notifier, commit the book and the
        outbox, keep the snapshots events compare with, then send what is due."""
        by_host: dict[str, list[Notice]] = {}
        for notice in notices:
            by_host.setdefault(notice.alert.host or local, []).append(notice)
        fresh = []
        unsent = []
        for host, batch in by_host.items():
            for notice in batch:
                alert = notice.alert
                where = host if alert.name == host else f"{host} {alert.name}"
                self.log.info(
                    f"alert {notice.kind.value} {alert.health.name} {where}: {alert.message}"
                )
            owed = self.outbox.add(host, batch, self.postman.names)
            if owed is not None:
                fresh.append(owed)
            elif not self.postman.names:
                unsent.append(Delivery(host, tuple(batch), ()))
        for dropped in self.outbox.trim(now):
            self.log.warning(
                f"alerts: {len(dropped.notices)} notice(s) about {dropped.host} dropped "
                f"unsent to {', '.join(dropped.owed)} (kept a week or 1000 batches at most)"
            )
        self.keeper.commit(self.state.book, self.outbox)  # decided: owed even after a kill
        if snapshots:
            self.keeper.keep_latest(snapshots, encoded or {})
            for current in snapshots:
                self.state.previous[current.host] = current
        deliveries = await self.postman.post(
            self.outbox, lambda: self.keeper.commit(self.state.book, self.outbox), now, fresh, local
        )
        for delivery in [*unsent, *deliveries]:
            self.keeper.log_notices(delivery.host, delivery.notices, delivery.describe())
        return [*unsent, *deliveries]

    def _remember(self, snapshots: Sequence[HostSnapshot], now: float) -> None:
        """Write the history's rows and the book's copy, and prune once a day."""
        prune = None
        if due(self.state.pruned_at, now, PRUNE_EVERY_S):

            def prune(history: History) -> None:
                history.prune(now, self.keep_days)
                self.state.pruned_at = now

        self.keeper.keep(snapshots, prune)

    def _publish(self, snapshot: HostSnapshot, text: str) -> None:
        if self.latest_path is not None:
            self.keeper.publish("latest snapshot", self.latest_path, text)

    def _export(
        self, local: HostSnapshot, fleet: Sequence[FleetHost], alerts: Sequence[Alert]
    ) -> None:
        """The metrics of this cycle (the local host and the fleet, each host's alerts as
        the engine saw them: acknowledgements applied, an unreachable host's included) to the
        textfile and the `/metrics` endpoint."""
        if self.prometheus is None and self.metrics is None:
            return
        hosts = [
            dataclasses.replace(
                member,
                snapshot=dataclasses.replace(
                    member.snapshot, alerts=tuple(a for a in alerts if a.host == member.name)
                ),
            )
            if member.snapshot is not None
            else member
            for member in fleet
        ]
        found = families(local, self.session.config.thresholds, hosts)
        if self.prometheus is not None:
            self.keeper.publish("prometheus file", self.prometheus, format_families(found))
        if self.metrics is not None:
            self.metrics.publish(found)
            self._metrics_pressure()

    def _metrics_pressure(self) -> None:
        """Say, at most hourly, that /metrics closes connections unanswered (someone holds it
        open): the endpoint is bounded, the alerts are not affected."""
        assert self.metrics is not None
        dropped = self.metrics.counts.dropped
        tick = self._monotonic()
        if dropped > self._dropped_told and due(self._dropped_at, tick, 3600.0):
            self.log.warning(
                f"metrics: {dropped - self._dropped_told} connection(s) to /metrics closed "
                "unanswered (held open without a whole request, or over the limit of 16): "
                "scrapes may be slower, alerts are not affected"
            )
            self._dropped_told, self._dropped_at = dropped, tick
