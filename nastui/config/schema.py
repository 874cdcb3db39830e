"""The configuration as frozen dataclasses, with the defaults a NAS without a config file gets.

`nastui.config.loader` fills these from TOML (`config.example.toml` documents every key).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from nastui.config.presets import PRESETS
from nastui.model import BayBinding, ChassisLayout, CollectorsConfig, FanZone, Thresholds
from nastui.selftest.logic.policy import SelftestPolicy


@dataclass(frozen=True, slots=True)
class ChassisConfig:
    """The box: its layout, which drive belongs in which bay, and bays left empty on purpose."""

    layout: ChassisLayout = PRESETS["rv-4324"]
    bindings: tuple[BayBinding, ...] = ()
    empty: frozenset[int] = frozenset()
    configured: bool = False  # False: no [chassis] table, the default layout is a guess


@dataclass(frozen=True, slots=True)
class PollConfig:
    """Seconds between polls of each collector."""

    temperature_s: float = 30.0
    smart_s: float = 300.0
    pools_s: float = 10.0
    io_s: float = 2.0
    fans_s: float = 5.0
    fleet_s: float = 60.0
    command_timeout_s: float = 20.0


class FanDriver(StrEnum):
    """How a fan is driven."""

    HWMON = "hwmon"
    IPMI_SUPERMICRO = "ipmi-supermicro"
    IPMI_DELL = "ipmi-dell"
    COMMAND = "command"


@dataclass(frozen=True, slots=True)
class FanConfig:
    """One fan (or one IPMI zone driven as a fan).

    Attributes:
        name: the name shown and logged.
        driver: hwmon, ipmi-supermicro, ipmi-dell or command.
        zone: the fan zone whose duty it follows.
        hwmon_name: hwmon chip name ("nct6775"); fans are found by name and device, never index.
        hwmon_device: the chip's device path under /sys/devices, to tell two chips apart.
        pwm: pwm channel number on that chip (pwmN).
        ipmi_zone: IPMI fan zone number (Supermicro: 0 CPU/system, 1 peripheral).
        set_command: argv template for the command driver; "{duty}" is replaced.
        min_duty: never below this, in percent.
        max_duty: never above this, in percent.
        start_duty: kick to at least this when starting from a stop (spin-up).
    """

    name: str
    driver: FanDriver
    zone: str
    hwmon_name: str | None = None
    hwmon_device: str | None = None
    pwm: int | None = None
    ipmi_zone: int | None = None
    set_command: tuple[str, ...] = ()
    min_duty: float = 20.0
    max_duty: float = 100.0
    start_duty: float = 40.0


# The zone definition lives in the model (core's fan logic uses it and may not import config).
FanZoneConfig = FanZone


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


@dataclass(frozen=True, slots=True)
class AlertsConfig:
    """Where alerts go and how often a standing alert is repeated."""

    email: EmailConfig | None = None
    exec_hook: tuple[str, ...] = ()
    webhook: str | None = None
    repeat_interval_s: float = 86400.0
    apprise: tuple[AppriseConfig, ...] = ()


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


@dataclass(frozen=True, slots=True)
class UiConfig:
    """Display preferences (command-line flags override them)."""

    ascii: bool | None = None  # None: decide from TERM and the locale
    colors: str | None = None  # none, 16, 256, truecolor; None: detect


@dataclass(frozen=True, slots=True)
class Config:
    """The whole configuration.

    Attributes:
        path: the file it was read from; None for built-in defaults.
        hostname: the name this box is shown under (default: the system host name).
    """

    path: Path | None = None
    hostname: str | None = None
    chassis: ChassisConfig = field(default_factory=ChassisConfig)
    thresholds: Thresholds = field(default_factory=Thresholds)
    poll: PollConfig = field(default_factory=PollConfig)
    fans: tuple[FanConfig, ...] = ()
    zones: tuple[FanZoneConfig, ...] = ()
    alerts: AlertsConfig = field(default_factory=AlertsConfig)
    hosts: tuple[HostConfig, ...] = ()
    ups: tuple[UpsConfig, ...] = ()
    ui: UiConfig = field(default_factory=UiConfig)
    collectors: CollectorsConfig = field(default_factory=CollectorsConfig)
    selftest: SelftestPolicy = field(default_factory=SelftestPolicy)  # [selftest]
