"""Notifiers: tell an operator about alerts by mail, an exec hook, a webhook or apprise.

`notifiers_from(config.alerts, os.environ)` builds the configured ones; each has a `name` and a
blocking `send(host, notices)` raising `NotifyError` (one line, never a password). `send_one`
delivers a batch through one of them (the daemon's `deliver` runs it per notifier in a worker
thread), `send_all` through each in turn, `send_test` a TEST notice (`nastui alert test`). Texts
and the JSON schema are in `nastui.notify.message`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from nastui.config.schema import AlertsConfig
from nastui.model import Alert, Health, Notice, NoticeKind, Subject
from nastui.notify.apprisehook import AppriseNotifier
from nastui.notify.base import Notifier, NotifyError, send_one
from nastui.notify.exechook import ExecNotifier
from nastui.notify.smtp import EmailNotifier
from nastui.notify.webhook import WebhookNotifier

__all__ = [
    "AppriseNotifier",
    "EmailNotifier",
    "ExecNotifier",
    "Notifier",
    "NotifyError",
    "Outcome",
    "WebhookNotifier",
    "notifiers_from",
    "probe_notice",
    "send_all",
    "send_one",
    "send_test",
]

Outcome = tuple[str, str | None]  # (notifier name, error or None)


def notifiers_from(config: AlertsConfig, env: Mapping[str, str]) -> list[Notifier]:
    """The configured notifiers, in the order email, exec hook, webhook, apprise targets.

    Args:
        config: the `[alerts]` section.
        env: where `password_env` is looked up (pass `os.environ`).
    """
    found: list[Notifier] = []
    if config.email is not None:
        found.append(EmailNotifier(config.email, env))
    if config.exec_hook:
        found.append(ExecNotifier(config.exec_hook))
    if config.webhook:
        found.append(WebhookNotifier(config.webhook))
    found.extend(AppriseNotifier(target, env) for target in config.apprise)
    return found


def send_all(notifiers: Sequence[Notifier], host: str, notices: Sequence[Notice]) -> list[Outcome]:
    """Send one batch through every notifier, one failure not stopping the others.

    Returns:
        (name, None) for each delivery, (name, the one-line error) for each failure.
    """
    return [(notifier.name, send_one(notifier, host, notices)) for notifier in notifiers]


def probe_notice(host: str, now: float) -> Notice:
    """The TEST notice `nastui alert test` sends."""
    alert = Alert(
        key="test",
        health=Health.OK,
        subject=Subject.HOST,
        name=host,
        message="test message",
        since=now,
        host=host,
    )
    return Notice(NoticeKind.TEST, alert, at=now)


def send_test(notifiers: Sequence[Notifier], host: str, now: float) -> list[Outcome]:
    """Send a test message through every notifier (`nastui alert test`).

    Returns:
        (name, None) for each delivery, (name, the one-line error) for each failure.
    """
    return send_all(notifiers, host, [probe_notice(host, now)])
