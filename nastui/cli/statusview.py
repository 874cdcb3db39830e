"""`nastui status`: a one-screen summary in monitoring-plugin form (pure rendering).

The first line is what Nagios, Icinga or Checkmk show, with performance data after `|`
(`nastui.core.perfdata`: counts, the hottest drive, every pool's usage):
    NASTUI WARNING - nano: 1 warning: bay 13 sdk: Current_Pending_Sector 8 | 'drives'=24;;;0 ...
Then one line per problem, worst first, and a line each for drives, pools, fans and sensors;
with `verbose`, what each collector did (a stack that is absent is "off") and the notes (a
virtual disk without SMART, ignored findings). The last line ends with every drive's
temperature as more performance data (the plugin guidelines' long-output form). No line has a
`|` of its own: alert text is cleaned (`perfdata.text`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from nastui.cli.baytable import drive_entry
from nastui.core import perfdata, summary
from nastui.core.assess import drive_place, overall
from nastui.core.capacity import capacity_limits_of, full_text
from nastui.core.glyphs import Glyphs
from nastui.model import Alert, Health, HostSnapshot, Pool, Thresholds

FullIn = Mapping[str, float | None]  # pool name -> seconds until full (from the history)

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


def headline(snapshot: HostSnapshot, limits: Thresholds | None = None) -> str:
    """The plugin status line with performance data."""
    state = overall(snapshot)
    perf = perfdata.joined(perfdata.summary_items(snapshot, limits or Thresholds()))
    open_alerts = [a for a in snapshot.alerts if not a.acknowledged]
    if not open_alerts:
        text = f"{len(snapshot.drives)} drives, {len(snapshot.pools)} pools, all OK"
        acked = len(snapshot.alerts)
        text += f" ({acked} acknowledged)" if acked else ""
    else:
        first = open_alerts[0]
        text = f"{_counts(snapshot.alerts)}: {first.name}: {first.message}"
    return perfdata.text(f"NASTUI {state.name} - {snapshot.host}: {text}") + f" | {perf}"


def problem_lines(snapshot: HostSnapshot) -> list[str]:
    """One line per alert, worst first, capped to keep the summary on one screen."""
    lines = [
        perfdata.text(f"{a.health.name:<8} {a.name}: {a.message}")
        + (" (acknowledged)" if a.acknowledged else "")
        for a in snapshot.alerts
    ]
    if len(lines) > MAX_PROBLEM_LINES:
        more = len(lines) - MAX_PROBLEM_LINES + 1
        lines = [*lines[: MAX_PROBLEM_LINES - 1], f"... and {more} more (nastui status --json)"]
    return lines


def _drive_line(snapshot: HostSnapshot, limits: Thresholds) -> str:
    counts = summary.drive_counts(snapshot)
    line = f"drives   {counts.total} ({counts.in_bays} in bays, {counts.standby} in standby)"
    hot = summary.hottest(snapshot)
    if hot is not None and hot.temperature is not None:
        old = summary.reading_age(hot, snapshot.taken_at, limits)
        where = drive_place(snapshot, hot) + (f", {old}" if old else "")
        line += f", hottest {hot.temperature.celsius:.0f} °C ({where})"
    return line


def _pool_line(pool: Pool, now: float, full_in: FullIn) -> str:
    line = summary.pool_text(pool, now)
    eta = full_text(full_in.get(pool.name))
    return f"{line}, {eta}" if eta else line


def section_lines(
    snapshot: HostSnapshot, full_in: FullIn | None = None, limits: Thresholds | None = None
) -> list[str]:
    """Drives, pools, fans and sensors, a line or so each (a hottest drive's old reading
    said so, by `limits`)."""
    now = snapshot.taken_at
    lines = [_drive_line(snapshot, limits or Thresholds())]
    for i, pool in enumerate(snapshot.pools):
        text = _pool_line(pool, now, full_in or {})
        lines.append(("pools    " if i == 0 else "         ") + text)
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


def verbose_lines(snapshot: HostSnapshot) -> list[str]:
    """What each collector did, and the findings that are notes rather than alerts (a virtual
    disk without SMART, findings ignored by the configuration), each once."""
    lines = [
        f"{s.name:<8} {s.state}" + (f": {s.detail}" if s.detail else "")
        for s in snapshot.collectors
    ]
    for drive in snapshot.drives:
        for reason in drive.verdict.reasons:
            if reason.health is Health.OK and not reason.acknowledged:
                lines.append(f"{drive_place(snapshot, drive)}: {reason.text}")
    return [perfdata.text(line) for line in lines]


def render_status(
    snapshot: HostSnapshot,
    glyphs: Glyphs,
    limits: Thresholds | None = None,
    *,
    verbose: bool = False,
    full_in: FullIn | None = None,
    extra: Sequence[str] = (),
) -> str:
    """The whole summary as text (`verbose`: with collectors and notes; `extra`: section
    lines after the box's own, such as the UPSes)."""
    limits = limits or Thresholds()
    lines = [headline(snapshot, limits), *problem_lines(snapshot), ""]
    lines += [perfdata.text(line) for line in [*section_lines(snapshot, full_in, limits), *extra]]
    if verbose:
        lines += ["", *verbose_lines(snapshot)]
    temps = perfdata.joined(perfdata.drive_items(snapshot, limits))
    if temps:  # long-output performance data: after the last line's `|`
        lines[-1] += " | " + temps
    return ("\n".join(lines) + "\n").replace("°", glyphs.degree)


def _pool_entry(pool: Pool, now: float, limits: Thresholds, full_in: FullIn) -> dict[str, Any]:
    cap = capacity_limits_of(pool, limits.pools)
    return {
        "name": pool.name,
        "kind": pool.kind.value,
        "state": pool.state.value,
        "size_bytes": pool.size_bytes,
        "allocated_bytes": pool.allocated_bytes,
        "used_percent": pool.used_percent,
        "capacity_warning": cap.warning,
        "capacity_critical": cap.critical,
        "full_in_s": full_in.get(pool.name),
        "scan": summary.scan_text(pool.scan, now) if pool.scan else None,
        "last_scrub_age_s": (
            now - pool.last_scrub.ended_at
            if pool.last_scrub and pool.last_scrub.ended_at is not None
            else None
        ),
        "summary": summary.pool_text(pool, now),
    }


def status_data(
    snapshot: HostSnapshot, limits: Thresholds, full_in: FullIn | None = None
) -> dict[str, Any]:
    """The summary as JSON-ready data."""
    state = overall(snapshot)
    now = snapshot.taken_at
    return {
        "host": snapshot.host,
        "source": snapshot.source,
        "taken_at": snapshot.taken_at,
        "state": state.name,
        "exit_code": int(state),
        "summary": headline(snapshot, limits),
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
        "pools": [_pool_entry(p, now, limits, full_in or {}) for p in snapshot.pools],
        "fans": [
            {"name": f.name, "rpm": f.rpm, "duty_percent": f.duty_percent, "zone": f.zone}
            for f in snapshot.fans
        ],
        "errors": [{"source": e.source, "message": e.message} for e in snapshot.errors],
        "collectors": [
            {"name": c.name, "state": c.state, "detail": c.detail} for c in snapshot.collectors
        ],
        "notes": verbose_lines(snapshot)[len(snapshot.collectors) :],
    }
