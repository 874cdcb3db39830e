"""The `[[zone]]` and `[[fan]]` tables: fan zones (what they follow, curve or PID) and the fans
driven in them.

A zone's `source` is one source or a list of them; with several the zone follows the highest of
their temperatures. `"max"` may head such a list to say so, but adds nothing: it is dropped, and
alone (the maximum of nothing) it is an error. A zone without `source` follows the hottest drive.
"""

from __future__ import annotations

from nastui.config.fancontrol import FanConfig, FanDriver, FanZoneConfig
from nastui.config.keys import FAN_KEYS, ZONE_KEYS
from nastui.config.validate_base import Section, check_order, check_unique, repeat_of
from nastui.config.validate_values import dotted, number_text, one_of, show
from nastui.model import CurveKind, CurvePoint, FanCurve, FanSource, ZoneMode
from nastui.model.fanzone import DEFAULT_CURVE

DRIVER_KEYS: dict[FanDriver, tuple[str, ...]] = {
    FanDriver.HWMON: ("hwmon_name", "hwmon_device", "pwm"),
    FanDriver.IPMI_SUPERMICRO: ("ipmi_zone",),
    FanDriver.IPMI_DELL: ("ipmi_zone",),
    FanDriver.COMMAND: ("set_command",),
}
REQUIRED_KEYS: dict[FanDriver, tuple[str, ...]] = {
    FanDriver.HWMON: ("hwmon_name", "pwm"),
    FanDriver.IPMI_SUPERMICRO: ("ipmi_zone",),
    FanDriver.IPMI_DELL: ("ipmi_zone",),
    FanDriver.COMMAND: ("set_command",),
}
TEMP_LOW, TEMP_HIGH = -20.0, 120.0
_GAINS = (("kp", 4.0), ("ki", 0.1), ("kd", 0.0))  # defaults as in FanZoneConfig
# Bounds beyond which a value is a typo that would switch the fail-safe off or stall the loop:
# 1e22 stale periods never go stale; 20 periods of the 30 s temperature poll are 10 minutes.
MAX_STALE_PERIODS = 20
# A lost sensor is believed again after this many plausible readings in a row: 1 believes the
# first (no slow trust), more than 60 keeps a zone at full speed for minutes after a glitch.
MAX_TRUST_AFTER = 60
MAX_HYSTERESIS = 20.0  # °C
MAX_GAIN = 100.0  # PID gains, % of duty per °C (per °C s, per °C/s)
MAX_PWM = 32  # hwmon pwm channels per chip (the big Super I/O chips have 7)
MAX_TABLES = 64  # [[zone]] and [[fan]] tables each
MAX_CURVE_POINTS = 64


def read_zones(root: Section) -> tuple[FanZoneConfig, ...]:
    """The `[[zone]]` tables; none configured means no fan control."""
    tables = _bounded(root, "zone")
    check_unique(tables, "name", "name")
    return tuple(zone for zone in map(_zone, tables) if zone is not None)


def read_fans(root: Section, zones: tuple[FanZoneConfig, ...]) -> tuple[FanConfig, ...]:
    """The `[[fan]]` tables, each in one of `zones`."""
    tables = _bounded(root, "fan")
    check_unique(tables, "name", "name")
    _check_targets(tables)
    names = [zone.name for zone in zones]
    return tuple(fan for fan in (_fan(t, names) for t in tables) if fan is not None)


def _bounded(root: Section, key: str) -> list[Section]:
    """The `[[key]]` tables, or none (reported) when there are more than MAX_TABLES."""
    tables = root.tables(key)
    if len(tables) > MAX_TABLES:
        root.report(key, f"{len(tables)} [[{key}]] tables; at most {MAX_TABLES} are supported")
        return []
    return tables


def _zone(sec: Section) -> FanZoneConfig | None:
    sec.check_keys(ZONE_KEYS)
    name = sec.text("name", required=True)
    sources = _sources(sec)
    mode = sec.choice("mode", ZoneMode)
    if mode is ZoneMode.CURVE or not sec.has("mode"):
        sec.require("curve", '[[temperature, duty], ...] points, or mode = "pid"')
    curve = _curve(sec)
    setpoint = sec.number("setpoint", 40.0, low=TEMP_LOW, high=TEMP_HIGH, unit="°C")
    kp, ki, kd = (sec.number(key, default, low=0, high=MAX_GAIN) for key, default in _GAINS)
    stale = sec.integer("stale_periods", 3, low=1, high=MAX_STALE_PERIODS)
    trust = sec.integer("trust_after", 5, low=1, high=MAX_TRUST_AFTER)
    if name is None:
        return None
    # Kept even when other values are wrong, so that fans naming it are not reported too.
    sources = sources or (FanSource.HOTTEST_DRIVE,)
    mode = mode or ZoneMode.CURVE
    return FanZoneConfig(name, sources, mode, curve, setpoint, kp, ki, kd, stale, trust)


def _sources(sec: Section) -> tuple[FanSource, ...]:
    if not sec.has("source"):
        return (FanSource.HOTTEST_DRIVE,)
    sources: list[FanSource] = []
    for value in sec.strings("source", single=True):
        try:
            source = FanSource(value.strip().lower())
        except ValueError:
            sec.report(
                "source",
                f"{sec.name('source')} {show(value)} is not a source; use "
                f"{one_of(s.value for s in FanSource)}",
            )
            return ()
        if source not in sources:
            sources.append(source)
    if sources == [FanSource.MAX]:
        sec.report(
            "source",
            f'{sec.name("source")} "max" needs the sources to take the maximum of, as in '
            'source = ["hottest-drive", "cpu"] (several sources always combine by their maximum)',
        )
    return tuple(s for s in sources if s is not FanSource.MAX)


def _curve(sec: Section) -> FanCurve:
    points = _points(sec) if sec.has("curve") else DEFAULT_CURVE
    if sec.table.get("curve") == []:
        sec.report("curve", f"{sec.name('curve')} must hold at least one [temperature, duty] point")
    low, high = _duty_limits(sec, 20.0, 100.0)
    return FanCurve(
        points or DEFAULT_CURVE,
        kind=sec.choice("curve_kind", CurveKind, CurveKind.LINEAR),
        hysteresis_c=sec.number("hysteresis", 2.0, low=0, high=MAX_HYSTERESIS, unit="°C"),
        min_duty=low,
        max_duty=high,
    )


def _points(sec: Section) -> tuple[CurvePoint, ...]:
    value = sec.table.get("curve")
    if isinstance(value, list) and len(value) > MAX_CURVE_POINTS:
        many = f"{sec.name('curve')} has {len(value)} points; at most {MAX_CURVE_POINTS}"
        sec.report("curve", many)
        return ()
    points: list[CurvePoint] = []
    for path, temp, duty in sec.pairs("curve", integers=False, what="temperature, duty"):
        problem = _point_problem(temp, duty, points[-1] if points else None)
        if problem:
            sec.ctx.report(path, f"{dotted(path)} {problem}")
        else:
            points.append(CurvePoint(temp, duty))
    return tuple(points)


def _point_problem(temp: float, duty: float, before: CurvePoint | None) -> str | None:
    if not TEMP_LOW <= temp <= TEMP_HIGH:
        return f"temperature ({number_text(temp)}) must be from -20 to 120 °C"
    if not 0 <= duty <= 100:
        return f"duty ({number_text(duty)}) must be from 0 to 100 %"
    if before is None:
        return None
    if temp <= before.temp_c:
        return (
            f"temperature ({number_text(temp)}) must be above the point before it "
            f"({number_text(before.temp_c)}): list points from cool to hot"
        )
    if duty < before.duty_percent:
        return (
            f"duty ({number_text(duty)}) must not be below the point before it "
            f"({number_text(before.duty_percent)}): duty must not fall as temperature rises"
        )
    return None


def _duty_limits(sec: Section, min_duty: float, max_duty: float) -> tuple[float, float]:
    """`min_duty` and `max_duty` (defaults as given), each 0..100 and in order."""
    low = sec.number("min_duty", min_duty, low=0, high=100, unit="percent")
    high = sec.number("max_duty", max_duty, low=0, high=100, unit="percent")
    check_order((sec, "min_duty", low), (sec, "max_duty", high), strict=False)
    return low, high


def _fan(sec: Section, zones: list[str]) -> FanConfig | None:
    sec.check_keys(FAN_KEYS)
    name = sec.text("name", required=True)
    driver = sec.choice("driver", FanDriver) if sec.require("driver") else None
    zone = _zone_name(sec, zones)
    if driver is not None:
        _check_driver_keys(sec, driver)
    low, high = _duty_limits(sec, 20.0, 100.0)
    start = sec.number("start_duty", 40.0, low=0, high=100, unit="percent")
    check_order((sec, "start_duty", start), (sec, "max_duty", high), strict=False)
    fan = FanConfig(
        name or "",
        driver or FanDriver.HWMON,
        zone or "",
        hwmon_name=sec.text("hwmon_name"),
        hwmon_device=sec.text("hwmon_device"),
        pwm=sec.integer("pwm", low=1, high=MAX_PWM),
        ipmi_zone=sec.integer("ipmi_zone", low=0, high=255),
        set_command=_set_command(sec),
        min_duty=low,
        max_duty=high,
        start_duty=start,
    )
    return fan if name and driver and zone else None


def _zone_name(sec: Section, zones: list[str]) -> str | None:
    zone = sec.text("zone", required=True)
    if zone is None or zone in zones:
        return zone
    known = f"the zones are {', '.join(map(show, zones))}" if zones else "there is no [[zone]]"
    sec.report("zone", f"{sec.name('zone')} {show(zone)} is not a zone; {known}")
    return None


def _check_driver_keys(sec: Section, driver: FanDriver) -> None:
    for key in REQUIRED_KEYS[driver]:
        sec.require(key, f"the {driver} driver needs it")
    for key in dict.fromkeys(k for keys in DRIVER_KEYS.values() for k in keys):
        if sec.has(key) and key not in DRIVER_KEYS[driver]:
            users = [str(d) for d, keys in DRIVER_KEYS.items() if key in keys]
            drivers = f"{' and '.join(users)} driver{'s' if len(users) > 1 else ''}"
            sec.report(
                key, f"{sec.name(key)} is only used by the {drivers}; this fan's is {driver}"
            )


def _set_command(sec: Section) -> tuple[str, ...]:
    argv = sec.strings("set_command")
    if argv and not any("{duty}" in arg for arg in argv):
        sec.report(
            "set_command",
            f"{sec.name('set_command')} must contain {{duty}} (replaced by the duty in percent)",
        )
    return argv


def _check_targets(tables: list[Section]) -> None:
    """Report two fans that drive the same pwm channel or IPMI zone."""
    seen: dict[tuple[str, ...], Section] = {}
    for sec in tables:
        target = _target(sec)
        if target is None:
            continue
        if first := repeat_of(seen, target, sec):
            sec.report(None, f"{sec.key} drives the same fan output as {first.where}")


def _target(sec: Section) -> tuple[str, ...] | None:
    """The output a fan drives, as text (the values may be of any type here)."""
    driver = str(sec.table.get("driver", "")).strip().lower()
    keys: tuple[str, ...]
    if driver == FanDriver.HWMON.value and sec.has("pwm"):
        keys = ("hwmon_name", "hwmon_device", "pwm")
    elif driver.startswith("ipmi") and sec.has("ipmi_zone"):
        keys = ("ipmi_zone",)
    else:
        return None
    return (driver, *(show(sec.table.get(key)) for key in keys))
