"""The metric families nastui exports, filled from snapshots (pure).

`SPECS` is the whole list, in output order: the name and HELP of every family (the README's
metric table, the shipped alerting rules and the Grafana dashboard use these names; a test
checks that they use no other). `collect` fills them from the local snapshot and the fleet:
each host's samples carry `host`, so one family holds every host.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import Enum

from nastui.core.assess import overall, pool_health
from nastui.core.metrics.exposition import Family
from nastui.model import (
    FleetHost,
    Health,
    HostSnapshot,
    PoolState,
    PowerState,
    ScanKind,
    ScanProgress,
    ScanState,
    Thresholds,
    UpsStatus,
    worst,
)

HEALTH = "0 ok, 1 warning, 2 critical, 3 unknown (the monitoring-plugin codes)"
SMART_IDS = (5, 9, 10, 184, 187, 188, 196, 197, 198, 199)
"""Attributes exported raw: reallocated, power-on hours, spin retries, end-to-end, reported
uncorrectable, command timeouts, reallocation events, pending, offline uncorrectable, CRC."""
_HOUR = 3600.0
_DAY = 86400.0

SPECS: tuple[tuple[str, str], ...] = (
    ("snapshot_timestamp_seconds", "When the host's latest snapshot was taken, Unix time"),
    ("host_up", "1 when the host answered its last poll (the local host: always 1)"),
    ("host_last_contact_timestamp_seconds", "When a fleet host last answered, Unix time"),
    ("host_health", f"The host's worst unacknowledged alert: {HEALTH}"),
    ("collector_errors", "Things that could not be collected on the host"),
    ("alerts", "Active unacknowledged alerts of the host, by health"),
    ("bay_occupied", "1 when a drive is in the bay"),
    ("bay_missing", "1 when the configuration expects a drive in the bay and none is there"),
    ("drive_info", "Identity of a drive (always 1): device name, bay, model, serial, firmware"),
    ("drive_health", f"Worst unacknowledged finding of the drive's verdict: {HEALTH}"),
    ("drive_temperature_celsius", "Drive temperature (a sleeping drive keeps its last reading)"),
    ("drive_temperature_limit_celsius", "Temperature at which the drive's alert trips"),
    (
        "drive_smart_attribute_raw",
        "Raw value of the ATA SMART attributes that predict failure (5, 187, 197, 198...)",
    ),
    ("drive_power_on_seconds", "Lifetime powered-on time of the drive"),
    ("drive_power_state", "1 for the drive's current power mode, 0 for the others"),
    ("drive_standby", "1 when the drive is spun down (standby or sleep)"),
    ("pool_info", "A pool (always 1), with its kind: zfs, mdraid or btrfs"),
    ("pool_state", "1 for the pool's current state (ZFS vocabulary), 0 for the others"),
    ("pool_health", f"Worst unacknowledged alert of the pool: {HEALTH}"),
    ("pool_size_bytes", "Usable size of the pool, as df counts it"),
    ("pool_allocated_bytes", "Used space of the pool, as df counts it"),
    ("pool_capacity_limit_ratio", "Used share of the pool's size at which its alert trips"),
    ("pool_data_errors", "Data errors the pool reports (files with permanent errors)"),
    ("pool_device_errors", "Read, write and checksum errors of a pool member device"),
    ("pool_scan_kind", "1 for the kind of the pool's running or latest scan, 0 for the others"),
    ("pool_scan_state", "1 for the state of the pool's running or latest scan, 0 for the others"),
    ("pool_scan_progress_ratio", "Progress of the pool's running or latest scan, 0 to 1"),
    ("pool_scan_eta_seconds", "Estimated time until the running scan completes"),
    ("pool_scan_rate_bytes_per_second", "Rate of the running scan"),
    ("pool_scan_errors", "Errors the pool's running or latest scan has found"),
    ("pool_scan_started_timestamp_seconds", "When the pool's running or latest scan started"),
    ("pool_last_scrub_timestamp_seconds", "When the last completed scrub (md: check) ended"),
    ("pool_scrub_max_age_seconds", "Age of the last completed scrub at which its alert trips"),
    ("fan_info", "A fan (always 1), with the zone that drives it"),
    ("fan_rpm", "Fan speed, revolutions per minute"),
    ("fan_duty_ratio", "Fan duty, 0 to 1"),
    ("sensor_temperature_celsius", "Other temperatures: CPU, inlet, BMC sensors"),
    ("ups_info", "A UPS (always 1), with its model"),
    ("ups_status", "1 for where the UPS's load gets its power from, 0 for the others"),
    ("ups_battery_charge_ratio", "Battery charge, 0 to 1"),
    ("ups_runtime_seconds", "Estimated runtime on battery at the present load"),
    ("ups_load_ratio", "Output load as a share of the UPS's capacity, 0 to 1"),
    ("ups_on_battery_seconds", "Time since the switch to battery"),
    ("ups_input_voltage_volts", "Input line voltage"),
    ("ups_battery_replace", "1 when the UPS asks for a new battery"),
)
NAMES = tuple(f"nastui_{name}" for name, _ in SPECS)


class Sink:
    """The families being filled, by short name ("drive_health")."""

    def __init__(self) -> None:
        self.families = {name: Family(f"nastui_{name}", text) for name, text in SPECS}

    def add(self, family: str, value: float | None, /, **labels: str) -> None:
        """A sample of `family` (its short name)."""
        self.families[family].add(value, **labels)

    def states(
        self, family: str, current: Enum, every: Iterable[Enum], label: str, /, **labels: str
    ) -> None:
        """A state set: one sample per possible state (`label`="its name"), 1 for `current`."""
        for state in every:
            self.add(family, 1 if state is current else 0, **labels, **{label: _state(state)})


def _state(state: Enum) -> str:
    """A state's label value: ZFS pool states as ZFS prints them, others in snake case."""
    return state.value if isinstance(state, PoolState) else state.name.lower()


def _ratio(percent: float | None) -> float | None:
    return None if percent is None else percent / 100.0


def _host(sink: Sink, snap: HostSnapshot, host: str) -> None:
    sink.add("snapshot_timestamp_seconds", snap.taken_at, host=host)
    sink.add("host_health", int(overall(snap)), host=host)
    sink.add("collector_errors", len(snap.errors), host=host)
    for level in (Health.WARNING, Health.CRITICAL, Health.UNKNOWN):
        count = sum(1 for a in snap.alerts if a.health is level and not a.acknowledged)
        sink.add("alerts", count, host=host, health=level.name.lower())
    for slot in snap.slots:
        bay = str(slot.bay)
        sink.add("bay_occupied", 0 if slot.drive is None else 1, host=host, bay=bay)
        missing = slot.expected and slot.drive is None
        sink.add("bay_missing", 1 if missing else 0, host=host, bay=bay)


def _drive_health(snap: HostSnapshot, key: str) -> Health:
    """The worst unacknowledged alert about the drive (its verdict's findings, each an alert
    `drive:KEY:...`), so that acknowledging in nastui quiets the Prometheus rule too."""
    mine = f"drive:{key}"
    return worst(
        a.health
        for a in snap.alerts
        if not a.acknowledged and (a.key == mine or a.key.startswith(f"{mine}:"))
    )


def _drives(sink: Sink, snap: HostSnapshot, host: str, limits: Thresholds | None) -> None:
    for drive in snap.drives:
        ids = {"host": host, "drive": drive.key}
        bay = snap.bay_of(drive.key)
        ident = drive.identity
        sink.add(
            "drive_info",
            1,
            **ids,
            dev=drive.dev,
            bay="" if bay is None else str(bay),
            model=ident.model or "",
            serial=ident.serial or "",
            firmware=ident.firmware or "",
        )
        sink.add("drive_health", int(_drive_health(snap, drive.key)), **ids)
        if drive.temperature is not None:
            sink.add("drive_temperature_celsius", drive.temperature.celsius, **ids)
        if limits is not None:
            lim = limits.temp_limits(ident.drive_class, ident.model, bay)
            sink.add("drive_temperature_limit_celsius", lim.warning, **ids, severity="warning")
            sink.add("drive_temperature_limit_celsius", lim.critical, **ids, severity="critical")
        for item in drive.attributes:
            if item.id in SMART_IDS and item.raw is not None:
                attr = {"id": str(item.id), "name": item.name}
                sink.add("drive_smart_attribute_raw", item.raw, **ids, **attr)
        if drive.power_on_hours is not None:
            sink.add("drive_power_on_seconds", drive.power_on_hours * _HOUR, **ids)
        if drive.power is not PowerState.UNKNOWN:
            every = (s for s in PowerState if s is not PowerState.UNKNOWN)
            sink.states("drive_power_state", drive.power, every, "state", **ids)
            sink.add("drive_standby", 1 if drive.power.spun_down else 0, **ids)


def _pools(sink: Sink, snap: HostSnapshot, host: str, limits: Thresholds | None) -> None:
    for pool in snap.pools:
        ids = {"host": host, "pool": pool.name}
        sink.add("pool_info", 1, **ids, kind=pool.kind.value)
        sink.states("pool_state", pool.state, PoolState, "state", **ids)
        sink.add("pool_health", int(pool_health(snap, pool)), **ids)
        sink.add("pool_size_bytes", pool.size_bytes, **ids)
        sink.add("pool_allocated_bytes", pool.allocated_bytes, **ids)
        if limits is not None:
            cap = limits.pools.capacity_for(pool.name)
            sink.add("pool_capacity_limit_ratio", cap.warning / 100, **ids, severity="warning")
            sink.add("pool_capacity_limit_ratio", cap.critical / 100, **ids, severity="critical")
            sink.add("pool_scrub_max_age_seconds", limits.scrub_max_age_days * _DAY, **ids)
        data = len(pool.error_files) or pool.error_count
        sink.add("pool_data_errors", data, **ids)
        for _, vdev in pool.root.walk():
            if vdev.children:
                continue
            counts = (vdev.read_errors, vdev.write_errors, vdev.checksum_errors)
            for kind, count in zip(("read", "write", "checksum"), counts, strict=True):
                sink.add("pool_device_errors", count, **ids, vdev=vdev.name, type=kind)
        _scan(sink, pool.scan, ids)
        if pool.last_scrub is not None:
            sink.add("pool_last_scrub_timestamp_seconds", pool.last_scrub.ended_at, **ids)


def _scan(sink: Sink, scan: ScanProgress | None, ids: dict[str, str]) -> None:
    if scan is None:
        return
    sink.states("pool_scan_kind", scan.kind, ScanKind, "scan", **ids)
    sink.states("pool_scan_state", scan.state, ScanState, "state", **ids)
    sink.add("pool_scan_progress_ratio", _ratio(scan.percent), **ids)
    if scan.state in (ScanState.RUNNING, ScanState.PAUSED, ScanState.PENDING):
        sink.add("pool_scan_eta_seconds", scan.eta_seconds, **ids)
        sink.add("pool_scan_rate_bytes_per_second", scan.rate_bytes_per_s, **ids)
    sink.add("pool_scan_errors", scan.errors, **ids)
    sink.add("pool_scan_started_timestamp_seconds", scan.started_at, **ids)


def _fans_ups(sink: Sink, snap: HostSnapshot, host: str) -> None:
    for fan in snap.fans:
        ids = {"host": host, "fan": fan.name}
        sink.add("fan_info", 1, **ids, zone=fan.zone or "")
        sink.add("fan_rpm", fan.rpm, **ids)
        sink.add("fan_duty_ratio", _ratio(fan.duty_percent), **ids)
    for sensor in snap.sensors:
        if sensor.unit == "C":
            sink.add("sensor_temperature_celsius", sensor.value, host=host, sensor=sensor.name)
    for ups in snap.ups:
        ids = {"host": host, "ups": ups.name}
        sink.add("ups_info", 1, **ids, model=ups.model or "")
        sink.states("ups_status", ups.status, UpsStatus, "status", **ids)
        sink.add("ups_battery_charge_ratio", _ratio(ups.charge_percent), **ids)
        sink.add("ups_runtime_seconds", ups.runtime_s, **ids)
        sink.add("ups_load_ratio", _ratio(ups.load_percent), **ids)
        sink.add("ups_on_battery_seconds", ups.on_battery_s, **ids)
        sink.add("ups_input_voltage_volts", ups.input_voltage, **ids)
        sink.add("ups_battery_replace", 1 if ups.battery_replace else 0, **ids)


def _everything(sink: Sink, snap: HostSnapshot, host: str, limits: Thresholds | None) -> None:
    _host(sink, snap, host)
    _drives(sink, snap, host, limits)
    _pools(sink, snap, host, limits)
    _fans_ups(sink, snap, host)


def collect(
    snapshot: HostSnapshot, limits: Thresholds | None, fleet: Sequence[FleetHost]
) -> list[Family]:
    """Every family, filled from the local `snapshot` and the `fleet` (see
    `nastui.core.metrics.render.families`)."""
    sink = Sink()
    sink.add("host_up", 1, host=snapshot.host)
    _everything(sink, snapshot, snapshot.host, limits)
    for member in fleet:
        if member.name == snapshot.host:
            continue  # a fleet entry for this box itself: the local snapshot already says it
        sink.add("host_up", 1 if member.reachable else 0, host=member.name)
        sink.add("host_last_contact_timestamp_seconds", member.last_contact, host=member.name)
        if member.snapshot is not None:
            _everything(sink, member.snapshot, member.name, limits)
    return list(sink.families.values())
