"""`nastui status`: a one-screen summary in monitoring-plugin form (pure rendering).

The first line is what Nagios, Icinga or Checkmk show, with performance data after `|`:
    NASTUI WARNING - nano: 1 warning: bay 13 sdk: Current_Pending_Sector 8 | drives=24 hottest_c=40
Then one line per problem, worst first, and a line each for drives, pools, fans and sensors.
"""

from __future__ import annotations

from typing import Any

from nastui.cli.baytable import drive_entry
from nastui.core import summary
from nastui.core.assess import drive_place, overall
from nastui.core.glyphs import Glyphs
from nastui.model import Alert, Health, HostSnapshot, Thresholds

MAX_PROBLEM_LINES = 12


def _counts(alerts: tuple[Alert, ...]) -> str:
    parts = []
    for health, word in (
        (Health.CRITICAL, "critical"),
        (Health.WARNING, "warning"),
        (Health.UNKNOWN, "unknown"),
    ):
        n = sum(1 for a in alerts if a.health is health and not a.acknowledged)
        if n:
            parts.append(f"{n} {word}" + ("s" if n > 1 and word == "warning" else ""))
    return ", ".join(parts)


def headline(snapshot: HostSnapshot) -> str:
    """The plugin status line with performance data."""
    state = overall(snapshot)
    hot = summary.hottest(snapshot)
    perf = f"drives={len(snapshot.drives)} pools={len(snapshot.pools)}"
    if hot is not None and hot.temperature is not None:
        perf += f" hottest_c={hot.temperature.celsius:.0f}"
    wakeups = sum(d.wakeups or 0 for d in snapshot.drives)
    if any(d.wakeups is not None for d in snapshot.drives):
        perf += f" wakeups={wakeups}"
    open_alerts = [a for a in snapshot.alerts if not a.acknowledged]
    if not open_alerts:
        text = f"{len(snapshot.drives)} drives, {len(snapshot.pools)} pools, all OK"
    else:
        first = open_alerts[0]
        text = f"{_counts(snapshot.alerts)}: {first.name}: {first.message}"
    return f"NASTUI {state.name} - {snapshot.host}: {text} | {perf}"


def problem_lines(snapshot: HostSnapshot) -> list[str]:
    """One line per alert, worst first, capped to keep the summary on one screen."""
    lines = [
        f"{a.health.name:<8} {a.name}: {a.message}" + (" (acknowledged)" if a.acknowledged else "")
        for a in snapshot.alerts
    ]
    if len(lines) > MAX_PROBLEM_LINES:
        more = len(lines) - MAX_PROBLEM_LINES + 1
        lines = [*lines[: MAX_PROBLEM_LINES - 1], f"... and {more} more (nastui status --json)"]
    return lines


def _drive_line(snapshot: HostSnapshot) -> str:
    counts = summary.drive_counts(snapshot)
    line = f"drives   {counts.total} ({counts.in_bays} in bays, {counts.standby} in standby)"
    hot = summary.hottest(snapshot)
    if hot is not None and hot.temperature is not None:
        line += f", hottest {hot.temperature.celsius:.0f} °C ({drive_place(snapshot, hot)})"
    return line


def section_lines(snapshot: HostSnapshot) -> list[str]:
    """Drives, pools, fans and sensors, a line or so each."""
    now = snapshot.taken_at
    lines = [_drive_line(snapshot)]
    for i, pool in enumerate(snapshot.pools):
        lines.append(("pools    " if i == 0 else "         ") + summary.pool_text(pool, now))
    if snapshot.fans:
        fans = ", ".join(
            f"{f.name} {f.rpm if f.rpm is not None else '?'} rpm" for f in snapshot.fans
        )
        lines.append(f"fans     {fans}")
    if snapshot.sensors:
        sensors = ", ".join(
            f"{s.name} {s.value:.0f} {'°C' if s.unit == 'C' else s.unit}"
            for s in snapshot.sensors
            if s.value is not None
        )
        lines.append(f"sensors  {sensors}")
    return lines


def render_status(snapshot: HostSnapshot, glyphs: Glyphs) -> str:
    """The whole summary as text."""
    lines = [headline(snapshot), *problem_lines(snapshot), "", *section_lines(snapshot)]
    return ("\n".join(lines) + "\n").replace("°", glyphs.degree)


def status_data(snapshot: HostSnapshot, limits: Thresholds) -> dict[str, Any]:
    """The summary as JSON-ready data."""
    state = overall(snapshot)
    now = snapshot.taken_at
    return {
        "host": snapshot.host,
        "source": snapshot.source,
        "taken_at": snapshot.taken_at,
        "state": state.name,
        "exit_code": int(state),
        "summary": headline(snapshot),
        "alerts": [
            {
                "key": a.key,
                "health": a.health.name,
                "subject": a.subject.value,
                "name": a.name,
                "message": a.message,
                "acknowledged": a.acknowledged,
            }
            for a in snapshot.alerts
        ],
        "drives": [drive_entry(snapshot, d, limits) for d in snapshot.drives],
        "pools": [
            {
                "name": p.name,
                "kind": p.kind.value,
                "state": p.state.value,
                "size_bytes": p.size_bytes,
                "allocated_bytes": p.allocated_bytes,
                "scan": summary.scan_text(p.scan, now) if p.scan else None,
                "last_scrub_age_s": (
                    now - p.last_scrub.ended_at
                    if p.last_scrub and p.last_scrub.ended_at is not None
                    else None
                ),
                "summary": summary.pool_text(p, now),
            }
            for p in snapshot.pools
        ],
        "fans": [
            {"name": f.name, "rpm": f.rpm, "duty_percent": f.duty_percent, "zone": f.zone}
            for f in snapshot.fans
        ],
        "errors": [{"source": e.source, "message": e.message} for e in snapshot.errors],
    }
