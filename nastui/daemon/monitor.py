"""One cycle of `nastui daemon`: collect, assess, decide what to tell, tell it, remember.

    poll the local host (and the fleet when due) -> alerts with acknowledgements applied ->
    the alert engine (new / worse / repeat / recovered) and one-off events -> one batch per
    host through every notifier -> the alert book, the alert log, the history and the latest
    snapshot (for `nastui snmp-agent` and `nastui export`) written.

The alert book is saved after every cycle that changed it, so a restart mid-incident does not
send again what was sent. When every notifier failed, the book is not advanced: the same notices
are tried again next cycle rather than lost. Each host's last snapshot is kept in the history
too (for events after a restart), rewritten only when what events compare (its pools) changed;
the local snapshot is encoded once per cycle, for that and for latest.json.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from nastui.collectors.base import FleetSource
from nastui.control.acks import remove_alert_ack
from nastui.control.latest import write_public
from nastui.control.statefile import StateError
from nastui.core.ack import apply_alert_acks
from nastui.core.alerting import (
    AlertBook,
    AlertPolicy,
    decode_book,
    encode_book,
    evaluate,
    prune_alert_acks,
)
from nastui.core.assess import fleet_alerts
from nastui.core.codec import dumps, loads
from nastui.core.events import events, same_for_events
from nastui.core.prometheus import render
from nastui.daemon.delivery import Delivery, deliver
from nastui.daemon.fanlog import Log
from nastui.history.db import History, HistoryError
from nastui.model import Acknowledgement, Alert, FleetHost, HostSnapshot, Notice
from nastui.notify.base import Notifier
from nastui.session import Session

BOOK = "alert-book"
PRUNE_EVERY_S = 86400.0


@dataclass
class MonitorState:
    """What the monitor carries from one cycle to the next."""

    book: AlertBook
    previous: dict[str, HostSnapshot] = field(default_factory=dict)
    fleet: tuple[FleetHost, ...] = ()
    fleet_polled_at: float | None = None
    pruned_at: float | None = None
    kept_book: str | None = None  # the alert book's text as last written to the history
    kept: dict[str, HostSnapshot] = field(default_factory=dict)  # each `latest:HOST` written


class Monitor:
    """The daemon's cycle; `step` is one of it."""

    def __init__(
        self,
        session: Session,
        history: History,
        notifiers: Sequence[Notifier],
        log: Log,
        *,
        latest_path: Path | None,
        fleet: FleetSource | None = None,
        keep_days: float = 90.0,
        prometheus: Path | None = None,
    ) -> None:
        self.session = session
        self.history = history
        self.notifiers = tuple(notifiers)
        self.log = log
        self.latest_path = latest_path
        self.fleet = fleet
        self.keep_days = keep_days
        self.prometheus = prometheus
        alerts = session.config.alerts
        self.policy = AlertPolicy(repeat_interval_s=alerts.repeat_interval_s)
        text = self.history.state(BOOK)
        self.state = MonitorState(book=self._load_book(text), kept_book=text)

    def _load_book(self, text: str | None) -> AlertBook:
        if text is None:
            return AlertBook()
        try:
            return decode_book(text, f"{self.history.path} ({BOOK})")
        except ValueError as exc:
            self.log.warning(f"{exc}; starting with an empty alert book")
            return AlertBook()

    def previous(self, host: str) -> HostSnapshot | None:
        """The last snapshot of `host` seen, from this run or the history (for events)."""
        if host in self.state.previous:
            return self.state.previous[host]
        text = self.history.state(f"latest:{host}")
        if text is None:
            return None
        try:
            return loads(text, f"{self.history.path} (latest:{host})")
        except ValueError:
            return None

    async def _poll_fleet(self, now: float) -> tuple[FleetHost, ...]:
        due = self.state.fleet_polled_at is None or (
            now - self.state.fleet_polled_at >= self.session.config.poll.fleet_s
        )
        if self.fleet is not None and due:
            self.state.fleet = await self.fleet.poll()
            self.state.fleet_polled_at = now
        return self.state.fleet

    async def step(self) -> list[Delivery]:
        """One cycle; returns how the notices went (empty when there was nothing to say)."""
        snapshot = await self.session.poll()
        now = self.session.clock.now()
        fleet = await self._poll_fleet(now)
        acks = (*self.history.acks(), *self.session.alert_acks())  # acks.json wins a tie
        alerts: list[Alert] = list(snapshot.alerts)
        for host in fleet:
            alerts.extend(fleet_alerts(host, now))
        alerts = list(apply_alert_acks(alerts, acks, now))
        book, notices = evaluate(self.state.book, alerts, acks, self.policy, now)
        snapshots = [snapshot, *(h.snapshot for h in fleet if h.snapshot is not None)]
        extra: list[Notice] = []
        for current in snapshots:
            extra.extend(events(self.previous(current.host), current, now))
        deliveries = await self._tell([*notices, *extra], snapshot.host)
        delivered = all(d.delivered for d in deliveries)
        if delivered:
            self.state.book = book
            for current in snapshots:
                self.state.previous[current.host] = current
            self._forget_acks(acks, book, now)
        local = dataclasses.replace(
            snapshot, alerts=tuple(a for a in alerts if a.host in ("", snapshot.host))
        )
        text = dumps(local)
        self._remember(book if delivered else None, snapshots, now, {snapshot.host: text})
        self._publish(local, text)
        return deliveries

    def _forget_acks(self, acks: Sequence[Acknowledgement], book: AlertBook, now: float) -> None:
        keep = {a.key for a in prune_alert_acks(acks, book, now)}
        try:
            for ack in acks:
                if ack.key not in keep:
                    self.history.remove_ack(ack.key)
                    if self.session.state_dir is not None:
                        remove_alert_ack(self.session.state_dir, ack.key)
                    self.log.info(f"acknowledgement of {ack.key} lapsed")
        except (HistoryError, StateError) as exc:
            self.log.error(str(exc))

    async def _tell(self, notices: Sequence[Notice], local: str) -> list[Delivery]:
        by_host: dict[str, list[Notice]] = {}
        for notice in notices:
            by_host.setdefault(notice.alert.host or local, []).append(notice)
        deliveries = []
        for host, batch in by_host.items():
            for notice in batch:
                alert = notice.alert
                where = host if alert.name == host else f"{host} {alert.name}"
                self.log.info(
                    f"alert {notice.kind.value} {alert.health.name} {where}: {alert.message}"
                )
            delivery = await deliver(self.notifiers, host, batch)
            for name, error in delivery.results:
                if error is not None:
                    self.log.warning(f"alert to {name} not delivered: {error}")
            self.history.log_notices(host, batch, delivery.describe())
            deliveries.append(delivery)
        return deliveries

    def _remember(
        self,
        book: AlertBook | None,
        snapshots: Sequence[HostSnapshot],
        now: float,
        encoded: Mapping[str, str],
    ) -> None:
        """Write the book and each host's last snapshot when changed (`encoded`: host -> a
        snapshot's text already made), the history's rows, and prune once a day."""
        try:
            if book is not None:
                self._keep_book(encode_book(book))
                for current in snapshots:
                    self._keep_latest(current, encoded)
            for current in snapshots:
                self.history.record(current)
            if self.state.pruned_at is None or now - self.state.pruned_at >= PRUNE_EVERY_S:
                self.history.prune(now, self.keep_days)
                self.state.pruned_at = now
        except HistoryError as exc:
            self.log.error(str(exc))

    def _keep_book(self, text: str) -> None:
        if text != self.state.kept_book:
            self.history.put_state(BOOK, text)
            self.state.kept_book = text

    def _keep_latest(self, current: HostSnapshot, encoded: Mapping[str, str]) -> None:
        if same_for_events(self.state.kept.get(current.host), current):
            return
        text = encoded.get(current.host) or dumps(current)
        self.history.put_state(f"latest:{current.host}", text)
        self.state.kept[current.host] = current

    def _publish(self, snapshot: HostSnapshot, text: str) -> None:
        if self.latest_path is not None:
            try:
                write_public(self.latest_path, text)
            except OSError as exc:
                self.log.error(f"latest snapshot {self.latest_path}: {exc}")
        if self.prometheus is not None:
            try:
                write_public(self.prometheus, render(snapshot))
            except OSError as exc:
                self.log.error(f"prometheus file {self.prometheus}: {exc}")
