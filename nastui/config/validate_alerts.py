"""The `[alerts]` section: repeat interval, an exec hook, a webhook, `[alerts.email]` and
`[[alerts.apprise]]`.

Secrets never live in the configuration: the SMTP password comes from `password_file` (a path,
relative ones taken from the configuration file's directory) or `password_env` (a variable name).
"""

from __future__ import annotations

import re
from email.utils import parseaddr
from pathlib import Path
from urllib.parse import urlsplit

from nastui.config.alerting import AppriseConfig, EmailConfig, Security
from nastui.config.keys import ALERT_KEYS, APPRISE_KEYS, EMAIL_KEYS, REFUSED_KEYS
from nastui.config.schema import AlertsConfig
from nastui.config.validate_base import Section, check_unique
from nastui.config.validate_values import YEAR_S

DEFAULT_PORTS = {Security.STARTTLS: 587, Security.TLS: 465, Security.NONE: 25}

# Sample: nas@example.org
_ADDRESS = re.compile(r"[^@\s<>]+@[^@\s<>]+")
# Sample: NASTUI_SMTP_PASSWORD
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def read_alerts(root: Section, base: Path) -> AlertsConfig:
    """Alert delivery; `base` is the directory relative `password_file` paths start from."""
    sec = root.table_at("alerts")
    if sec is None:
        return AlertsConfig()
    sec.check_keys(ALERT_KEYS)
    email = sec.table_at("email")
    return AlertsConfig(
        email=_email(email, base) if email else None,
        exec_hook=sec.strings("exec"),
        webhook=_webhook(sec),
        repeat_interval_s=sec.number(
            "repeat_interval",
            AlertsConfig().repeat_interval_s,
            positive=True,
            high=YEAR_S,
            unit="seconds",
        ),
        apprise=_apprise(sec, base),
    )


def _apprise(sec: Section, base: Path) -> tuple[AppriseConfig, ...]:
    """The `[[alerts.apprise]]` targets: a name and the file or variable holding the URL."""
    tables = sec.tables("apprise")
    check_unique(tables, "name", "name")
    found: list[AppriseConfig] = []
    for target in tables:
        if target.has("url"):
            target.report(
                "url",
                f"{target.name('url')} is not allowed: an apprise URL holds the service's token; "
                "name a file holding it with url_file, or a variable with url_env",
            )
        target.check_keys(APPRISE_KEYS, REFUSED_KEYS["alerts.apprise"])
        name = target.text("name", required=True)
        url_file = _path(target, "url_file", base)
        url_env = target.text("url_env")
        if url_env is not None and not _ENV_NAME.fullmatch(url_env):
            target.wrong("url_env", "an environment variable name (letters, digits, _)")
        given = [k for k in ("url_file", "url_env") if target.has(k)]
        if len(given) != 1 and not target.has("url"):
            target.report(
                given[1] if given else None,
                f"{target.key} needs exactly one of url_file and url_env",
            )
        if name and len(given) == 1:
            found.append(AppriseConfig(name, url_file, url_env))
    return tuple(found)


def _webhook(sec: Section) -> str | None:
    url = sec.text("webhook")
    if url is None:
        return None
    parts = urlsplit(url.strip())
    if parts.scheme in ("http", "https") and parts.netloc:
        return url.strip()
    sec.wrong("webhook", "an http:// or https:// URL")
    return None


def _email(sec: Section, base: Path) -> EmailConfig | None:
    if sec.has("password"):
        sec.report(
            "password",
            f"{sec.name('password')} is not allowed: never store secrets in the config; name a "
            "file holding the password with password_file, or a variable with password_env",
        )
    sec.check_keys(EMAIL_KEYS, REFUSED_KEYS["alerts.email"])
    to = _addresses(sec, "to", single=False)
    sender = _addresses(sec, "from", single=True)
    host = sec.text("host", required=True)
    security = sec.choice("security", Security, Security.STARTTLS)
    port = sec.integer("port", DEFAULT_PORTS[security], low=1, high=65535)
    username, password_file, password_env = _login(sec, base)
    if not (to and sender and host):
        return None
    return EmailConfig(to, sender[0], host, port, security, username, password_file, password_env)


def _addresses(sec: Section, key: str, *, single: bool) -> tuple[str, ...]:
    """Mail addresses ("nas@example.org" or "NAS <nas@example.org>")."""
    if not sec.require(key):
        return ()
    values = (sec.text(key),) if single else sec.strings(key, single=True)
    for value in values:
        if value is not None and not _ADDRESS.fullmatch(parseaddr(value)[1]):
            sec.report(key, f"{sec.name(key)} {value!r} is not a mail address")
            return ()
    return tuple(v for v in values if v)


def _login(sec: Section, base: Path) -> tuple[str | None, Path | None, str | None]:
    username = sec.text("username")
    password_file = _password_file(sec, base)
    password_env = sec.text("password_env")
    if password_env is not None and not _ENV_NAME.fullmatch(password_env):
        sec.wrong("password_env", "an environment variable name (letters, digits, _)")
    if password_file and password_env:
        sec.report("password_env", f"{sec.key} sets both password_file and password_env; keep one")
    # A refused `password` counts as one here: its own message says what to do instead.
    if username and not any(sec.has(k) for k in ("password_file", "password_env", "password")):
        sec.report(
            "username",
            f"{sec.name('username')} needs a password: set password_file or password_env",
        )
    if not username and (sec.has("password_file") or sec.has("password_env")):
        sec.report(None, f"{sec.key} has a password but no username; set {sec.name('username')}")
    return username, password_file, password_env


def _password_file(sec: Section, base: Path) -> Path | None:
    return _path(sec, "password_file", base)


def _path(sec: Section, key: str, base: Path) -> Path | None:
    value = sec.text(key)
    if value is None:
        return None
    if value.startswith("~"):
        sec.wrong(key, "an absolute path or one relative to this file (no ~)")
        return None
    return base / value
