"""A snapshot in the Prometheus text exposition format, for node_exporter's textfile collector
(pure).

`render(snapshot)` gives the text `nastui export --prometheus FILE` writes: one HELP and TYPE
line per metric family, every sample a gauge, labels escaped (backslash, double quote,
newline), no timestamps (the textfile collector refuses them), no duplicate series (the first
wins). Unknown values have no sample: unknown is never 0.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from nastui.core.assess import overall, pool_health
from nastui.model import Drive, Health, HostSnapshot, PowerState

Labels = tuple[tuple[str, str], ...]
HEALTH_HELP = "0 ok, 1 warning, 2 critical, 3 unknown (the monitoring-plugin codes)"
SMART_IDS = (5, 9, 10, 184, 187, 188, 196, 197, 198, 199)
"""Attributes exported raw: reallocated, power-on hours, spin retries, end-to-end, reported
uncorrectable, command timeouts, reallocation events, pending, offline uncorrectable, CRC."""


@dataclass
class Family:
    """One metric family: its name, help text and samples (label set -> value)."""

    name: str
    help: str
    samples: dict[Labels, float] = field(default_factory=dict)

    def add(self, value: float | None, **labels: str) -> None:
        """Add a sample; None (unknown) adds nothing, a repeated label set keeps the first."""
        key = tuple(labels.items())
        if value is not None and key not in self.samples:
            self.samples[key] = value


def escape_label(value: str) -> str:
    """A label value with backslash, double quote and newline escaped."""
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def escape_help(text: str) -> str:
    """HELP text with backslash and newline escaped."""
    return text.replace("\\", "\\\\").replace("\n", "\\n")


def format_value(value: float) -> str:
    """A sample value: integers without a fraction, NaN and infinities as Prometheus spells
    them."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if float(value).is_integer() and abs(value) < 2**63:
        return str(int(value))
    return repr(float(value))


def format_families(families: Iterable[Family]) -> str:
    """The exposition text of `families`, skipping those without samples."""
    lines: list[str] = []
    for family in families:
        if not family.samples:
            continue
        lines.append(f"# HELP {family.name} {escape_help(family.help)}")
        lines.append(f"# TYPE {family.name} gauge")
        for labels, value in family.samples.items():
            text = ",".join(f'{k}="{escape_label(v)}"' for k, v in labels)
            lines.append(
                f"{family.name}{{{text}}} {format_value(value)}"
                if text
                else f"{family.name} {format_value(value)}"
            )
    return "".join(f"{line}\n" for line in lines)


def _drive_families(snapshot: HostSnapshot) -> Iterator[Family]:
    temp = Family(
        "nastui_drive_temperature_celsius",
        "Drive temperature (a sleeping drive keeps its last reading)",
    )
    health = Family("nastui_drive_health", f"Drive health verdict: {HEALTH_HELP}")
    attr = Family(
        "nastui_drive_smart_attribute_raw",
        "Raw value of the ATA SMART attributes "
        "that predict failure (5, 187, 197, 198...) and power-on hours (9)",
    )
    power = Family("nastui_drive_power_state", "1 for the drive's current power mode")
    standby = Family("nastui_drive_standby", "1 when the drive is spun down (standby or sleep)")
    hours = Family("nastui_drive_power_on_hours", "Lifetime power-on hours")
    for drive in snapshot.drives:
        ids = _drive_labels(snapshot, drive)
        if drive.temperature is not None:
            temp.add(drive.temperature.celsius, **ids)
        health.add(int(drive.verdict.health), drive=drive.key, dev=drive.dev, bay=ids["bay"])
        for item in drive.attributes:
            if item.id in SMART_IDS and item.raw is not None:
                attr.add(item.raw, drive=drive.key, id=str(item.id), name=item.name)
        if drive.power is not PowerState.UNKNOWN:
            power.add(1, drive=drive.key, state=drive.power.value)
            standby.add(1 if drive.power.spun_down else 0, drive=drive.key)
        hours.add(drive.power_on_hours, drive=drive.key)
    yield from (temp, health, attr, power, standby, hours)


def _drive_labels(snapshot: HostSnapshot, drive: Drive) -> dict[str, str]:
    bay = snapshot.bay_of(drive.key)
    return {
        "drive": drive.key,
        "dev": drive.dev,
        "bay": "" if bay is None else str(bay),
        "model": drive.identity.model or "",
        "serial": drive.identity.serial or "",
    }


def _pool_families(snapshot: HostSnapshot) -> Iterator[Family]:
    state = Family("nastui_pool_state", "1 for the pool's current state (ZFS vocabulary)")
    health = Family("nastui_pool_health", f"Worst unacknowledged alert of the pool: {HEALTH_HELP}")
    percent = Family(
        "nastui_pool_scan_percent",
        "Progress of the pool's running or latest scan "
        "(scrub, resilver, resync, check...), 0 to 100",
    )
    eta = Family("nastui_pool_scan_eta_seconds", "Estimated seconds until the scan completes")
    errors = Family("nastui_pool_scan_errors", "Errors the pool's scan has found")
    size = Family("nastui_pool_size_bytes", "Usable size of the pool, as df counts it")
    alloc = Family("nastui_pool_allocated_bytes", "Used space of the pool, as df counts it")
    scrub = Family(
        "nastui_pool_last_scrub_timestamp_seconds",
        "When the last completed scrub (md: check) ended, Unix time",
    )
    for pool in snapshot.pools:
        state.add(1, pool=pool.name, kind=pool.kind.value, state=pool.state.value)
        health.add(int(pool_health(snapshot, pool)), pool=pool.name)
        scan = pool.scan
        if scan is not None:
            labels = {"pool": pool.name, "scan": scan.kind.value, "state": scan.state.value}
            percent.add(scan.percent, **labels)
            eta.add(scan.eta_seconds, pool=pool.name)
            errors.add(scan.errors, pool=pool.name)
        size.add(pool.size_bytes, pool=pool.name)
        alloc.add(pool.allocated_bytes, pool=pool.name)
        if pool.last_scrub is not None:
            scrub.add(pool.last_scrub.ended_at, pool=pool.name)
    yield from (state, health, percent, eta, errors, size, alloc, scrub)


def _fan_ups_families(snapshot: HostSnapshot) -> Iterator[Family]:
    rpm = Family("nastui_fan_rpm", "Fan speed")
    duty = Family("nastui_fan_duty_percent", "Fan duty, 0 to 100")
    for fan in snapshot.fans:
        rpm.add(fan.rpm, fan=fan.name, zone=fan.zone or "")
        duty.add(fan.duty_percent, fan=fan.name, zone=fan.zone or "")
    yield from (rpm, duty)
    status = Family("nastui_ups_status", "1 for where the UPS's load gets its power from")
    ups_families = {
        "charge_percent": Family("nastui_ups_battery_charge_percent", "Battery charge"),
        "runtime_s": Family("nastui_ups_runtime_seconds", "Estimated runtime on battery"),
        "load_percent": Family("nastui_ups_load_percent", "Output load, percent of capacity"),
        "on_battery_s": Family(
            "nastui_ups_on_battery_seconds", "Seconds since the switch to battery"
        ),
        "input_voltage": Family("nastui_ups_input_voltage_volts", "Input line voltage"),
    }
    replace = Family("nastui_ups_battery_replace", "1 when the UPS asks for a new battery")
    for ups in snapshot.ups:
        status.add(1, ups=ups.name, status=ups.status.value)
        for attr, family in ups_families.items():
            family.add(getattr(ups, attr), ups=ups.name)
        replace.add(1 if ups.battery_replace else 0, ups=ups.name)
    yield from (status, *ups_families.values(), replace)


def families(snapshot: HostSnapshot) -> list[Family]:
    """Every metric family of `snapshot`, in output order."""
    host = Family("nastui_host_health", f"The host's overall state: {HEALTH_HELP}")
    host.add(int(overall(snapshot)))
    taken = Family("nastui_snapshot_timestamp_seconds", "When the snapshot was taken, Unix time")
    taken.add(snapshot.taken_at)
    errors = Family("nastui_collector_errors", "Things that could not be collected")
    errors.add(len(snapshot.errors))
    alerts = Family("nastui_alerts", "Active unacknowledged alerts by health")
    for level in (Health.WARNING, Health.CRITICAL, Health.UNKNOWN):
        count = sum(1 for a in snapshot.alerts if a.health is level and not a.acknowledged)
        alerts.add(count, health=level.name.lower())
    return [
        taken,
        host,
        errors,
        alerts,
        *_drive_families(snapshot),
        *_pool_families(snapshot),
        *_fan_ups_families(snapshot),
    ]


def render(snapshot: HostSnapshot) -> str:
    """The snapshot as exposition text."""
    return format_families(families(snapshot))
