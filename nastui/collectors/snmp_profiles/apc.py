"""The `apc` profile: an APC/Schneider UPS through PowerNet-MIB (enterprise 318, ups 1.1.1).

Read: upsBasicIdentModel; upsBasicBatteryStatus (low(3) makes "battery low" on battery, and
batteryInFaultCondition(4) asks for a replacement like upsAdvBatteryReplaceIndicator(2));
upsBasicBatteryTimeOnBattery and upsAdvBatteryRunTimeRemaining (TimeTicks: hundredths of a
second); upsHighPrecBatteryCapacity (tenths of a percent) or else upsAdvBatteryCapacity;
upsAdvBatteryTemperature (255 means no sensor); upsAdvInputLineVoltage; upsAdvOutputLoad;
upsBasicOutputStatus, whose 28 states map onto `UpsStatus` (smart boost/trim, eco modes and
hot standby are mains; self test and battery test are on battery; the spot and DER modes are
unknown).
"""

from __future__ import annotations

from nastui.collectors.snmp_profiles.base import Oid, Profile, Walk, oid
from nastui.collectors.snmp_profiles.tables import Notes, integer, scalar, text
from nastui.model import HostSnapshot, Sensor, Ups, UpsStatus

NAME = "apc"
SOURCE = f"snmp:{NAME}"
UPS = oid("1.3.6.1.4.1.318.1.1.1")
ROOTS: tuple[Oid, ...] = tuple((*UPS, group) for group in (1, 2, 3, 4))
MODEL = (*UPS, 1, 1, 1)
BATTERY_STATUS = (*UPS, 2, 1, 1)
TIME_ON_BATTERY = (*UPS, 2, 1, 2)
CAPACITY = (*UPS, 2, 2, 1)
BATTERY_TEMP = (*UPS, 2, 2, 2)
RUNTIME = (*UPS, 2, 2, 3)
REPLACE = (*UPS, 2, 2, 4)
HIGH_PREC_CAPACITY = (*UPS, 2, 3, 1)
INPUT_VOLTAGE = (*UPS, 3, 2, 1)
OUTPUT_STATUS = (*UPS, 4, 1, 1)
OUTPUT_LOAD = (*UPS, 4, 2, 3)
BATTERY_LOW, BATTERY_FAULT = 3, 4
NEEDS_REPLACING = 2
NO_SENSOR = 255

_ONLINE = (2, 4, 12, 13, 14, 18, 20, 25)
_BATTERY = (3, 15, 28)
_BYPASS = (6, 9, 10, 16, 17)
_OFF = (5, 7, 8, 11, 26)
OUTPUT_STATUS_MAP: dict[int, UpsStatus] = {
    **dict.fromkeys(_ONLINE, UpsStatus.ONLINE),
    **dict.fromkeys(_BATTERY, UpsStatus.ON_BATTERY),
    **dict.fromkeys(_BYPASS, UpsStatus.BYPASS),
    **dict.fromkeys(_OFF, UpsStatus.OFF),
}


def _ticks_seconds(value: int | None) -> float | None:
    return None if value is None or value < 0 else value / 100.0


def _charge(walk: Walk) -> float | None:
    tenths = integer(scalar(walk, HIGH_PREC_CAPACITY))
    if tenths is not None and 0 <= tenths <= 1000:
        return tenths / 10.0
    percent = integer(scalar(walk, CAPACITY))
    return float(percent) if percent is not None and 0 <= percent <= 100 else None


def _status(walk: Walk) -> UpsStatus:
    status = OUTPUT_STATUS_MAP.get(integer(scalar(walk, OUTPUT_STATUS)) or 0, UpsStatus.UNKNOWN)
    battery = integer(scalar(walk, BATTERY_STATUS))
    if status is UpsStatus.ON_BATTERY and battery == BATTERY_LOW:
        return UpsStatus.BATTERY_LOW
    return status


def _non_negative(value: int | None) -> float | None:
    return None if value is None or value < 0 else float(value)


def read_ups(name: str, walk: Walk) -> Ups | None:
    """The UPS the walk describes, or None when it has neither output nor battery status."""
    if scalar(walk, OUTPUT_STATUS) is None and scalar(walk, BATTERY_STATUS) is None:
        return None
    battery = integer(scalar(walk, BATTERY_STATUS))
    replace = integer(scalar(walk, REPLACE)) == NEEDS_REPLACING or battery == BATTERY_FAULT
    on_battery = _ticks_seconds(integer(scalar(walk, TIME_ON_BATTERY)))
    return Ups(
        name=name,
        status=_status(walk),
        model=text(scalar(walk, MODEL)),
        charge_percent=_charge(walk),
        runtime_s=_ticks_seconds(integer(scalar(walk, RUNTIME))),
        on_battery_s=on_battery or None,
        load_percent=_non_negative(integer(scalar(walk, OUTPUT_LOAD))),
        input_voltage=_non_negative(integer(scalar(walk, INPUT_VOLTAGE))),
        battery_replace=replace,
    )


def parse(host_name: str, walk: Walk, now: float) -> HostSnapshot:
    """A raw snapshot of an APC UPS from its walk: one `Ups`, and the battery temperature."""
    notes = Notes(SOURCE)
    ups = read_ups(host_name, walk)
    if ups is None:
        notes.missing("PowerNet-MIB upsBasicOutputStatus and upsBasicBatteryStatus")
    celsius = integer(scalar(walk, BATTERY_TEMP))
    sensors: tuple[Sensor, ...] = ()
    if celsius is not None and 0 < celsius < NO_SENSOR:
        sensors = (Sensor("UPS battery", float(celsius), "C", SOURCE),)
    return HostSnapshot(
        host=host_name,
        taken_at=now,
        sensors=sensors,
        ups=(ups,) if ups else (),
        errors=tuple(notes.errors),
        source=SOURCE,
    )


PROFILE = Profile(name=NAME, roots=ROOTS, parse=parse)
