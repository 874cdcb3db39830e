"""What to poll and how it went wrong: `SnmpTarget`, `SnmpError` and the one-line messages.

`target_for(host)` turns a configured `[[host]]` into a target, reading SNMPv3 passwords from
their file or environment variable at poll time (so a rotated secret needs no restart).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from nastui.config.remote import HostConfig
from nastui.config.validate_hosts import MIN_PASSWORD
from nastui.core.redact import SECRETS
from nastui.safeio import SECRET_LIMIT, read_bounded

V2C = "2c"
V3 = "3"

# usmStats counters an agent reports a refused SNMPv3 request with (RFC 3414), by last arc.
USM_STATS = (1, 3, 6, 1, 6, 3, 15, 1, 1)
_USM_REPORTS = {
    1: "usmStatsUnsupportedSecLevels",
    2: "usmStatsNotInTimeWindows",
    3: "usmStatsUnknownUserNames",
    4: "usmStatsUnknownEngineIDs",
    5: "usmStatsWrongDigests",
    6: "usmStatsDecryptionErrors",
}
# Names of error-status values (RFC 3416).
ERROR_STATUS = (
    "noError",
    "tooBig",
    "noSuchName",
    "badValue",
    "readOnly",
    "genErr",
    "noAccess",
    "wrongType",
    "wrongLength",
    "wrongEncoding",
    "wrongValue",
    "noCreation",
    "inconsistentValue",
    "resourceUnavailable",
    "commitFailed",
    "undoFailed",
    "authorizationError",
    "notWritable",
    "inconsistentName",
)


class SnmpError(Exception):
    """A request that failed; `str()` is one line naming the host and the likely fix."""


@dataclass(frozen=True, slots=True)
class SnmpTarget:
    """One agent and the credentials to read it with.

    Attributes:
        address: host name or IP address.
        port: UDP port.
        version: "2c" or "3".
        community: the v2c community.
        user: the v3 user; authPriv when both passwords are set, authNoPriv with only
            `auth_password`, noAuthNoPriv with neither.
        auth_protocol, priv_protocol: net-snmp names ("SHA", "SHA-256", "AES").
        timeout_s, retries: per request; a dead host costs timeout_s * (retries + 1).
    """

    address: str
    port: int = 161
    version: str = V2C
    community: str = field(default="public", repr=False)
    user: str | None = None
    auth_protocol: str = "SHA"
    auth_password: str | None = field(default=None, repr=False)
    priv_protocol: str = "AES"
    priv_password: str | None = field(default=None, repr=False)
    timeout_s: float = 1.0
    retries: int = 1

    @property
    def label(self) -> str:
        """ "192.0.2.20:161" ("[2001:db8::1]:161" for IPv6), as messages name it."""
        return host_label(self.address, self.port)

    @property
    def security_level(self) -> str:
        """net-snmp's `-l` value for a v3 target."""
        if self.auth_password and self.priv_password:
            return "authPriv"
        return "authNoPriv" if self.auth_password else "noAuthNoPriv"

    @property
    def budget_s(self) -> float:
        """The longest one unanswered request can take: timeout * (retries + 1)."""
        return self.timeout_s * (self.retries + 1)


def host_label(address: str, port: int) -> str:
    """ "192.0.2.20:161", or "[2001:db8::1]:161" for an IPv6 address."""
    host = f"[{address}]" if ":" in address else address
    return f"{host}:{port}"


def _seconds(value: float) -> str:
    return f"{value:g} s"


def timeout_message(target: SnmpTarget) -> str:
    """ "no answer from 192.0.2.20:161 within 2 s (1 retry): host down, ..." for `target`."""
    tries = "no retries" if target.retries == 0 else f"{target.retries} retr"
    tries += "" if target.retries == 0 else ("y" if target.retries == 1 else "ies")
    if target.version == V3:
        why = "host down, wrong port, user or priv_password, or a firewall"
    else:
        why = "host down, wrong port or community, or a firewall"
    return f"no answer from {target.label} within {_seconds(target.timeout_s)} ({tries}): {why}"


def report_message(target: SnmpTarget, report_oid: tuple[int, ...]) -> str:
    """The one line for an SNMPv3 Report PDU (an agent refusing the request's security)."""
    arc = report_oid[len(USM_STATS)] if report_oid[: len(USM_STATS)] == USM_STATS else None
    name = _USM_REPORTS.get(arc) if arc is not None else None
    user = f'SNMPv3 user "{target.user}"'
    where = target.label
    if name == "usmStatsWrongDigests":
        return f"{where} refused {user}: wrong auth_password or auth_protocol ({name})"
    if name == "usmStatsUnknownUserNames":
        return f"{where} does not know {user} ({name}): check user, or create it on the agent"
    if name == "usmStatsDecryptionErrors":
        return (
            f"{where} could not decrypt the request ({name}): wrong priv_password or priv_protocol"
        )
    if name == "usmStatsUnsupportedSecLevels":
        level = target.security_level
        return f"{where}: {user} is not set up for {level} ({name}): check the passwords"
    if name is not None:
        return f"{where} refused the SNMPv3 request ({name}): check the agent's clock and engine ID"
    dotted = ".".join(map(str, report_oid))
    return f"{where} refused the request with a Report ({dotted})"


def error_status_message(target: SnmpTarget, status: int, what: str) -> str:
    """ "192.0.2.20:161 answered genErr to a walk of 1.3.6.1.4.1.6574"."""
    name = ERROR_STATUS[status] if 0 <= status < len(ERROR_STATUS) else f"error-status {status}"
    return f"{target.label} answered {name} to {what}"


def _secret(
    host: HostConfig,
    key: str,
    sources: tuple[str | None, Path | None, str | None],
    env: Mapping[str, str],
) -> str | None:
    """One password from the config, its file (first line) or its environment variable."""
    value, path, env_name = sources
    if value is not None:
        return value
    if path is not None:
        try:
            text = read_bounded(path, SECRET_LIMIT).decode("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            why = (exc.strerror or str(exc)) if isinstance(exc, OSError) else "not UTF-8 text"
            raise SnmpError(f"host {host.name}: cannot read {key}_file {path}: {why}") from None
        lines = text.splitlines()
        secret = lines[0].strip() if lines else ""
        if not secret:
            raise SnmpError(f"host {host.name}: {key}_file {path} is empty")
        return secret
    if env_name is not None:
        secret = env.get(env_name, "")
        if not secret:
            raise SnmpError(f"host {host.name}: {key}_env names ${env_name}, which is not set")
        return secret
    return None


def target_for(host: HostConfig, env: Mapping[str, str] | None = None) -> SnmpTarget:
    """The target a configured host is polled as; reads password files and variables now.

    Raises:
        SnmpError: a password file is unreadable or empty, or its variable is unset.
    """
    environ = os.environ if env is None else env
    auth = _secret(
        host,
        "auth_password",
        (host.auth_password, host.auth_password_file, host.auth_password_env),
        environ,
    )
    priv = _secret(
        host,
        "priv_password",
        (host.priv_password, host.priv_password_file, host.priv_password_env),
        environ,
    )
    for secret in (auth, priv, host.community if host.community != "public" else None):
        SECRETS.add(secret)  # never in a log line, whoever logs it
    for key, secret in (("auth_password", auth), ("priv_password", priv)):
        if secret is not None and len(secret) < MIN_PASSWORD:
            raise SnmpError(
                f"host {host.name}: {key} must be at least {MIN_PASSWORD} characters (SNMPv3)"
            )
    return SnmpTarget(
        host.address,
        host.port,
        host.version,
        host.community,
        host.user,
        host.auth_protocol,
        auth,
        host.priv_protocol,
        priv,
        host.timeout_s,
        host.retries,
    )
