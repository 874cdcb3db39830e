"""Monitoring-plugin output (pure): performance data and text that cannot break it.

Performance data follows the Nagios plugin guidelines, as Icinga and Checkmk read them:
`'label'=value[UOM];[warn];[crit];[min];[max]`, items separated by spaces, labels always in
single quotes and made of letters, digits and `_ . : -` only (no spaces, quotes or `=`:
Graphite and friends choke on them). Units: none for counts, `C` for temperatures, `%` and `B`
for pool usage. The first `|` of a line starts performance data, so `text` replaces any `|`
in alert text with `/`.

    NASTUI WARNING - nano: 1 warning: tank: 83% full (warning 80%) | 'drives'=24;;;0 ...
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from nastui.core.capacity import capacity_limits_of
from nastui.model import Drive, HostSnapshot, Thresholds

# Sample: temp_bay13   pool_tank_used   temp_nvme0n1
_UNSAFE = re.compile(r"[^A-Za-z0-9_.:-]+")


def text(line: str) -> str:
    """`line` safe in plugin output: no `|` (which starts performance data), no line breaks."""
    return line.replace("|", "/").replace("\r", " ").replace("\n", " ")


def label(name: str) -> str:
    """A quoted label of only safe characters ("temp bay 13" -> "'temp_bay_13'")."""
    return "'" + (_UNSAFE.sub("_", name).strip("_") or "unnamed") + "'"


def _num(value: float | None) -> str:
    if value is None:
        return ""
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.2f}".rstrip("0")


def item(
    name: str,
    value: float,
    uom: str = "",
    *,
    warn: float | None = None,
    crit: float | None = None,
    low: float | None = None,
    high: float | None = None,
) -> str:
    """One performance-data item; trailing empty fields are left out."""
    fields = [f"{_num(value)}{uom}", _num(warn), _num(crit), _num(low), _num(high)]
    while len(fields) > 1 and not fields[-1]:
        fields.pop()
    return f"{label(name)}={';'.join(fields)}"


def _place(snapshot: HostSnapshot, drive: Drive) -> str:
    bay = snapshot.bay_of(drive.key)
    return f"bay{bay}" if bay is not None else drive.dev


def summary_items(snapshot: HostSnapshot, limits: Thresholds) -> Iterator[str]:
    """Drives, pools, standby wake-ups, the hottest drive, and every pool's usage."""
    yield item("drives", len(snapshot.drives), low=0)
    yield item("pools", len(snapshot.pools), low=0)
    if any(d.wakeups is not None for d in snapshot.drives):
        yield item("wakeups", sum(d.wakeups or 0 for d in snapshot.drives), low=0)
    temps = [d for d in snapshot.drives if d.temperature is not None]
    if temps:
        hot = max(temps, key=lambda d: d.temperature.celsius if d.temperature else 0.0)
        assert hot.temperature is not None
        lim = limits.temps[hot.identity.drive_class]
        yield item("hottest", hot.temperature.celsius, "C", warn=lim.warning, crit=lim.critical)
    for pool in snapshot.pools:
        used = pool.used_percent
        if used is None:
            continue
        cap = capacity_limits_of(pool, limits.pools)
        yield item(
            f"pool_{pool.name}",
            round(used, 1),
            "%",
            warn=cap.warning,
            crit=cap.critical,
            low=0,
            high=100,
        )
        if pool.allocated_bytes is not None:
            yield item(
                f"pool_{pool.name}_used", pool.allocated_bytes, "B", low=0, high=pool.size_bytes
            )


def drive_items(snapshot: HostSnapshot, limits: Thresholds) -> Iterator[str]:
    """Every drive's temperature, labelled by bay (or device), with its class's limits."""
    for drive in snapshot.drives:
        if drive.temperature is None:
            continue
        lim = limits.temps[drive.identity.drive_class]
        name = f"temp_{_place(snapshot, drive)}"
        yield item(name, drive.temperature.celsius, "C", warn=lim.warning, crit=lim.critical)


def joined(items: Iterable[str]) -> str:
    """Items separated by spaces."""
    return " ".join(items)
