"""The other boxes nastui reads: NAS and UPS hosts over SNMP (`[[hosts]]`) and UPSes on a NUT
server (`[[ups]]`); loaded by the fleet's and the UPS's readers and the loader."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path


class SnmpProfile(StrEnum):
    """The MIB set a remote host is read with."""

    NET_SNMP = "net-snmp"
    SYNOLOGY = "synology"
    QNAP = "qnap"
    TRUENAS = "truenas"
    UPS = "ups"
    APC = "apc"
    NASTUI = "nastui"


@dataclass(frozen=True, slots=True)
class HostConfig:
    """A remote NAS or UPS polled over SNMP.

    Attributes:
        name: name shown in the fleet view.
        address: host name or IP address.
        port: SNMP port.
        profile: which MIBs to read.
        version: "2c" or "3".
        community: v2c community.
        user, auth_protocol, auth_password, priv_protocol, priv_password: v3 settings
            (authPriv with both passwords, authNoPriv with only auth_password).
        auth_password_file, auth_password_env, priv_password_file, priv_password_env: where a
            password is read from instead (a file's first line, relative paths already joined
            to the config file's directory; or a variable's value), resolved at poll time.
        timeout_s, retries: per-request timeout and retries.
    """

    name: str
    address: str
    port: int = 161
    profile: SnmpProfile = SnmpProfile.NET_SNMP
    version: str = "2c"
    community: str = "public"
    user: str | None = None
    auth_protocol: str = "SHA"
    auth_password: str | None = None
    priv_protocol: str = "AES"
    priv_password: str | None = None
    timeout_s: float = 1.0
    retries: int = 1
    auth_password_file: Path | None = None
    auth_password_env: str | None = None
    priv_password_file: Path | None = None
    priv_password_env: str | None = None


@dataclass(frozen=True, slots=True)
class UpsConfig:
    """A UPS read from a NUT server (`[[ups]]`).

    Attributes:
        name: name shown in the fleet view (default: the UPS's NUT name).
        ups: the UPS's name on the NUT server (`upsc ups@host`).
        address: the NUT server's host name or IP address.
        port: its TCP port (3493).
        timeout_s: the longest one reading may take.
    """

    name: str
    ups: str
    address: str
    port: int = 3493
    timeout_s: float = 2.0
