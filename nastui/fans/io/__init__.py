"""The fan write side: drivers (hwmon PWM, Supermicro and Dell IPMI, a command, the simulator),
the argv and values they write (pure, in `argv`), and `FanWriter`, the one audited path every
write takes, with dry run."""

from __future__ import annotations

from nastui.fans.io.drivers import (
    CommandFan,
    DellFans,
    FanDriver,
    HwmonPwm,
    SimFan,
    SupermicroZone,
)
from nastui.fans.io.writer import CommandOutcome, DriverError, FanWriter, RunCommand

__all__ = [
    "CommandFan",
    "CommandOutcome",
    "DellFans",
    "DriverError",
    "FanDriver",
    "FanWriter",
    "HwmonPwm",
    "RunCommand",
    "SimFan",
    "SupermicroZone",
]
