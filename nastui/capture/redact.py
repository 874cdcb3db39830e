"""The configuration with its secrets removed, for a bundle that is mailed around.

The file is parsed and written again from its values, so no comment (where anyone may have
noted a password) comes along. Then, wherever they are:
- values of keys that name a secret (SNMP `community`, `auth_password`, `priv_password`, any
  `*password*`, `*secret*`, `*token*`, an apprise `url`) become "REDACTED";
- URLs keep only their scheme and, for http(s), their host and port: credentials, paths and
  queries go (a webhook's path is often its token; an apprise URL holds it in the host part);
- an `exec` hook keeps its program, not its arguments.
Files named for secrets (`password_file`, `url_file`, `*_password_file`) stay named: their
contents are never read. What stays still loads as a configuration (so it replays).
"""

from __future__ import annotations

import re
import tomllib
from typing import Any
from urllib.parse import urlsplit

import tomlkit

REDACTED = "REDACTED"
# Sample: community  auth_password  priv_password  password  api_token  client_secret  url
_SECRET_KEY = re.compile(r"pass|secret|token|community|credential|^url$|(^|_)key$")
_FILE_OR_ENV = re.compile(r"_(file|env)$")
# Sample: https://user:pw@hooks.example.org:8443/services/T0/B0/XYZ?x=1  tgram://123:abc/456
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


class RedactError(ValueError):
    """The configuration is not TOML (it would not have loaded either)."""


def redact_url(url: str) -> str:
    """Scheme and, for http(s), host and port; the rest (credentials, path, query) removed."""
    parts = urlsplit(url.strip())
    if parts.scheme in ("http", "https") and parts.hostname:
        port = f":{parts.port}" if parts.port else ""
        rest = f"/{REDACTED}" if parts.path.strip("/") or parts.query or parts.username else ""
        return f"{parts.scheme}://{parts.hostname}{port}{rest}"
    return f"{parts.scheme}://{REDACTED}"


def _secret_key(key: str) -> bool:
    return not _FILE_OR_ENV.search(key) and _SECRET_KEY.search(key.lower()) is not None


def _value(key: str, value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _value(k, v) for k, v in value.items()}
    if isinstance(value, list):
        if key == "exec":
            return [value[0], *(REDACTED for _ in value[1:])] if value else value
        return [_value(key, v) for v in value]
    if isinstance(value, str):
        if _secret_key(key):
            return REDACTED
        if _URL.match(value.strip()):
            return redact_url(value)
    return value


def redacted(text: str) -> str:
    """The configuration `text` without secrets or comments (see the module docstring).

    Raises:
        RedactError: it is not TOML.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RedactError(f"not TOML: {exc}") from None
    clean = {key: _value(key, value) for key, value in data.items()}
    head = "# nastui capture: the configuration with secrets and comments removed\n"
    return head + tomlkit.dumps(clean)
