"""The `[collectors]` and `[pools]` sections: which pool collectors run, which drives and
findings make no alerts, and the pool capacity limits.

    [collectors]
    zfs = "auto"      # "auto" (on when ZFS is present), true, or false
    md = "auto"
    btrfs = false

    [[collectors.ignore]]       # a drive, or some of its findings, that makes no alerts
    serial = "WD-WCC4N1234567"  # and/or model = "ST8000DM004*" (a shell pattern), bay = 13
    findings = [199, "temp"]    # attribute ids or finding keys; left out: the whole drive

    [pools]
    capacity_warning = 80       # percent of usable space
    capacity_critical = 90
    [[pools.pool]]
    name = "backup"
    capacity_warning = 95
    capacity_critical = 98
"""

from __future__ import annotations

import re

from nastui.config.keys import COLLECTOR_KEYS, IGNORE_KEYS, POOL_KEYS, POOLS_KEYS
from nastui.config.validate_base import Section, check_order
from nastui.config.validate_chassis import MAX_BAY
from nastui.model import (
    CapacityLimits,
    CollectorMode,
    CollectorsConfig,
    IgnoreRule,
    PoolPolicy,
)

# Sample: attr:199   temp   nvme:media   scsi:defects   smart   selftest
FINDING = re.compile(r"^[a-z][a-z0-9_-]*(?::[a-z0-9_-]+)*$")
_MODES = {"auto": CollectorMode.AUTO, True: CollectorMode.ON, False: CollectorMode.OFF}


def _mode(sec: Section, key: str) -> CollectorMode:
    value = sec.table.get(key, "auto")
    for given, mode in _MODES.items():
        if value is given or (isinstance(value, str) and value == given):
            return mode
    sec.wrong(key, '"auto", true or false')
    return CollectorMode.AUTO


def read_collectors(root: Section) -> tuple[CollectorsConfig, tuple[IgnoreRule, ...]]:
    """The collector switches and the ignore rules (defaults: all "auto", nothing ignored)."""
    sec = root.table_at("collectors")
    if sec is None:
        return CollectorsConfig(), ()
    sec.check_keys(COLLECTOR_KEYS)
    switches = CollectorsConfig(
        zfs=_mode(sec, "zfs"), md=_mode(sec, "md"), btrfs=_mode(sec, "btrfs")
    )
    rules = tuple(r for r in map(_ignore_rule, sec.tables("ignore")) if r is not None)
    return switches, rules


def _finding(sec: Section, item: object) -> str | None:
    if isinstance(item, int) and not isinstance(item, bool) and 1 <= item <= 255:
        return f"attr:{item}"
    if isinstance(item, str) and FINDING.match(item.strip()):
        return item.strip()
    sec.report(
        "findings",
        f"{sec.name('findings')} must hold attribute ids (1-255) or finding keys "
        f'("attr:199", "temp", "nvme:media"), got {item!r}',
    )
    return None


def _ignore_rule(sec: Section) -> IgnoreRule | None:
    sec.check_keys(IGNORE_KEYS)
    serial, model = sec.text("serial"), sec.text("model")
    bay = sec.integer("bay", low=1, high=MAX_BAY)
    findings: list[str] = []
    for _, item in sec.items("findings"):
        found = _finding(sec, item)
        if found is not None:
            findings.append(found)
    if serial is None and model is None and bay is None:
        sec.report(None, f"{sec.where} needs serial, model or bay (which drives to ignore)")
        return None
    return IgnoreRule(serial, model, bay, frozenset(findings))


def _capacity(sec: Section, default: CapacityLimits) -> CapacityLimits:
    limits = CapacityLimits(
        sec.number("capacity_warning", default.warning, low=1, high=100, unit="%"),
        sec.number("capacity_critical", default.critical, low=1, high=100, unit="%"),
    )
    check_order(
        (sec, "capacity_warning", limits.warning),
        (sec, "capacity_critical", limits.critical),
        strict=True,
    )
    return limits


def read_pools(root: Section) -> PoolPolicy:
    """The capacity limits, default and per pool (defaults: 80 % warns, 90 % is critical)."""
    sec = root.table_at("pools")
    if sec is None:
        return PoolPolicy()
    sec.check_keys(POOLS_KEYS)
    default = _capacity(sec, CapacityLimits())
    per_pool: dict[str, CapacityLimits] = {}
    for table in sec.tables("pool"):
        table.check_keys(POOL_KEYS)
        name = table.text("name", required=True)
        if name is None:
            continue
        if name in per_pool:
            table.report("name", f"{table.name('name')} {name!r} is already set")
        per_pool[name] = _capacity(table, default)
    return PoolPolicy(default, tuple(per_pool.items()))
