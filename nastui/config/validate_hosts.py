"""The `[[host]]` tables: remote NAS and UPS boxes polled over SNMP (v2c or v3)."""

from __future__ import annotations

from nastui.config.schema import HostConfig, SnmpProfile
from nastui.config.validate_base import Section, check_unique
from nastui.config.validate_values import one_of

HOST_KEYS = (
    "name",
    "address",
    "port",
    "profile",
    "version",
    "community",
    "user",
    "auth_protocol",
    "auth_password",
    "priv_protocol",
    "priv_password",
    "timeout",
    "retries",
)
V3_KEYS = ("user", "auth_protocol", "auth_password", "priv_protocol", "priv_password")
VERSIONS = ("2c", "3")
AUTH_PROTOCOLS = ("MD5", "SHA", "SHA-224", "SHA-256", "SHA-384", "SHA-512")
PRIV_PROTOCOLS = ("DES", "3DES", "AES", "AES-128", "AES-192", "AES-256")
MIN_PASSWORD = 8  # RFC 3414: USM pass phrases are at least 8 characters


def read_hosts(root: Section) -> tuple[HostConfig, ...]:
    """The `[[host]]` tables, names unique."""
    tables = root.tables("host")
    check_unique(tables, "name", "name")
    return tuple(host for host in map(_host, tables) if host is not None)


def _host(sec: Section) -> HostConfig | None:
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
        timeout_s=sec.number("timeout", 1.0, positive=True, unit="seconds"),
        retries=sec.integer("retries", 1, low=0),
    )
    if host.priv_password and not host.auth_password:
        sec.report("priv_password", f"{sec.name('priv_password')} needs auth_password too")
    return host if name and address else None


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
