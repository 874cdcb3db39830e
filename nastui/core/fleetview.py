"""The fleet at a glance: one `FleetRow` per remote host, for the TUI's fleet screen and the CLI.

A row rolls a host up into short texts: its health (the worst of its assessed alerts and its
UPS state; "unreachable" when the last poll got no answer, "not polled" before the first), the
hottest drive, the pools' states, the UPS state and how long ago it last answered. Pure: the
caller passes `now` and the degree sign, and gets plain strings back.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from nastui.core import units
from nastui.core.ack import apply_alert_acks
from nastui.core.assess import fleet_alerts, ups_health
from nastui.core.summary import STALE_MARK, hottest
from nastui.model import (
    Acknowledgement,
    Alert,
    FleetHost,
    Health,
    HostSnapshot,
    Pool,
    PoolState,
    ScanState,
    Subject,
    Ups,
    UpsStatus,
    worst,
)

UNREACHABLE = "unreachable"
NOT_POLLED = "not polled"

# Status words: shouted when the load runs on the battery, as an operator must notice it.
_UPS_WORD = {
    UpsStatus.ONLINE: ("online", "online"),
    UpsStatus.ON_BATTERY: ("ON BATTERY", "ON BATT"),
    UpsStatus.BATTERY_LOW: ("BATTERY LOW", "BATT LOW"),
    UpsStatus.BYPASS: ("bypass", "bypass"),
    UpsStatus.OFF: ("OFF", "OFF"),
    UpsStatus.UNKNOWN: ("unknown", "unknown"),
}


@dataclass(frozen=True, slots=True)
class FleetRow:
    """One host of the fleet, rolled up into short texts.

    Attributes:
        name: the configured host name.
        address: "address:port" as polled.
        profile: the SNMP profile it is read with.
        health: the roll-up: worst alert or UPS state; CRITICAL when unreachable, UNKNOWN
            before the first poll.
        status: the health in a word: "OK", "WARNING", ..., "unreachable", "not polled".
        hottest: the hottest drive, "41°C disk3" ("41C disk3" without a degree sign); "" when
            no drive reports a temperature. Stale data (an unreachable host) starts with "~".
        hottest_c: that drive's temperature, for sorting and colouring.
        pools: every pool with its state and a running scan: "tank ONLINE scrub 40%, cold
            DEGRADED"; "" when the host reports none.
        pool_forms: the pools summary, most detailed form first (see `pool_variants`): "tank
            ONLINE scrub 40%, cold DEGRADED" down to "cold DEGRADED +1"; ("",) without pools.
            `pick_form` chooses one for a column width.
        ups: the UPS state, "online 100% 42 min" or "ON BATTERY 63% 12 min"; "" without one.
        ups_short: the same for a narrow column: "online 100% 42m", "ON BATT 63% 12m".
        contact: when the host last answered, by the minute: "<1 min ago", "3 h ago", "never".
        stale: the drive, pool and UPS texts come from an earlier poll (the last one failed).
        problem: the one line to read first: the poll error, else the worst alert; "" if none.
        drives: how many drives the host reports (0 for a UPS, or before any answer).
    """

    name: str
    address: str
    profile: str
    health: Health
    status: str
    hottest: str = ""
    hottest_c: float | None = None
    pools: str = ""
    pool_forms: tuple[str, ...] = ("",)
    ups: str = ""
    ups_short: str = ""
    contact: str = "never"
    stale: bool = False
    problem: str = ""
    drives: int = 0


def contact_age(last_contact: float | None, now: float, *, coarse: bool = False) -> str:
    """How long ago a host answered: "12 s ago", "5 min ago", "3 h ago"; "never".

    `coarse` (the fleet table's rows) says "<1 min ago" for the first minute, so a row does not
    change on every tick; the selected host's own lines keep the seconds.
    """
    if last_contact is None:
        return "never"
    seconds = max(0.0, now - last_contact)
    if seconds < 60:
        return "<1 min ago" if coarse else f"{seconds:.0f} s ago"
    return units.age(seconds)


def ups_text(ups: Ups, *, compact: bool = False) -> str:
    """ "online 100% 42 min", "ON BATTERY 63% 12 min"; compact: "ON BATT 63% 12m"."""
    word = _UPS_WORD.get(ups.status, ("unknown", "unknown"))[compact]
    parts = [word]
    if ups.charge_percent is not None:
        parts.append(f"{ups.charge_percent:.0f}%")
    if ups.runtime_s is not None:
        minutes = ups.runtime_s / 60
        parts.append(f"{minutes:.0f}m" if compact else f"{minutes:.0f} min")
    if ups.battery_replace:
        parts.append("REPL BATT" if compact else "replace battery")
    return " ".join(parts)


def ups_state(host: FleetHost) -> tuple[str, Health]:
    """A UPS host's state in words and its health: "online 100% 42 min" (as `ups_text`), or
    "unreachable" (CRITICAL) when it did not answer or reported no UPS."""
    upses = host.snapshot.ups if host.snapshot is not None else ()
    if host.error is not None or not upses:
        return UNREACHABLE, Health.CRITICAL
    return ups_text(upses[0]), ups_health(upses[0])


def _pool_part(pool: Pool, *, with_scan: bool) -> str:
    text = f"{pool.name} {pool.state.value}"
    scan = pool.scan
    if with_scan and scan is not None and scan.state in (ScanState.RUNNING, ScanState.PAUSED):
        percent = scan.percent
        text += f" {scan.kind.value} {percent:.0f}%" if percent is not None else f" {scan.kind}"
    return text


def pool_variants(pools: Sequence[Pool]) -> tuple[str, ...]:
    """The pools summary from the most detailed form to the least; ("",) when there are none.

    Every pool with its state and running scan ("tank ONLINE scrub 40%, cold DEGRADED"); the
    same without scans; names grouped by state, the worst first ("cold DEGRADED, tank
    ONLINE", "tank, cold ONLINE"); the pools not ONLINE by name and the rest counted
    ("cold DEGRADED, 1 ONLINE", "cold DEGRADED +1"); only counts ("1 DEGRADED, 1 ONLINE").
    """
    if not pools:
        return ("",)
    by_state: dict[PoolState, list[str]] = {}
    for pool in sorted(pools, key=lambda p: p.state is PoolState.ONLINE):
        by_state.setdefault(pool.state, []).append(pool.name)
    bad = [p for p in pools if p.state is not PoolState.ONLINE]
    online = len(pools) - len(bad)
    named_bad = [f"{p.name} {p.state.value}" for p in bad]
    counts = [f"{len(names)} {state.value}" for state, names in by_state.items()]
    candidates = (
        ", ".join(_pool_part(p, with_scan=True) for p in pools),
        ", ".join(_pool_part(p, with_scan=False) for p in pools),
        ", ".join(f"{', '.join(names)} {state.value}" for state, names in by_state.items()),
        ", ".join(named_bad + ([f"{online} ONLINE"] if online else [])),
        ", ".join(named_bad) + (f" +{online}" if online else "") if bad else "",
        ", ".join(counts),
    )
    variants: list[str] = []
    for text in candidates:
        if text and text not in variants:
            variants.append(text)
    return tuple(variants)


def pools_text(pools: Sequence[Pool], width: int | None = None, *, ellipsis: str = "...") -> str:
    """The most detailed pools summary that fits in `width` (see `pool_variants`), cut as a
    last resort; the full one when `width` is None."""
    return pick_form(pool_variants(pools), width, ellipsis=ellipsis)


def pick_form(forms: Sequence[str], width: int | None, *, ellipsis: str = "...") -> str:
    """The first of `forms` (most detailed first) that fits in `width`, else the shortest one
    cut to `width` with `ellipsis`; the first when `width` is None."""
    if width is None or not forms:
        return forms[0] if forms else ""
    for text in forms:
        if len(text) <= width:
            return text
    last = min(forms, key=len)
    if width <= len(ellipsis):
        return last[:width]
    return last[: width - len(ellipsis)] + ellipsis


def hottest_text(snapshot: HostSnapshot, *, degree: str = "°") -> tuple[str, float | None]:
    """The hottest drive as "41°C disk3" and its temperature; ("", None) when none reports."""
    drive = hottest(snapshot)
    if drive is None or drive.temperature is None:
        return "", None
    celsius = drive.temperature.celsius
    return f"{celsius:.0f}{degree}C {drive.dev}", celsius


def _unreachable(host: FleetHost) -> bool:
    return host.error is not None or (host.polled_at is not None and not host.reachable)


def host_health(host: FleetHost, now: float) -> Health:
    """A host's roll-up: the worst of its unacknowledged alerts (`fleet_alerts`: CRITICAL
    when unreachable) and its UPSes' states; UNKNOWN before the first poll."""
    if not _unreachable(host) and host.snapshot is None:
        return Health.UNKNOWN
    alerts = (a.health for a in fleet_alerts(host, now) if not a.acknowledged)
    upses = host.snapshot.ups if host.snapshot is not None else ()
    return worst((*alerts, *(ups_health(u) for u in upses)))


def _status(host: FleetHost, health: Health) -> str:
    if _unreachable(host):
        return UNREACHABLE
    if host.snapshot is None:
        return NOT_POLLED
    return health.name


def _problem(host: FleetHost) -> str:
    if _unreachable(host):
        return host.error or f"{host.name}: no answer from {host.address}"
    snapshot = host.snapshot
    if snapshot is None:
        return ""
    first = next((a for a in snapshot.alerts if not a.acknowledged), None)
    if first is not None:
        return f"{first.name}: {first.message}"
    ups = [u for u in snapshot.ups if ups_health(u) is not Health.OK]
    return f"UPS {ups[0].name}: {ups_text(ups[0])}" if ups else ""


def fleet_row(host: FleetHost, now: float, *, degree: str = "°") -> FleetRow:
    """Roll one host up (`degree` "" for plain ASCII)."""
    health = host_health(host, now)
    row = FleetRow(
        name=host.name,
        address=host.address,
        profile=host.profile,
        health=health,
        status=_status(host, health),
        contact=contact_age(host.last_contact, now, coarse=True),
        stale=host.snapshot is not None and not host.reachable,
        problem=_problem(host),
    )
    snapshot = host.snapshot
    if snapshot is None:
        return row
    hot, celsius = hottest_text(snapshot, degree=degree)
    variants = pool_variants(snapshot.pools)
    mark = STALE_MARK if row.stale and hot else ""
    return dataclasses.replace(
        row,
        hottest=mark + hot,
        hottest_c=celsius,
        pools=variants[0],
        pool_forms=variants,
        ups=", ".join(ups_text(u) for u in snapshot.ups),
        ups_short=", ".join(ups_text(u, compact=True) for u in snapshot.ups),
        drives=len(snapshot.drives),
    )


def fleet_rows(
    hosts: Iterable[FleetHost], now: float, *, degree: str = "°"
) -> tuple[FleetRow, ...]:
    """One row per host, in the configured order."""
    return tuple(fleet_row(host, now, degree=degree) for host in hosts)


def fleet_summary(rows: Sequence[FleetRow]) -> str:
    """One line for the whole fleet: "4 hosts: 2 OK, 1 WARNING, 1 unreachable"."""
    if not rows:
        return "no hosts configured"
    counts: dict[str, int] = {}
    for row in rows:
        counts[row.status] = counts.get(row.status, 0) + 1
    order = ("OK", "WARNING", "CRITICAL", "UNKNOWN", UNREACHABLE, NOT_POLLED)
    parts = [f"{counts[s]} {s}" for s in order if s in counts]
    noun = "host" if len(rows) == 1 else "hosts"
    return f"{len(rows)} {noun}: " + ", ".join(parts)


def fleet_alert_list(
    hosts: Iterable[FleetHost], acks: Iterable[Acknowledgement], now: float
) -> tuple[Alert, ...]:
    """Every alert of the fleet (`[[host]]`s and `[[ups]]`es: `fleet_alerts`, each naming its
    host), the acknowledgements applied, worst first: what the daemon sends about them, what
    `alert list` lists and `alert ack` takes (by "HOST/KEY")."""
    found = apply_alert_acks([a for host in hosts for a in fleet_alerts(host, now)], acks, now)
    return tuple(sorted(found, key=lambda a: -a.health.rank))


def power_alerts(alerts: Iterable[Alert]) -> tuple[Alert, ...]:
    """The alerts about a UPS (on battery, battery low): the box's own power, so they count in
    its state (`status`'s exit code, the interface's header) as its own alerts do."""
    return tuple(a for a in alerts if a.subject is Subject.UPS)


def with_alerts(snapshot: HostSnapshot, extra: Sequence[Alert]) -> HostSnapshot:
    """`snapshot` with `extra` among its alerts, worst first (itself when there are none)."""
    if not extra:
        return snapshot
    alerts = sorted([*snapshot.alerts, *extra], key=lambda a: -a.health.rank)
    return dataclasses.replace(snapshot, alerts=tuple(alerts))
