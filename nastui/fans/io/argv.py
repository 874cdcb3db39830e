"""What each fan driver writes, as pure values: duty checks, PWM scaling and ipmitool argv.

Built here as tuples so tests assert on them exactly (ipmi_sim does not emulate the vendor OEM
commands). Duty is in percent; hwmon takes 0..255, the BMCs take 0..100 as one hex byte.

Sample (Supermicro X9/X10/X11, zone 1 at 50 %):  ipmitool raw 0x30 0x70 0x66 0x01 0x01 0x32
Sample (Dell iDRAC, every fan at 30 %):         ipmitool raw 0x30 0x30 0x02 0xff 0x1e
"""

from __future__ import annotations

import math
from collections.abc import Sequence

IPMITOOL: tuple[str, ...] = ("ipmitool",)
DUTY_FIELD = "{duty}"


def check_duty(duty: float) -> float:
    """`duty` if it is a number within 0..100 %.

    Raises:
        ValueError: NaN, infinite or out of range: a driver never guesses a duty.
    """
    if not math.isfinite(duty) or not 0.0 <= duty <= 100.0:
        raise ValueError(f"fan duty must be within 0..100 %, got {duty!r}")
    return duty


def pwm_value(duty: float) -> int:
    """A hwmon `pwmN` value, 0..255, for `duty` percent (100 % is exactly 255)."""
    return round(check_duty(duty) * 255 / 100)


def pwm_percent(value: int) -> float:
    """The duty in percent of a `pwmN` value, to one decimal."""
    return round(max(0, min(255, value)) * 100 / 255, 1)


def duty_byte(duty: float) -> str:
    """A duty as the one hex byte the BMCs take: 50 % -> "0x32"."""
    return f"0x{round(check_duty(duty)):02x}"


def supermicro_full_mode(base: Sequence[str] = IPMITOOL) -> tuple[str, ...]:
    """Supermicro fan mode "Full": every fan at 100 %, and the zone duty commands obeyed."""
    return (*base, "raw", "0x30", "0x45", "0x01", "0x01")


def supermicro_zone_duty(zone: int, duty: float, base: Sequence[str] = IPMITOOL) -> tuple[str, ...]:
    """Set one Supermicro fan zone (0 CPU/system, 1 peripheral) to `duty` percent."""
    if not 0 <= zone <= 255:
        raise ValueError(f"IPMI fan zone must be within 0..255, got {zone}")
    return (*base, "raw", "0x30", "0x70", "0x66", "0x01", f"0x{zone:02x}", duty_byte(duty))


def dell_manual(base: Sequence[str] = IPMITOOL) -> tuple[str, ...]:
    """Dell iDRAC: take fan control away from the BMC."""
    return (*base, "raw", "0x30", "0x30", "0x01", "0x00")


def dell_duty(duty: float, base: Sequence[str] = IPMITOOL) -> tuple[str, ...]:
    """Dell iDRAC: every fan at `duty` percent (manual control must be on)."""
    return (*base, "raw", "0x30", "0x30", "0x02", "0xff", duty_byte(duty))


def dell_automatic(base: Sequence[str] = IPMITOOL) -> tuple[str, ...]:
    """Dell iDRAC: hand fan control back to the BMC."""
    return (*base, "raw", "0x30", "0x30", "0x01", "0x01")


def command_argv(template: Sequence[str], duty: float) -> tuple[str, ...]:
    """The generic command driver's argv: "{duty}" replaced by the whole percent."""
    if not any(DUTY_FIELD in arg for arg in template):
        raise ValueError('a fan command needs "{duty}" in one of its arguments')
    value = str(round(check_duty(duty)))
    return tuple(arg.replace(DUTY_FIELD, value) for arg in template)
