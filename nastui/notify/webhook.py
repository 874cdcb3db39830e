"""The webhook: `WebhookNotifier` POSTs each batch as JSON to the `[alerts] webhook` URL.

The body is the JSON document of `nastui.notify.message` (Content-Type application/json). Three
headers make an ntfy topic URL (https://ntfy.sh/<topic>) show a readable notification with no
further setup, and other receivers ignore them:
    Title      the mail subject ("[nastui] nano: CRITICAL bay 13 sdk: ...")
    Priority   5 for critical, 4 for warning, 3 otherwise (ntfy's scale)
    Tags       rotating_light, warning, white_check_mark or information_source
A user and password in the URL (https://user:pass@host/...) are sent as HTTP basic auth.

Any 2xx status is delivered; anything else, including a redirect, is an error (a POST silently
turned into a GET by a redirect would be a fake success). Certificates are verified against
the system's CA store. The URL's path and query are shown as "/…" in names and errors, since
they are often the secret (an ntfy topic, a Slack hook token).
"""

from __future__ import annotations

import base64
import http.client
import socket
import ssl
import urllib.error
import urllib.request
from collections.abc import Sequence
from email.header import Header
from urllib.parse import urlsplit, urlunsplit

from nastui.core.redact import SECRETS
from nastui.model import Health, Notice, NoticeKind
from nastui.notify import message
from nastui.notify.base import NotifyError

TIMEOUT_S = 10.0
USER_AGENT = "nastui"


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Turns every redirect into an HTTPError instead of following it."""

    def redirect_request(self, *_args: object, **_kwargs: object) -> None:
        return None


def shown_url(url: str) -> str:
    """The URL without credentials, path or query: "https://ntfy.sh/…"."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = f"{host}:{parts.port}" if parts.port else host
    tail = "/…" if parts.path.strip("/") or parts.query else "/"
    return f"{parts.scheme}://{netloc}{tail}"


def headers(host: str, notices: Sequence[Notice]) -> dict[str, str]:
    """The request headers for a batch: JSON content type and ntfy's Title, Priority, Tags."""
    batch = message.ordered(notices)
    lead = batch[0] if batch else None
    title = message.subject(host, batch)
    return {
        "Content-Type": "application/json; charset=utf-8",
        "User-Agent": USER_AGENT,
        # Non-ASCII goes RFC 2047 encoded: HTTP headers are Latin-1, ntfy decodes this form.
        "Title": title if title.isascii() else Header(title, "utf-8").encode(),
        "Priority": str(_priority(lead)),
        "Tags": _tag(lead),
    }


def _priority(lead: Notice | None) -> int:
    if lead is None or lead.kind in (NoticeKind.RECOVERED, NoticeKind.TEST):
        return 3
    return {Health.CRITICAL: 5, Health.WARNING: 4}.get(lead.alert.health, 3)


def _tag(lead: Notice | None) -> str:
    if lead is not None and lead.kind is NoticeKind.RECOVERED:
        return "white_check_mark"
    health = lead.alert.health if lead is not None and lead.kind is not NoticeKind.TEST else None
    return {Health.CRITICAL: "rotating_light", Health.WARNING: "warning"}.get(
        health or Health.OK, "information_source"
    )


class WebhookNotifier:
    """POSTs each batch to one URL."""

    def __init__(
        self, url: str, *, timeout: float = TIMEOUT_S, context: ssl.SSLContext | None = None
    ) -> None:
        """Args:
        url: an http:// or https:// URL, optionally with user:password@.
        timeout: seconds for connecting and for the answer.
        context: TLS settings; default: the system CA store with host name checks.
        """
        self.url = url
        SECRETS.add_url(url)  # a webhook's path often is its token (Slack, Discord)
        self._timeout = timeout
        tls = urllib.request.HTTPSHandler(context=context or ssl.create_default_context())
        self._opener = urllib.request.build_opener(_NoRedirect(), tls)

    @property
    def name(self) -> str:
        """ "webhook https://ntfy.sh/…"."""
        return f"webhook {shown_url(self.url)}"

    def send(self, host: str, notices: Sequence[Notice]) -> None:
        """POST the batch (nothing for an empty one).

        Raises:
            NotifyError: no 2xx answer; one line with the status or the network error.
        """
        if not notices:
            return
        request = self._request(host, notices)
        try:
            with self._opener.open(request, timeout=self._timeout) as response:
                response.read()
        except urllib.error.HTTPError as exc:
            raise NotifyError(f"{self.name}: {_status(exc)}") from None
        except urllib.error.URLError as exc:
            reason = exc.reason if isinstance(exc.reason, OSError) else None
            text = _network(reason) if reason else str(exc.reason)
            raise NotifyError(f"{self.name}: {text}") from None
        except (OSError, http.client.HTTPException) as exc:
            raise NotifyError(f"{self.name}: {_network(exc)}") from None

    def _request(self, host: str, notices: Sequence[Notice]) -> urllib.request.Request:
        parts = urlsplit(self.url)
        hdrs = headers(host, notices)
        url = self.url
        if parts.username is not None:
            hostport = parts.netloc.rpartition("@")[2]
            url = urlunsplit(parts._replace(netloc=hostport))
            pair = f"{parts.username}:{parts.password or ''}".encode()
            hdrs["Authorization"] = "Basic " + base64.b64encode(pair).decode()
        data = message.to_json(host, notices).encode()
        return urllib.request.Request(url, data=data, headers=hdrs, method="POST")


def _status(exc: urllib.error.HTTPError) -> str:
    code = exc.code
    if 300 <= code < 400:
        return f"redirected (HTTP {code}): put the final URL in [alerts] webhook"
    try:
        detail = " ".join(exc.read(300).decode("utf-8", "replace").split())[:160]
    except OSError:
        detail = ""
    fix = {
        401: "check the user and password in the URL",
        403: "check the user and password in the URL, and its access rights",
        404: "check the URL",
    }.get(code, "check the receiving service")
    extra = f" {detail}" if detail else ""
    return f"HTTP {code} {exc.reason}{extra}: {fix}"


def _network(exc: BaseException) -> str:
    if isinstance(exc, ssl.SSLCertVerificationError):
        return (
            f"certificate verify failed ({exc.verify_message}): install the server's CA in the "
            "system store, or use the name on its certificate"
        )
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused: is the service running, and is the port right?"
    if isinstance(exc, TimeoutError):
        return "no answer in time: check the URL and firewalls"
    if isinstance(exc, socket.gaierror):
        return f"cannot resolve the host name ({exc.strerror}): check the URL and DNS"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__
