"""The `[[host]]` tables: remote NAS and UPS boxes polled over SNMP (v2c or v3).

An SNMPv3 password is given directly (`auth_password`), or better as a file holding it
(`auth_password_file`, relative paths taken from the configuration file's directory) or a
variable naming it (`auth_password_env`); files and variables are read at poll time.
"""

from __future__ import annotations

import re
from pathlib import Path

from nastui.config.keys import HOST_KEYS, PASSWORDS, V3_KEYS
from nastui.config.remote import HostConfig, SnmpProfile
from nastui.config.validate_base import Section, check_unique
from nastui.config.validate_values import MAX_RETRIES, MAX_TIMEOUT_S, one_of

VERSIONS = ("2c", "3")
AUTH_PROTOCOLS = ("MD5", "SHA", "SHA-224", "SHA-256", "SHA-384", "SHA-512")
# net-snmp's -x names (Debian's libsnmp40 has no 3DES).
PRIV_PROTOCOLS = ("DES", "AES", "AES-128", "AES-192", "AES-256")
MIN_PASSWORD = 8  # RFC 3414: USM pass phrases are at least 8 characters

# Sample: NASTUI_UPS_AUTH
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def read_hosts(root: Section, base: Path | None = None) -> tuple[HostConfig, ...]:
    """The `[[host]]` tables, names unique; `base` is where relative password files start
    (the configuration file's directory; None: the current directory)."""
    tables = root.tables("host")
    check_unique(tables, "name", "name")
    hosts = (_host(sec, base or Path()) for sec in tables)
    return tuple(host for host in hosts if host is not None)


def _host(sec: Section, base: Path) -> HostConfig | None:
    sec.check_keys(HOST_KEYS)
    name = sec.text("name", required=True)
    address = sec.text("address", required=True)
    version = _version(sec)
    if version == "3":
        sec.require("user", "SNMPv3 needs a user name")
        if sec.has("community"):
            sec.report("community", f'{sec.name("community")} is only used with version = "2c"')
    else:
        for key in V3_KEYS:
            if sec.has(key):
                sec.report(key, f'{sec.name(key)} is only used with version = "3"')
    host = HostConfig(
        name or "",
        address or "",
        port=sec.integer("port", 161, low=1, high=65535),
        profile=sec.choice("profile", SnmpProfile, SnmpProfile.NET_SNMP),
        version=version,
        community=sec.text("community") or "public",
        user=sec.text("user"),
        auth_protocol=_protocol(sec, "auth_protocol", AUTH_PROTOCOLS, "SHA"),
        auth_password=_password(sec, "auth_password"),
        priv_protocol=_protocol(sec, "priv_protocol", PRIV_PROTOCOLS, "AES"),
        priv_password=_password(sec, "priv_password"),
        timeout_s=sec.number("timeout", 1.0, positive=True, high=MAX_TIMEOUT_S, unit="seconds"),
        retries=sec.integer("retries", 1, low=0, high=MAX_RETRIES),
        auth_password_file=_password_file(sec, "auth_password", base),
        auth_password_env=_password_env(sec, "auth_password"),
        priv_password_file=_password_file(sec, "priv_password", base),
        priv_password_env=_password_env(sec, "priv_password"),
    )
    _check_sources(sec)
    return host if name and address else None


def _sources(sec: Section, key: str) -> list[str]:
    return [k for k in (key, f"{key}_file", f"{key}_env") if sec.has(k)]


def _check_sources(sec: Section) -> None:
    """Each password from one place; a priv password only with an auth password."""
    for key in PASSWORDS:
        given = _sources(sec, key)
        if len(given) > 1:
            sec.report(given[1], f"{sec.key} sets both {given[0]} and {given[1]}; keep one")
    priv = _sources(sec, "priv_password")
    if priv and not _sources(sec, "auth_password"):
        sec.report(priv[0], f"{sec.name(priv[0])} needs auth_password too")


def _password_file(sec: Section, key: str, base: Path) -> Path | None:
    name = f"{key}_file"
    value = sec.text(name)
    if value is None:
        return None
    if value.startswith("~"):
        sec.wrong(name, "an absolute path or one relative to this file (no ~)")
        return None
    return base / value


def _password_env(sec: Section, key: str) -> str | None:
    name = f"{key}_env"
    value = sec.text(name)
    if value is not None and not _ENV_NAME.fullmatch(value):
        sec.wrong(name, "an environment variable name (letters, digits, _)")
        return None
    return value


def _version(sec: Section) -> str:
    value = sec.table.get("version", "2c")
    if value in VERSIONS:
        return str(value)
    sec.wrong("version", f"{one_of(VERSIONS)} (a string)")
    return "2c"


def _protocol(sec: Section, key: str, allowed: tuple[str, ...], default: str) -> str:
    value = sec.text(key)
    if value is None:
        return default
    if value.strip().upper() in allowed:
        return value.strip().upper()
    sec.wrong(key, one_of(allowed))
    return default


def _password(sec: Section, key: str) -> str | None:
    value = sec.text(key)
    if value is not None and len(value) < MIN_PASSWORD:
        sec.report(key, f"{sec.name(key)} must be at least {MIN_PASSWORD} characters (SNMPv3)")
        return None
    return value
