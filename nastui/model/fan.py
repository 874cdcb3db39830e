"""Fans as read back, and other sensors (CPU package, chassis ambient): what a snapshot holds.
The zones and curves that drive fans are in `nastui.model.fanzone`.

Duty is in percent (0..100) everywhere above the drivers; a hwmon driver scales to 0..255.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Fan:
    """A fan as read back from the hardware.

    Attributes:
        name: configured name ("front-wall-1") or the sensor name.
        rpm: tachometer reading; None when the fan has no tach.
        duty_percent: current duty; None when unreadable.
        zone: the fan zone it belongs to.
        driver: "hwmon", "ipmi-supermicro", "ipmi-dell", "command", "sim".
        controllable: whether nastui can set its duty.
    """

    name: str
    rpm: int | None = None
    duty_percent: float | None = None
    zone: str | None = None
    driver: str = "hwmon"
    controllable: bool = False

    @property
    def stalled(self) -> bool:
        """0 RPM while being driven: a dead or unplugged fan."""
        return self.rpm == 0 and (self.duty_percent or 0) > 0


@dataclass(frozen=True, slots=True)
class Sensor:
    """A non-drive temperature or voltage sensor (CPU package, inlet, BMC readings)."""

    name: str
    value: float | None
    unit: str = "C"
    source: str = "hwmon"
    status: str | None = None
