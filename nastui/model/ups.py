"""UPS state as read over SNMP (RFC 1628 UPS-MIB, APC PowerNet): what an operator needs to know
before the batteries run out."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class UpsStatus(StrEnum):
    """Where the load's power comes from, as the UPS reports it."""

    ONLINE = "online"
    ON_BATTERY = "on battery"
    BATTERY_LOW = "battery low"
    BYPASS = "bypass"
    OFF = "off"
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class Ups:
    """One UPS.

    Attributes:
        name: the configured host name (or the UPS's own identity when it has several).
        status: where the power comes from.
        model: manufacturer and model, when reported.
        charge_percent: estimated battery charge.
        runtime_s: estimated runtime on battery at the present load.
        on_battery_s: seconds since the switch to battery (None when on mains or not reported).
        load_percent: output load as a percentage of capacity.
        input_voltage: input line voltage.
        battery_replace: the UPS asks for a battery replacement.
    """

    name: str
    status: UpsStatus = UpsStatus.UNKNOWN
    model: str | None = None
    charge_percent: float | None = None
    runtime_s: float | None = None
    on_battery_s: float | None = None
    load_percent: float | None = None
    input_voltage: float | None = None
    battery_replace: bool = False
