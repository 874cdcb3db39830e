"""apprise: `AppriseNotifier` sends each batch to one apprise URL (Telegram, Discord, Pushover,
Gotify, ntfy, Matrix and about a hundred more; https://github.com/caronc/apprise/wiki).

apprise is an optional extra (`pip install 'nastui[apprise]'`), imported at send time: without
it the notifier fails with one line saying how to install it. The URL carries the service's
token, so it is read at send time from a file (first line) or an environment variable, and is
never shown: errors say only its scheme ("apprise phone (tgram://…)"), and any part
of the URL that shows up in apprise's own log line is masked.

The title is the mail subject, the body the plain-text mail body; the notification type follows
the worst notice (critical: failure, warning: warning, recovered: success, else info).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping, Sequence
from typing import Any

from nastui.config.alerting import AppriseConfig
from nastui.core.redact import SECRETS, mask_parts, url_parts
from nastui.model import Health, Notice, NoticeKind
from nastui.notify import message
from nastui.notify.base import NotifyError
from nastui.safeio import SECRET_LIMIT, read_bounded

MISSING = (
    "apprise is not installed: pip install 'nastui[apprise]' (pipx: pipx inject nastui apprise)"
)
# Sample: tgram://123456:ABCdef/987654
_SCHEME = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]{0,31})://")


def notify_type(notices: Sequence[Notice]) -> str:
    """apprise's notification type for a batch: "failure", "warning", "success" or "info"."""
    batch = message.ordered(notices)
    lead = batch[0] if batch else None
    if lead is None or lead.kind is NoticeKind.TEST:
        return "info"
    if lead.kind is NoticeKind.RECOVERED:
        return "success"
    return {Health.CRITICAL: "failure", Health.WARNING: "warning"}.get(lead.alert.health, "info")


def mask(text: str, url: str) -> str:
    """`text` with every part of `url` longer than 3 characters (tokens, hosts, users)
    replaced by "…", the scheme kept."""
    return mask_parts(text, url_parts(url))


class _LastError(logging.Handler):
    """Keeps the last warning or error apprise logged while sending."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.last: str | None = None

    def emit(self, record: logging.LogRecord) -> None:
        self.last = " ".join(record.getMessage().split())


class AppriseNotifier:
    """Sends each batch to one apprise URL.

    Args:
        config: the target's name and where its URL is read from.
        env: where `url_env` is looked up (pass `os.environ`).
    """

    def __init__(self, config: AppriseConfig, env: Mapping[str, str]) -> None:
        self.config = config
        self._env = env
        self._scheme: str | None = None

    @property
    def name(self) -> str:
        """ "apprise phone" (the configured name: the URL is a secret)."""
        return f"apprise {self.config.name}"

    def _shown(self) -> str:
        """The name with the URL's scheme once read: "apprise phone (tgram://…)"."""
        return f"{self.name} ({self._scheme}://…)" if self._scheme else self.name

    def send(self, host: str, notices: Sequence[Notice]) -> None:
        """Deliver the batch (nothing for an empty one).

        Raises:
            NotifyError: apprise is missing, the URL is missing or unknown to apprise, or the
                service did not take the message; one line, the URL masked.
        """
        if not notices:
            return
        url = self._url()
        try:
            import apprise
        except ImportError:
            raise NotifyError(f"{self.name}: {MISSING}") from None
        sender: Any = apprise.Apprise()
        if not sender.add(url):
            raise NotifyError(
                f"{self._shown()}: apprise does not know this URL: check it against "
                "https://github.com/caronc/apprise/wiki"
            )
        caught = _LastError()
        log = logging.getLogger("apprise")
        log.addHandler(caught)
        try:
            sent = sender.notify(
                body=message.body(host, notices),
                title=message.subject(host, notices),
                notify_type=notify_type(notices),
                body_format="text",
            )
        finally:
            log.removeHandler(caught)
        if not sent:
            why = mask(caught.last, url)[:200] if caught.last else "no reason given"
            raise NotifyError(
                f"{self._shown()}: not delivered ({why}): check the URL and the service"
            )

    def _url(self) -> str:
        """The URL's first line, from the file or the variable (read now, never cached)."""
        cfg = self.config
        if cfg.url_file is not None:
            try:
                text = read_bounded(cfg.url_file, SECRET_LIMIT).decode("utf-8")
            except (OSError, UnicodeError) as exc:
                why = (exc.strerror if isinstance(exc, OSError) else None) or str(exc)
                raise NotifyError(
                    f"{self.name}: cannot read url_file {cfg.url_file}: {why}"
                ) from None
            source = f"url_file {cfg.url_file}"
        else:
            text = self._env.get(cfg.url_env or "", "")
            source = f"url_env {cfg.url_env}"
        url = text.strip().splitlines()[0].strip() if text.strip() else ""
        scheme = _SCHEME.match(url)
        if scheme is None:
            raise NotifyError(
                f"{self.name}: {source} holds no apprise URL (scheme://...): write the URL there"
            )
        self._scheme = scheme["scheme"].lower()
        SECRETS.add_url(url)  # masked in every log line from now on (apprise logs its URLs)
        return url
