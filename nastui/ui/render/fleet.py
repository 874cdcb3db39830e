"""The fleet screen's table and a host's drill-down: drives, UPS and alerts (pure).

The table keeps the columns an operator needs on an 80x24 serial console (host, health, hottest
drive, pools, UPS, last contact) and adds address, profile and the first problem as the width
allows. Every health carries a mark as well as a colour: `+` OK, `!` warning, `X` critical,
`?` unknown.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

from rich.text import Text

from nastui.core import units
from nastui.core.assess import ups_health
from nastui.core.fleetview import (
    UNREACHABLE,
    FleetRow,
    contact_age,
    pick_form,
    ups_text,
)
from nastui.core.glyphs import Glyphs
from nastui.core.layout import EXAMPLE_HINT
from nastui.model import Drive, FleetHost, Health, HostSnapshot, Ups
from nastui.ui.render.style import DIM, HEALTH_STYLE, LABEL, bar, degrees, fit

MARK = {Health.OK: "+", Health.WARNING: "!", Health.CRITICAL: "X", Health.UNKNOWN: "?"}
CURSOR = "> "
NO_HOSTS = (
    "no hosts configured: add a [[host]] table per NAS or UPS to the configuration "
    f"({EXAMPLE_HINT}), then restart nastui"
)
_POOLS_MIN = 12
_PROBLEM_MIN = 16


@dataclass(frozen=True, slots=True)
class Column:
    """One table column: the FleetRow text it shows, its title and its width."""

    key: str
    title: str
    width: int


def _longest(texts: Sequence[str], title: str, cap: int) -> int:
    return min(cap, max([len(title), *(len(t) for t in texts)]))


def _short_hot(text: str) -> str:
    """ "41°C disk3" -> "41°C" (the temperature without the drive)."""
    return text.split(" ", 1)[0]


def _fixed(sizes: dict[str, int]) -> int:
    """Cells taken by the sized columns and the space after each."""
    return sum(w + 1 for w in sizes.values() if w)


def plan_columns(rows: Sequence[FleetRow], width: int) -> list[Column]:
    """The columns that fit in `width` cells.

    Host, health, pools and last contact always stay. The hottest drive (then the UPS) goes on
    a narrow screen; on a wider one they show in full, then address and profile appear, as
    long as the pools still show in full; the first problem takes what is left.
    """
    avail = width - len(CURSOR)
    has_ups = any(r.ups for r in rows)
    pools_want = _longest([r.pool_forms[0] for r in rows], "POOLS", 60)
    sizes = {
        "name": _longest([r.name for r in rows], "HOST", 16),
        "status": _longest([r.status for r in rows], "HEALTH", 11) + 2,
        "hot": _longest([_short_hot(r.hottest) for r in rows], "TEMP", 6),
        "ups": _longest([r.ups_short for r in rows], "UPS", 20) if has_ups else 0,
        "contact": _longest([r.contact for r in rows], "CONTACT", 12),
    }
    for key in ("hot", "ups"):
        if _fixed(sizes) + _POOLS_MIN > avail:
            sizes[key] = 0
    grow = {
        "hot": _longest([r.hottest for r in rows], "HOTTEST", 16),
        "ups": _longest([r.ups for r in rows], "UPS", 28) if has_ups else 0,
        "address": _longest([r.address for r in rows], "ADDRESS", 24),
        "profile": _longest([r.profile for r in rows], "PROFILE", 10),
    }
    for key, full in grow.items():
        trial = {**sizes, key: full}
        if full and _fixed(trial) + pools_want <= avail:
            sizes = trial
    pools = avail - _fixed(sizes)
    problem = pools - pools_want - 1
    if problem >= _PROBLEM_MIN:
        pools = pools_want
    else:
        problem = 0
    sizes |= {"pools": pools, "problem": problem}
    titles = {
        "name": "HOST",
        "status": "HEALTH",
        "hot": "HOTTEST" if sizes["hot"] >= len("HOTTEST") else "TEMP",
        "pools": "POOLS",
        "ups": "UPS",
        "contact": "CONTACT",
        "address": "ADDRESS",
        "profile": "PROFILE",
        "problem": "PROBLEM",
    }
    return [Column(k, title, sizes[k]) for k, title in titles.items() if sizes.get(k)]


def _cell(row: FleetRow, column: Column, glyphs: Glyphs) -> tuple[str, str]:
    """The text and style of one cell."""
    stale = DIM if row.stale else ""
    key, width = column.key, column.width
    if key == "name":
        return fit(row.name, width, glyphs), LABEL
    if key == "status":
        return f"{MARK[row.health]} {row.status}", HEALTH_STYLE[row.health]
    if key == "hot":
        text = row.hottest if len(row.hottest) <= width else _short_hot(row.hottest)
        return text or "-", stale
    if key == "pools":
        return pick_form(row.pool_forms, width, ellipsis=glyphs.ellipsis) or "-", stale
    if key == "ups":
        text = row.ups if len(row.ups) <= width else row.ups_short
        style = "bold" if text and not text.startswith("online") else stale
        return fit(text, width, glyphs) or "-", style
    if key == "contact":
        return row.contact, "bold red" if row.status == UNREACHABLE else ""
    if key == "problem":
        return fit(row.problem, width, glyphs), HEALTH_STYLE[row.health] if row.problem else ""
    return fit(getattr(row, key), width, glyphs), DIM


def header_line(columns: Sequence[Column]) -> Text:
    """The table's title row."""
    text = Text(" " * len(CURSOR), style=LABEL)
    text.append(" ".join(c.title.ljust(c.width) for c in columns).rstrip(), style=LABEL)
    return text


def row_line(row: FleetRow, columns: Sequence[Column], glyphs: Glyphs, *, selected: bool) -> Text:
    """One host's line; the selected one starts with ">" and is reversed."""
    text = Text(CURSOR if selected else " " * len(CURSOR), style=LABEL)
    for i, column in enumerate(columns):
        value, style = _cell(row, column, glyphs)
        if i:
            text.append(" ")
        text.append(value.ljust(column.width)[: column.width], style=style)
    text.rstrip()
    if selected:
        text.stylize("reverse", len(CURSOR))
    return text


def table_lines(rows: Sequence[FleetRow], selected: int, width: int, glyphs: Glyphs) -> Text:
    """Every host's line (no header), the selected one marked."""
    columns = plan_columns(rows, width)
    text = Text()
    for i, row in enumerate(rows):
        if i:
            text.append("\n")
        text.append_text(row_line(row, columns, glyphs, selected=i == selected))
    return text


def selected_text(row: FleetRow, host: FleetHost, lines: int, width: int, glyphs: Glyphs) -> Text:
    """What the selected host is and what is wrong with it, in up to `lines` lines: where it
    is, its pools and UPS in full, then the poll error or its alerts, worst first."""
    text = Text()
    text.append(row.name, style=LABEL)
    text.append(f"  {row.address}  {row.profile}", style=DIM)
    text.append(f"  last contact {row.contact}")
    text.truncate(width)
    body: list[tuple[str, str]] = []
    if row.pool_forms[0]:
        body.append((f"pools  {row.pool_forms[0]}", DIM if row.stale else ""))
    if row.ups:
        body.append((f"UPS    {row.ups}", DIM if row.stale else ""))
    if row.hottest:
        body.append((f"drives {row.drives}, hottest {row.hottest}", DIM if row.stale else ""))
    if host.error is not None:
        body += [(line, "bold red") for line in textwrap.wrap(host.error, max(10, width))]
    elif host.snapshot is not None:
        alerts = [a for a in host.snapshot.alerts if not a.acknowledged]
        body += [
            (f"{a.health.short:<4} {a.name}: {a.message}", HEALTH_STYLE[a.health]) for a in alerts
        ]
        if not alerts and row.problem:
            body.append((row.problem, HEALTH_STYLE[row.health]))
        if not alerts and not row.problem:
            body.append(("no alerts", HEALTH_STYLE[Health.OK]))
    room = max(1, lines - 1)
    if len(body) > room:
        hidden = len(body) - room + 1
        body = [*body[: room - 1], (f"... {hidden} more (Enter for the host)", DIM)]
    for line, style in body:
        text.append("\n")
        text.append(fit(line, width, glyphs), style=style)
    return text


# ---------------------------------------------------------------------------- host detail
def host_header(host: FleetHost, health: Health, now: float, width: int, glyphs: Glyphs) -> Text:
    """Who the host is, when it last answered, and the poll error if the last poll failed."""
    text = Text()
    text.append(f"{MARK[health]} {health.name}", style=HEALTH_STYLE[health])
    text.append(f"  {host.address}  profile {host.profile}", style=DIM)
    if host.description:
        text.append("\n" + fit(host.description, width, glyphs), style=DIM)
    polled = contact_age(host.polled_at, now) if host.polled_at is not None else "not yet"
    text.append(f"\npolled {polled}, last contact {contact_age(host.last_contact, now)}")
    if host.error is not None:
        for line in textwrap.wrap(host.error, max(20, width)):
            text.append("\n" + line, style="bold red")
        if host.snapshot is not None:
            ago = contact_age(host.snapshot.taken_at, now)
            text.append(f"\nbelow: what it reported {ago}", style="yellow")
    elif host.snapshot is None:
        text.append("\nno answer yet", style=DIM)
    return text


def _drive_row(drive: Drive, widths: tuple[int, int, int], glyphs: Glyphs) -> Text:
    name_w, model_w, serial_w = widths
    verdict = drive.verdict
    row = Text(fit(drive.dev, name_w, glyphs).ljust(name_w) + " ", style=LABEL)
    row.append(fit(drive.identity.model or "?", model_w, glyphs).ljust(model_w) + " ")
    if serial_w:
        serial = fit(drive.identity.serial or "?", serial_w, glyphs, keep_end=True)
        row.append(serial.ljust(serial_w) + " ", style=DIM)
    temp = drive.temperature.celsius if drive.temperature else None
    row.append(f"{degrees(temp, glyphs):>6} ")
    row.append(
        f"{MARK[verdict.health]} {verdict.health.short:<4}", style=HEALTH_STYLE[verdict.health]
    )
    return row


def drives_text(snapshot: HostSnapshot, width: int, glyphs: Glyphs) -> Text:
    """The drives table: name, model, serial (when wide), temperature, health and reasons."""
    drives = snapshot.drives
    if not drives:
        return Text("")
    name_w = max(len("DRIVE"), *(len(d.dev) for d in drives))
    model_w = min(22, max(5, *(len(d.identity.model or "?") for d in drives)))
    serial_w = 16 if width >= name_w + model_w + 16 + 16 + 30 else 0
    head = f"{'DRIVE':<{name_w}} {'MODEL':<{model_w}} "
    head += f"{'SERIAL':<{serial_w}} " if serial_w else ""
    text = Text(f"drives\n{head}{'TEMP':>6} HEALTH", style=LABEL)
    for drive in drives:
        row = _drive_row(drive, (name_w, model_w, serial_w), glyphs)
        reasons = [r.text for r in drive.verdict.reasons if r.health is not Health.OK]
        if reasons:
            room = width - row.cell_len - 1
            reason = "; ".join(reasons)
            if room >= 20:
                row.append(
                    " " + fit(reason, room, glyphs), style=HEALTH_STYLE[drive.verdict.health]
                )
            else:
                row.append("\n   " + fit(reason, width - 3, glyphs), style=DIM)
        text.append("\n")
        text.append_text(row)
    return text


def ups_detail(ups: Ups, width: int, glyphs: Glyphs) -> Text:
    """One UPS: state, charge bar, runtime, load, input voltage, time on battery."""
    health = ups_health(ups)
    text = Text()
    text.append(f"{ups.name}", style=LABEL)
    if ups.model:
        text.append(f"  {ups.model}", style=DIM)
    text.append("\n  ")
    text.append(f"{MARK[health]} {ups_text(ups)}", style=HEALTH_STYLE[health])
    if ups.on_battery_s is not None:
        text.append(f", on battery for {units.duration(ups.on_battery_s)}")
    if ups.charge_percent is not None:
        text.append("\n  charge  ")
        text.append_text(bar(ups.charge_percent, max(8, min(40, width - 18)), glyphs))
        text.append(f" {ups.charge_percent:.0f}%")
    details = []
    if ups.runtime_s is not None:
        details.append(f"runtime {units.duration(ups.runtime_s)}")
    if ups.load_percent is not None:
        details.append(f"load {ups.load_percent:.0f}%")
    if ups.input_voltage is not None:
        details.append(f"input {ups.input_voltage:.0f} V")
    if details:
        text.append("\n  " + fit(", ".join(details), width - 2, glyphs))
    if ups.battery_replace:
        text.append("\n  the UPS asks for a battery replacement", style="yellow")
    return text


def alerts_detail(snapshot: HostSnapshot, width: int, *, stale: bool = False) -> Text:
    """Every unacknowledged alert, worst first, each whole (folded under itself: the drill-down
    is where the whole text is read; cut, a UPS lost its "runtime left"); "no alerts" when all
    is well (nothing when `stale`: an old snapshot's silence says nothing about now)."""
    alerts = [a for a in snapshot.alerts if not a.acknowledged]
    if not alerts:
        return Text("" if stale else "no alerts", style=HEALTH_STYLE[Health.OK])
    text = Text("alerts then" if stale else "alerts", style=LABEL)
    for alert in alerts:
        text.append("\n")
        text.append(f"{alert.health.short:<4} ", style=HEALTH_STYLE[alert.health])
        lines = textwrap.wrap(f"{alert.name}: {alert.message}", max(10, width - 5))
        text.append("\n     ".join(lines))
    return text
