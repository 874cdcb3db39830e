"""Sending a batch through a notifier without ever blocking the loop for long, and how it went.

Each host's notices go out as one batch per notifier (one mail for three new alerts, not three),
in a worker thread with a deadline (`send_within`): a mail server that hangs costs one cycle at
most, and the daemon keeps collecting. The outcome per notifier is kept as text for the alert
log (`Delivery`). Which batches go to which notifier, and when, is `nastui.daemon.postman`'s.
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


async def send_within(
    notifier: Notifier, host: str, notices: Sequence[Notice], deadline_s: float = DEADLINE_S
) -> str | None:
    """Send one batch through one notifier in a worker thread; None when it was taken, else
    the one-line error (no answer within the deadline is one)."""
    batch = tuple(notices)
    try:
        return await asyncio.wait_for(
            asyncio.to_thread(send_one, notifier, host, batch), deadline_s
        )
    except TimeoutError:
        return f"no answer within {deadline_s:g} s; sending goes on in the background"
