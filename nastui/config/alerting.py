"""Where alert mail goes (`[alerts.email]`) and the apprise targets (`[[alerts.apprise]]`):
read by the notifiers and the loader; `AlertsConfig` (`nastui.config.schema`) holds them."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path


class Security(StrEnum):
    """SMTP transport security."""

    STARTTLS = "starttls"
    TLS = "tls"
    NONE = "none"


@dataclass(frozen=True, slots=True)
class EmailConfig:
    """SMTP settings for alert mail; the password comes from a file or the environment."""

    to: tuple[str, ...]
    sender: str
    host: str
    port: int = 587
    security: Security = Security.STARTTLS
    username: str | None = None
    password_file: Path | None = None
    password_env: str | None = None


@dataclass(frozen=True, slots=True)
class AppriseConfig:
    """One apprise target (`[[alerts.apprise]]`): Telegram, Discord, Pushover, Gotify, ntfy,
    Matrix, ... Its URL holds the token, so it comes from a file (first line; relative paths
    already joined to the config file's directory) or an environment variable, read at send
    time.

    Attributes:
        name: shown in logs and `nastui alert test` instead of the URL.
        url_file, url_env: where the apprise URL is read from (exactly one is set).
    """

    name: str
    url_file: Path | None = None
    url_env: str | None = None
