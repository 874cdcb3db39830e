"""Secrets kept out of log lines: what nastui read as a secret, and credentials in any URL.

`--verbose` and `--debug` send every log record to stderr, third-party libraries' too, and
apprise logs the URLs it posts to, tokens in their paths ("JSON POST URL:
http://host/hooks/T0KEN"). So the secrets nastui reads (an apprise URL, the SMTP password,
SNMP communities and passwords, the BMC password) are registered here when they are read
(`SECRETS.add`, `SECRETS.add_url`), and `RedactingFilter` on the log handler replaces them, and
whatever looks like a credential in a URL (`user:PASSWORD@`, `?token=...`), by "…" in every
record before it is written.

Pure: no I/O; the registry is this process's.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Iterable

HIDDEN = "…"
MIN_SECRET = 4  # shorter pieces ("1", "tcp", "api") would mask ordinary words
MIN_TOKEN = 8  # a piece of a URL masked in every log line: a token, not a word
# Sample: tgram://123456:ABCdef/987654
_SCHEME = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]{0,31})://")
# Sample: tgram://123456:ABCdef/987654 -> "123456", "ABCdef", "987654"
_PARTS = re.compile(r"[/:@?&=#]+")
# Sample: json://alice:S3cret@127.0.0.1/hook  (the password of a URL's user information)
_USERINFO = re.compile(r"(?P<head>[A-Za-z][A-Za-z0-9+.-]*://[^\s/@:]*):[^\s/@]+@")
# Sample: https://ntfy.example/alerts?auth=QUJD&token=xyz
_QUERY_SECRET = re.compile(
    r"(?P<key>[?&;](?:[A-Za-z_-]*(?:token|key|secret|password|passwd|pass|auth|sig|signature)"
    r"[A-Za-z_-]*)=)[^&;#\s]+",
    re.IGNORECASE,
)


def url_parts(url: str) -> list[str]:
    """The pieces of a URL after its scheme that could be secret (tokens, users, hosts, paths),
    longest first."""
    scheme = _SCHEME.match(url)
    rest = url[scheme.end() :] if scheme else url
    parts = {p for p in _PARTS.split(rest) if len(p) >= MIN_SECRET}
    return sorted(parts, key=len, reverse=True)


def token_parts(url: str) -> list[str]:
    """The pieces of a URL that look like tokens (8 characters or more, with a digit or with
    both cases: "123456789", "AAHdqTcvCH1vGWJx"), not words a log line may hold ("hooks")."""
    return [
        p
        for p in url_parts(url)
        if len(p) >= MIN_TOKEN
        and (any(c.isdigit() for c in p) or (p.lower() != p and p.upper() != p))
    ]


def mask_parts(text: str, parts: Iterable[str]) -> str:
    """`text` with each of `parts` (longest first) replaced by "…"."""
    for part in sorted(parts, key=len, reverse=True):
        text = text.replace(part, HIDDEN)
    return text


def mask_credentials(text: str) -> str:
    """`text` with the password of every `scheme://user:password@` and the value of every
    secret-looking query parameter (`?token=`, `&apikey=`) replaced by "…"."""
    text = _USERINFO.sub(lambda m: f"{m['head']}:{HIDDEN}@", text)
    return _QUERY_SECRET.sub(lambda m: f"{m['key']}{HIDDEN}", text)


class Secrets:
    """The secrets this process has read, to be masked wherever they show up."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._known: tuple[str, ...] = ()

    def add(self, value: str | None) -> None:
        """Register a secret (a password, a community); short ones are not masked."""
        if value and len(value.strip()) >= MIN_SECRET:
            self._extend([value.strip()])

    def add_url(self, url: str | None) -> None:
        """Register a URL that carries a secret: the whole of it, and each piece of it that
        looks like a token (a token shows up alone in a derived URL: apprise's tgram:// becomes
        https://api.telegram.org/botTOKEN/...)."""
        if url and url.strip():
            self._extend([url.strip(), *token_parts(url.strip())])

    def _extend(self, values: list[str]) -> None:
        with self._lock:
            known = set(self._known) | set(values)
            self._known = tuple(sorted(known, key=len, reverse=True))

    def mask(self, text: str) -> str:
        """`text` with every registered secret and URL credential replaced by "…"."""
        return mask_credentials(mask_parts(text, self._known))


SECRETS = Secrets()


class RedactingFilter(logging.Filter):
    """Masks `SECRETS` and URL credentials in each record (its message with its arguments,
    and its exception's text), for the handler it is attached to."""

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage()
        masked = SECRETS.mask(text)
        if masked != text:
            record.msg, record.args = masked, None
        if record.exc_info and record.exc_info[1] is not None:
            exc = record.exc_info[1]
            shown = SECRETS.mask(str(exc))
            if shown != str(exc):  # the exception's own text names a secret: say it masked
                record.exc_info = None
                record.msg, record.args = f"{masked} ({type(exc).__name__}: {shown})", None
        return True
