"""The `ups` profile: a UPS speaking RFC 1628 UPS-MIB (1.3.6.1.2.1.33).

Read: upsIdentManufacturer and upsIdentModel; upsBatteryStatus, upsSecondsOnBattery,
upsEstimatedMinutesRemaining, upsEstimatedChargeRemaining and upsBatteryTemperature;
upsInputVoltage of the first input line; upsOutputSource and the highest upsOutputPercentLoad
of the output lines; the alarm table's upsAlarmBatteryBad (battery needs replacing).
Some controllers (Sinetica, enterprise 13891.101) mirror the same layout under their own
subtree: it is walked too and read when the standard one is absent.

The status is upsOutputSource: battery(5) is on battery, and battery low when upsBatteryStatus
is low(3) or depleted(4) or the low-battery alarm is up; normal(3), booster(6) and reducer(7)
are online (voltage correction is still mains), bypass(4) bypass, none(2) off. Agents answer
-1 (and many 0) for what they do not estimate: a negative value is unknown, a zero runtime is
unknown unless the battery is low, and a zero time on battery means on mains (None). An input
voltage above 1000 is read as tenths of a volt (Huawei's UPS5000 reports 2369 for 236.9 V).
"""

from __future__ import annotations

from dataclasses import dataclass

from nastui.collectors.snmp_profiles.base import Oid, Profile, Walk, oid
from nastui.collectors.snmp_profiles.tables import Notes, integer, scalar, table, text
from nastui.model import HostSnapshot, Sensor, Ups, UpsStatus

NAME = "ups"
SOURCE = f"snmp:{NAME}"
UPS_MIB = oid("1.3.6.1.2.1.33.1")
SINETICA = oid("1.3.6.1.4.1.13891.101")
ROOTS: tuple[Oid, ...] = (UPS_MIB, SINETICA)
OUTPUT_SOURCE = {
    2: UpsStatus.OFF,
    3: UpsStatus.ONLINE,
    4: UpsStatus.BYPASS,
    5: UpsStatus.ON_BATTERY,
    6: UpsStatus.ONLINE,
    7: UpsStatus.ONLINE,
}
BATTERY_NORMAL, BATTERY_LOW, BATTERY_DEPLETED = 2, 3, 4
ALARM_BATTERY_BAD, ALARM_LOW_BATTERY = 1, 3
MAX_VOLTS = 1000


@dataclass(frozen=True, slots=True)
class Rfc1628:
    """The RFC 1628 objects of one UPS, read from a walk under `base`."""

    output_source: int | None
    battery_status: int | None
    seconds_on_battery: int | None
    minutes_remaining: int | None
    charge: int | None
    battery_celsius: int | None
    input_voltage: float | None
    load: int | None
    alarms: frozenset[int]
    model: str | None


def _non_negative(value: int | None) -> int | None:
    return value if value is not None and value >= 0 else None


def _column(walk: Walk, entry: Oid, column: int) -> list[int]:
    values = (integer(row.get(column)) for row in table(walk, entry).values())
    return [v for v in values if v is not None and v >= 0]


def _alarms(walk: Walk, base: Oid) -> frozenset[int]:
    """Well-known alarm numbers (upsWellKnownAlarms.N) present in the alarm table."""
    known = (*base, 6, 3)
    found: set[int] = set()
    for row in table(walk, (*base, 6, 2, 1)).values():
        descr = row.get(2)
        if isinstance(descr, tuple) and len(descr) == len(known) + 1 and descr[:-1] == known:
            found.add(descr[-1])
    return frozenset(found)


def _model(maker: str | None, model: str | None) -> str | None:
    """ "EATON" and "EATON 93E 80" -> "EATON 93E 80"; "TRIPPLITE" and "SU2200" -> both."""
    if maker and model and model.lower().startswith(maker.lower()):
        return model
    return " ".join(part for part in (maker, model) if part) or None


def _volts(value: int | None) -> float | None:
    """Input volts; above MAX_VOLTS the agent reports tenths (Huawei UPS5000 says 2369)."""
    if value is None:
        return None
    return value / 10.0 if value > MAX_VOLTS else float(value)


def read_rfc1628(walk: Walk, base: Oid = UPS_MIB) -> Rfc1628 | None:
    """The UPS-MIB objects under `base`, or None when the agent has neither output source nor
    battery status there."""
    source = integer(scalar(walk, (*base, 4, 1)))
    battery = integer(scalar(walk, (*base, 2, 1)))
    if source is None and battery is None:
        return None
    volts = _column(walk, (*base, 3, 3, 1), 3)
    loads = _column(walk, (*base, 4, 4, 1), 5)
    maker = text(scalar(walk, (*base, 1, 1)))
    model = text(scalar(walk, (*base, 1, 2)))
    return Rfc1628(
        output_source=source,
        battery_status=battery,
        seconds_on_battery=_non_negative(integer(scalar(walk, (*base, 2, 2)))),
        minutes_remaining=_non_negative(integer(scalar(walk, (*base, 2, 3)))),
        charge=_non_negative(integer(scalar(walk, (*base, 2, 4)))),
        battery_celsius=integer(scalar(walk, (*base, 2, 7))),
        input_voltage=_volts(volts[0]) if volts else None,
        load=max(loads) if loads else None,
        alarms=_alarms(walk, base),
        model=_model(maker, model),
    )


def status_of(data: Rfc1628) -> UpsStatus:
    """Where the power comes from (see the module docstring)."""
    status = OUTPUT_SOURCE.get(data.output_source or 0, UpsStatus.UNKNOWN)
    low = data.battery_status in (BATTERY_LOW, BATTERY_DEPLETED)
    if status is UpsStatus.ON_BATTERY and (low or ALARM_LOW_BATTERY in data.alarms):
        return UpsStatus.BATTERY_LOW
    return status


def to_ups(name: str, data: Rfc1628) -> Ups:
    """The model's `Ups` for one RFC 1628 reading."""
    low = data.battery_status in (BATTERY_LOW, BATTERY_DEPLETED)
    minutes = data.minutes_remaining
    runtime = None if minutes is None or (minutes == 0 and not low) else minutes * 60.0
    on_battery = data.seconds_on_battery
    return Ups(
        name=name,
        status=status_of(data),
        model=data.model,
        charge_percent=None if data.charge is None else float(min(data.charge, 100)),
        runtime_s=runtime,
        on_battery_s=float(on_battery) if on_battery else None,
        load_percent=None if data.load is None else float(data.load),
        input_voltage=data.input_voltage,
        battery_replace=ALARM_BATTERY_BAD in data.alarms,
    )


def parse(host_name: str, walk: Walk, now: float) -> HostSnapshot:
    """A raw snapshot of an RFC 1628 UPS from its walk: one `Ups`, and the battery temperature."""
    notes = Notes(SOURCE)
    data = read_rfc1628(walk) or read_rfc1628(walk, SINETICA)
    if data is None:
        notes.missing("UPS-MIB upsOutputSource and upsBatteryStatus")
        return HostSnapshot(host=host_name, taken_at=now, errors=tuple(notes.errors), source=SOURCE)
    sensors: tuple[Sensor, ...] = ()
    if data.battery_celsius is not None and 0 < data.battery_celsius < 100:
        sensors = (Sensor("UPS battery", float(data.battery_celsius), "C", SOURCE),)
    return HostSnapshot(
        host=host_name,
        taken_at=now,
        sensors=sensors,
        ups=(to_ups(host_name, data),),
        errors=tuple(notes.errors),
        source=SOURCE,
    )


PROFILE = Profile(name=NAME, roots=ROOTS, parse=parse)
