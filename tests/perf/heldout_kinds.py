"""The held-out captures that are not pools: what `tests.perf.heldout_score` reads from each.

Each reader turns a capture into a flat dict of the facts a NAS operator needs (what the
EXPECTED.json entry of the sample names), through the parser the live path uses; `fact_misses`
compares the two. A reader that raises has dropped everything: every expected fact is a miss.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

from nastui.bench.fiojson import parse_dump
from nastui.cli.cmd_smart import explained
from nastui.collectors.btrfs.text import (
    parse_device_stats_report,
    parse_filesystem_show_report,
    parse_replace_status,
)
from nastui.collectors.enclosure_controllers import parse_ircu_display, parse_storcli
from nastui.collectors.ipmi import parse_sdr
from nastui.collectors.smart.collector import parse_capture
from nastui.model import Thresholds

NOW = 2_000_000_000.0
Facts = dict[str, Any]


def ipmi_facts(text: str) -> Facts:
    """Every analog reading as "name": [value, unit, status], and how many."""
    readings = parse_sdr(text)
    facts: Facts = {"count": len(readings)}
    for r in readings:
        facts[r.name] = [r.value, r.unit, r.status]
    return facts


def smart_facts(text: str) -> Facts:
    """Identity, temperature, power-on hours and the verdict `nastui smart explain` gives."""
    reading = parse_capture(text, "capture")
    drive = explained(reading, Thresholds(), NOW)
    ident = drive.identity
    temperature = drive.temperature.celsius if drive.temperature is not None else None
    return {
        "model": ident.model,
        "serial": ident.serial,
        "capacity": ident.capacity_bytes,
        "temp": temperature,
        "hours": drive.power_on_hours,
        "health": drive.verdict.health.name,
    }


def slot_facts(slots: dict[str, Any]) -> Facts:
    """Serial -> "enclosure:slot", and how many drives."""
    facts: Facts = {"count": len(slots)}
    for serial, slot in slots.items():
        facts[serial] = f"{slot.enclosure}:{slot.slot}"
    return facts


def storcli_facts(text: str) -> Facts:
    return slot_facts(parse_storcli(text))


def ircu_facts(text: str) -> Facts:
    return slot_facts(parse_ircu_display(text))


def fio_facts(text: str) -> Facts:
    """I/Os per direction, and whether the job's runtime is the wall time the directions ran
    (fio's `job_runtime` sums the jobs of a `group_reporting` group)."""
    dump = parse_dump(text, "capture")
    data = json.loads(text)
    wall = max(
        (j.get(d, {}).get("runtime", 0) for j in data["jobs"] for d in ("read", "write")),
        default=0,
    )
    close = abs(dump.job_runtime_ms - wall) <= max(1500, 0.05 * wall)
    return {
        "read_ios": dump.read.total_ios,
        "write_ios": dump.write.total_ios,
        "jobs": dump.jobs,
        "runtime_is_wall": close,
    }


def btrfs_show_facts(text: str) -> Facts:
    """Per filesystem uuid: label, devices listed and missing."""
    filesystems, _ = parse_filesystem_show_report(text)
    facts: Facts = {"count": len(filesystems)}
    for fs in filesystems:
        missing = sum(1 for d in fs.devices if d.missing)
        facts[fs.uuid] = [fs.label, len(fs.devices), missing, fs.total_devices]
    return facts


def btrfs_stats_facts(text: str) -> Facts:
    """Device path -> its five counters."""
    stats, _ = parse_device_stats_report(text)
    return {"count": len(stats), **stats}


def btrfs_replace_facts(text: str) -> Facts:
    replace = parse_replace_status(text, NOW)
    return {
        "state": replace.state,
        "percent": replace.percent,
        "write_errors": replace.write_errors,
        "read_errors": replace.read_errors,
    }


READERS: dict[str, Callable[[str], Facts]] = {
    "ipmi": ipmi_facts,
    "smart": smart_facts,
    "storcli": storcli_facts,
    "ircu": ircu_facts,
    "fio": fio_facts,
    "btrfs-show": btrfs_show_facts,
    "btrfs-stats": btrfs_stats_facts,
    "btrfs-replace": btrfs_replace_facts,
}


def _same(got: object, want: object) -> bool:
    if isinstance(want, str) and "|" in want:
        return got in want.split("|")
    if isinstance(want, float) and isinstance(got, (int, float)):
        return math.isclose(got, want, rel_tol=1e-6)
    return got == want


def fact_misses(kind: str, text: str, want: Facts) -> list[str]:
    """What is wrong or missing, one phrase each; empty when the sample scores."""
    try:
        got = READERS[kind](text)
    except Exception as exc:  # a reader that raises dropped the whole capture
        return [f"raised {type(exc).__name__}: {str(exc)[:100]}"]
    return [
        f"{key} {got.get(key)!r} (want {value!r})"
        for key, value in want.items()
        if not _same(got.get(key), value)
    ]
