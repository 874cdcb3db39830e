"""The configuration as frozen dataclasses, with the defaults a NAS without a config file gets.

`nastui.config.loader` fills these from TOML (`config.example.toml` documents every key).
The tables a box may not have (fans: `fancontrol`; mail and apprise: `alerting`; SNMP hosts
and UPSes: `remote`) are in modules of their own, loaded by what reads or uses them: a
frozen dataclass compiles its methods when its module loads (about 0.5 ms each), and
`nastui status` on a box without those tables never needs them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from nastui.config.presets import PRESETS
from nastui.model import BayBinding, ChassisLayout, CollectorsConfig, Thresholds
from nastui.selftest.logic.policy import SelftestPolicy

if TYPE_CHECKING:  # the optional tables, in modules of their own
    from nastui.config.alerting import AppriseConfig, EmailConfig
    from nastui.config.fancontrol import FanConfig, FanZoneConfig
    from nastui.config.remote import HostConfig, UpsConfig


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


@dataclass(frozen=True, slots=True)
class AlertsConfig:
    """Where alerts go and how often a standing alert is repeated."""

    email: EmailConfig | None = None
    exec_hook: tuple[str, ...] = ()
    webhook: str | None = None
    repeat_interval_s: float = 86400.0
    apprise: tuple[AppriseConfig, ...] = ()


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
