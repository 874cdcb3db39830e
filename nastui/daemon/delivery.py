"""Sending one cycle's notices through every notifier, without ever blocking the loop for long.

Each host's notices go out as one batch per notifier (one mail for three new alerts, not three),
in a worker thread with a deadline: a mail server that hangs costs one cycle at most, and the
daemon keeps collecting. The outcome per notifier is kept as text for the alert log.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

from nastui.model import Notice
from nastui.notify.base import Notifier, send_one

DEADLINE_S = 60.0


@dataclass(frozen=True, slots=True)
class Delivery:
    """How one batch went.

    Attributes:
        host: the host the notices are about.
        notices: what was sent.
        results: (notifier name, error or None) per notifier.
    """

    host: str
    notices: tuple[Notice, ...]
    results: tuple[tuple[str, str | None], ...]

    @property
    def delivered(self) -> bool:
        """At least one notifier took it (or there is no notifier: then it is only logged)."""
        return not self.results or any(error is None for _, error in self.results)

    def describe(self) -> str:
        """For the alert log: "email to a@b: sent; webhook https://...: HTTP 500 ..."."""
        if not self.results:
            return "not sent: no notifier configured"
        return "; ".join(f"{name}: {error or 'sent'}" for name, error in self.results)


async def deliver(
    notifiers: Sequence[Notifier],
    host: str,
    notices: Sequence[Notice],
    deadline_s: float = DEADLINE_S,
) -> Delivery:
    """Send `notices` about `host` through every notifier at once; each within the deadline."""
    batch = tuple(notices)

    async def one(notifier: Notifier) -> tuple[str, str | None]:
        try:
            error = await asyncio.wait_for(
                asyncio.to_thread(send_one, notifier, host, batch), deadline_s
            )
        except TimeoutError:
            error = f"no answer within {deadline_s:g} s; sending goes on in the background"
        return notifier.name, error

    results = await asyncio.gather(*(one(n) for n in notifiers))
    return Delivery(host, batch, tuple(results))
