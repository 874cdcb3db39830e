"""Delivering what the outbox owes, each notifier on its own schedule.

Every cycle, each notifier that is due is given what it is owed (`nastui.daemon.outbox`),
oldest first, one batch at a time; each batch it takes is recorded at once (`commit`: the
book's file, fsync'd) before the next is sent. Notifiers work side by side: a slow mail server
delays no webhook.

A notifier that fails stops there, keeps what it is owed, and is tried again after 1 minute,
then 2, 4, ... up to 1 hour (`FIRST_RETRY_S`, `MAX_RETRY_S`, on the monotonic clock): a dead
mail server costs a handful of attempts an hour instead of one every cycle (360). From its
second failure in a row it is one WARNING alert, `daemon:notifier:NAME` ("email to ... does
not deliver: ..."), which goes out through the other notifiers (and to it too, once it
answers); it clears when a delivery works again, and then everything it missed goes out, in
order.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from nastui.daemon.delivery import DEADLINE_S, Delivery, send_within
from nastui.daemon.outbox import Batch, Outbox
from nastui.daemonlog import Log
from nastui.model import Alert, Health, Subject
from nastui.notify.base import Notifier

FIRST_RETRY_S = 60.0
MAX_RETRY_S = 3600.0
DOWN_AFTER = 2  # failures in a row before the notifier's own alert
KEY_PREFIX = "daemon:notifier:"


def retry_delay(failures: int) -> float:
    """Seconds before the next attempt after `failures` failures in a row (1 min doubling,
    at most 1 h)."""
    doublings = min(max(failures - 1, 0), 32)
    return min(MAX_RETRY_S, FIRST_RETRY_S * float(1 << doublings))


def notifier_key(name: str) -> str:
    """The alert key of a notifier that does not deliver ("daemon:notifier:email-to-...")."""
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:60]
    return KEY_PREFIX + (slug or "notifier")


def unique_names(notifiers: Sequence[Notifier]) -> list[str]:
    """Each notifier's name, made unique with "#2", "#3" where two are alike."""
    seen: dict[str, int] = {}
    names = []
    for notifier in notifiers:
        count = seen.get(notifier.name, 0) + 1
        seen[notifier.name] = count
        names.append(notifier.name if count == 1 else f"{notifier.name} #{count}")
    return names


@dataclass
class Standing:
    """A notifier's record of failures."""

    failures: int = 0
    retry_at: float = 0.0  # monotonic time of the next attempt
    down_since: float | None = None  # wall time of the first failure in the row
    error: str = ""


class Postman:
    """The notifiers, what each is owed and when each is tried next."""

    def __init__(
        self,
        notifiers: Sequence[Notifier],
        log: Log,
        *,
        monotonic: Callable[[], float] = time.monotonic,
        deadline_s: float = DEADLINE_S,
    ) -> None:
        self.notifiers = dict(zip(unique_names(notifiers), notifiers, strict=True))
        self.log = log
        self._monotonic = monotonic
        self._deadline_s = deadline_s
        self.standing = {name: Standing() for name in self.notifiers}

    @property
    def names(self) -> list[str]:
        """The notifiers' (unique) names."""
        return list(self.notifiers)

    def alerts(self, host: str) -> list[Alert]:
        """One WARNING alert per notifier that failed `DOWN_AFTER` times in a row."""
        found = []
        for name, state in self.standing.items():
            if state.failures < DOWN_AFTER or state.down_since is None:
                continue
            wait = max(0.0, state.retry_at - self._monotonic())
            message = (
                f"{name} does not deliver ({state.error}); {state.failures} attempts failed, "
                f"next in {wait / 60:.0f} min; what it missed is kept and sent when it works"
            )
            found.append(
                Alert(
                    notifier_key(name),
                    Health.WARNING,
                    Subject.HOST,
                    name,
                    message,
                    state.down_since,
                    host=host,
                )
            )
        return found

    async def post(
        self,
        outbox: Outbox,
        commit: Callable[[], None],
        now: float,
        fresh: Sequence[Batch],
        box: str = "",
    ) -> list[Delivery]:
        """Give each due notifier what it is owed; `commit` after each batch taken. Returns a
        `Delivery` for each batch tried or new this cycle (`fresh`), for the alert log. Each
        batch is sent as `box` (the box the daemon runs on: its name in the subject and the
        footer), whichever host its alerts are about (a fleet host, a UPS)."""
        tried: dict[int, list[tuple[str, str | None]]] = {b.seq: [] for b in fresh}
        batches = {b.seq: b for b in outbox.batches}

        async def one(name: str) -> None:
            if self._monotonic() < self.standing[name].retry_at:
                return
            for batch in outbox.owed_to(name):
                error = await send_within(
                    self.notifiers[name], box or batch.host, batch.notices, self._deadline_s
                )
                tried.setdefault(batch.seq, []).append((name, error))
                if error is not None:
                    self._failed(name, error, now)
                    return
                outbox.taken(batch.seq, name)
                commit()  # before the next batch: a kill now repeats nothing
                self._worked(name)

        await asyncio.gather(*(one(name) for name in self.notifiers))
        for batch in fresh:  # owed, not tried: its notifier is waiting to retry
            named = {name for name, _ in tried[batch.seq]}
            tried[batch.seq] += [
                (name, self._waiting(self.standing[name]))
                for name in self.notifiers
                if name not in named
            ]
        return [
            Delivery(batches[seq].host, batches[seq].notices, tuple(tried[seq]))
            for seq in sorted(tried)
            if seq in batches
        ]

    def _waiting(self, state: Standing) -> str:
        wait = max(0.0, state.retry_at - self._monotonic())
        return f"queued: failing ({state.error}), next try in {wait:.0f} s"

    def _failed(self, name: str, error: str, now: float) -> None:
        state = self.standing[name]
        state.failures += 1
        state.error = error
        state.down_since = state.down_since if state.down_since is not None else now
        delay = retry_delay(state.failures)
        state.retry_at = self._monotonic() + delay
        self.log.warning(f"alert to {name} not delivered: {error}; kept, next try in {delay:.0f} s")

    def _worked(self, name: str) -> None:
        state = self.standing[name]
        if state.failures:
            self.log.info(f"alerts: {name} delivers again after {state.failures} failure(s)")
        self.standing[name] = Standing()
