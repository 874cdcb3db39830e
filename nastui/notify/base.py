"""The notifier seam: `Notifier` (a name and `send`), `NotifyError` (one line for operators) and
`send_one`, the one way a batch goes through a notifier (the daemon and `nastui alert test`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from nastui.model import Notice


class NotifyError(Exception):
    """A notification could not be delivered.

    The message is one line naming the notifier, what went wrong and the fix, e.g.
    "email via smtp.example.org:587: connection refused: is the mail server up, is 587 its
    port?". It never contains a password.
    """


class Notifier(Protocol):
    """One configured way to reach an operator (mail, a hook, a webhook)."""

    @property
    def name(self) -> str:
        """What it is, for logs and `nastui alert test`: "email to a@example.org via ..."."""
        ...

    def send(self, host: str, notices: Sequence[Notice]) -> None:
        """Deliver one batch of notices about `host`; blocking (call it from a worker thread).

        Raises:
            NotifyError: it was not delivered (the message says why and what to do).
        """
        ...


def send_one(notifier: Notifier, host: str, notices: Sequence[Notice]) -> str | None:
    """Send one batch through `notifier`; None when it went, else the one-line error (a bug in
    the notifier too: it must not take the caller down)."""
    try:
        notifier.send(host, notices)
    except NotifyError as exc:
        return str(exc)
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return None
