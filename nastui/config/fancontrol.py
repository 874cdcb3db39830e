"""The fans a box drives (`[[fans]]`) and its fan zones (`[[zones]]`): the tables `nastui fand`
and the fan screen read; a box without them never loads this module."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from nastui.model import FanZone


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
