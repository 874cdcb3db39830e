"""The chrome and the dashboard's small panels: title line, key bar, alerts strip, thermal
summary, and the help text (pure)."""

from __future__ import annotations

import dataclasses
import textwrap
import time

from rich.text import Text

from nastui.core import summary
from nastui.core.assess import awaiting_smart_alert, awaiting_smart_keys, drive_place, overall
from nastui.core.glyphs import ASCII as ASCII_MARKS
from nastui.core.glyphs import Glyphs
from nastui.model import Alert, Health, HostSnapshot, Subject, Thresholds
from nastui.ui.render.style import DIM, HEALTH_STYLE, LABEL, degrees, fit


def title_text(snapshot: HostSnapshot | None, screen: str, width: int, *, note: str = "") -> Text:
    """The top line: product, host, chassis, demo tag, `note` (an active filter), then screen,
    overall state and clock.

    The demo tag always shows (a simulated box must never pass for a real one), and so do the
    host, the note, the state and the clock; when the line is too long for `width`, the chassis
    name goes first, then the product name; a long host or note is cut with a mark.
    """
    text = Text()
    if snapshot is None:
        text.append(" nastui ", style="bold")
        text.append("  collecting...")
        return text
    own, fleet = split_by_host(snapshot)
    reading = awaiting_smart_keys(snapshot)
    settled = tuple(a for a in own if not awaiting_smart_alert(snapshot, a, reading))
    state = overall(dataclasses.replace(snapshot, alerts=settled))
    right = Text(f" {screen}  ")
    right.append(f" {state.name} ", style=HEALTH_STYLE[state])
    if len(settled) < len(own):  # drives whose first SMART read is under way: not UNKNOWN
        right.append(" reading SMART", style=DIM)
    others = overall(dataclasses.replace(snapshot, alerts=fleet))
    if others is not Health.OK:  # another host of the fleet: a badge beside the box's state
        right.append(" ")
        right.append(f" fleet {others.short} ", style=HEALTH_STYLE[others])
    right.append(time.strftime("  %H:%M ", time.localtime(snapshot.taken_at)))
    demo = f"  [demo {snapshot.source[4:]}]" if snapshot.source.startswith("sim:") else ""
    chassis = snapshot.chassis.name if snapshot.chassis else "no chassis configured"
    host = f" {snapshot.host}"
    room = width - right.cell_len - len(demo)  # what the host, product, chassis, note share
    host = fit(host, max(6, room - (len(note) + 2 if note else 0)), ASCII_MARKS)
    room -= len(host)
    if note:
        note = fit(note, max(6, room - 2), ASCII_MARKS)
        room -= len(note) + 2
    product = " nastui " if room >= 8 else ""
    room -= len(product)
    text.append(product, style="bold")
    text.append(host, style=LABEL)
    if room >= len(chassis) + 2:
        text.append(f"  {chassis}")
    text.append(demo, style="bold")
    if note:
        text.append("  ")
        text.append(note, style="reverse")
    pad = width - text.cell_len - right.cell_len
    if pad > 0:
        text.append(" " * pad)
    text.append_text(right)
    return text


def split_by_host(snapshot: HostSnapshot) -> tuple[tuple[Alert, ...], tuple[Alert, ...]]:
    """(the box's alerts, its UPSes' among them: they are its power; the other fleet hosts')."""
    own = tuple(a for a in snapshot.alerts if is_own(snapshot, a))
    return own, tuple(a for a in snapshot.alerts if not is_own(snapshot, a))


def is_own(snapshot: HostSnapshot, alert: Alert) -> bool:
    """An alert of the box itself, or of a UPS (the box's power)."""
    return alert.host in ("", snapshot.host) or alert.subject is Subject.UPS


def alert_name(snapshot: HostSnapshot, alert: Alert) -> str:
    """The alert's name, after its host's when it is about another host ("offsite bay 3")."""
    if alert.host in ("", snapshot.host, alert.name):
        return alert.name
    return f"{alert.host} {alert.name}".strip()


def alerts_text(snapshot: HostSnapshot | None, lines: int, width: int, glyphs: Glyphs) -> Text:
    """The worst alerts in `lines` lines of `width`: wrapped when they all fit that way, else
    one line each, with a count of the rest; "no alerts" when all is well. Drives whose first
    SMART read is under way are one line at the end, not an UNKNOWN each."""
    if snapshot is None:
        return Text("")
    standing = [a for a in snapshot.alerts if not a.acknowledged]
    keys = awaiting_smart_keys(snapshot)
    alerts = [a for a in standing if not awaiting_smart_alert(snapshot, a, keys)]
    reading = len(standing) - len(alerts)
    note = f"reading SMART of {reading} drive{'s' if reading > 1 else ''}" if reading else ""
    if not alerts:
        if note:
            return Text(f"no alerts so far; {note}", style=DIM)
        return Text("no alerts", style=HEALTH_STYLE[Health.OK])
    text = _alert_lines(snapshot, alerts, max(1, lines - 1) if note else lines, width, glyphs)
    if note:
        text.append(f"\n{note}", style=DIM)
    return text


def _alert_lines(
    snapshot: HostSnapshot, alerts: list[Alert], lines: int, width: int, glyphs: Glyphs
) -> Text:
    room = max(10, width - 5)
    bodies = [f"{alert_name(snapshot, a)}: {a.message}" for a in alerts]
    wrapped = [textwrap.wrap(b, room) or [""] for b in bodies]
    if sum(len(w) for w in wrapped) > lines:
        wrapped = [[fit(b, room, glyphs)] for b in bodies]
    if len(wrapped) > lines:
        wrapped = wrapped[: lines - 1]
    text = Text()
    for i, (alert, body) in enumerate(zip(alerts, wrapped, strict=False)):
        if i:
            text.append("\n")
        text.append(f"{alert.health.short:<4} ", style=HEALTH_STYLE[alert.health])
        text.append(("\n     ").join(body))
    if len(wrapped) < len(alerts):
        rest = alerts[len(wrapped) :]
        # where the rest are seen: this box's screens, or the fleet's for its hosts' alerts
        local = sum(a.host in ("", snapshot.host) for a in rest)
        where = ["p pools, Enter on a bay"] * bool(local) + ["H fleet"] * (local < len(rest))
        text.append(f"\n... {len(rest)} more ({'; '.join(where)})", style=DIM)
    return text


def thermal_text(
    snapshot: HostSnapshot | None, limits: Thresholds, width: int, glyphs: Glyphs
) -> Text:
    """Hottest and coolest drive, fans with RPM and duty, other sensors."""
    if snapshot is None:
        return Text("")
    text = Text()
    hot = summary.hottest(snapshot)
    temps = [d.temperature.celsius for d in snapshot.drives if d.temperature is not None]
    if hot is not None and hot.temperature is not None:
        where = drive_place(snapshot, hot)
        text.append("hottest ", style=DIM)
        text.append(degrees(hot.temperature.celsius, glyphs), style=LABEL)
        if summary.stale_reading(hot, snapshot.taken_at, limits):  # an asleep drive's last
            text.append(summary.STALE_MARK, style="blue")
        text.append(f" {where}")
    # Whole items after it, as room allows, the sleepers first (they explain stale readings):
    # the panel cut "23 asleep" to "~", or to "2~" a little wider.
    counts = summary.drive_counts(snapshot)
    extra = [(f"  {counts.standby} asleep", "blue")] if counts.standby else []
    if temps:
        extra.append((f"  avg {degrees(sum(temps) / len(temps), glyphs)}", DIM))
    for item, style in extra:
        if text.cell_len + len(item) <= width:
            text.append(item, style=style)
    for fan in snapshot.fans:
        text.append("\n")
        rpm = f"{fan.rpm} rpm" if fan.rpm is not None else "? rpm"
        duty = f" {fan.duty_percent:.0f}%" if fan.duty_percent is not None else ""
        style = "bold red" if fan.stalled else ""
        text.append(fit(f"{fan.name:<12} {rpm:>9}{duty}", width, glyphs), style=style)
        if fan.stalled:
            text.append(" STALLED", style="bold red")
    sensors = [
        f"{s.name} {degrees(s.value, glyphs)}" for s in snapshot.sensors if s.value is not None
    ]
    if sensors:
        text.append("\n" + _whole_items(sensors, width), style=DIM)
    return text


def _whole_items(items: list[str], width: int) -> str:
    """`items` joined by commas, as many whole ones as fit with "+N more" after: a reading is
    never cut in half ("System 2...")."""
    shown = ", ".join(items)
    for count in range(len(items) - 1, 0, -1):
        if len(shown) <= width:
            break
        shown = ", ".join(items[:count]) + f", +{len(items) - count} more"
    return shown


KEYS: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    (
        "Screens",
        (
            ("d / 1", "dashboard"),
            ("b / 2", "bays: the full chassis"),
            ("p / 3", "pools: vdev trees, scrubs and resilvers"),
            ("f / 4", "fans: speeds, zones and the curve editor"),
            ("n / 5", "bench: fio, dd, write-sync-close, fill; live graphs"),
            ("H / 6", "fleet: other NAS boxes and UPSes over SNMP"),
            ("? / F1", "this help"),
            ("q, Ctrl+C", "quit (the terminal is restored)"),
            ("Esc", "back; clears the / filter"),
        ),
    ),
    (
        "Bays (dashboard and bays)",
        (
            ("arrows, h j k l", "move between bays (l is right, as in vi)"),
            ("Enter", "drive detail of the selected bay"),
            ("v", "cycle the view: device, temperature, health, serial, pool, I/O"),
            ("L or i", "toggle the selected bay's locate LED"),
            (
                "/",
                "filter bays by serial, model or device: matches are marked >, the"
                " filter shows in the top line until Esc",
            ),
            ("D", "every drive nastui knows, those in no bay too; Enter opens one"),
            ("w", "swap the bay's drive: plan, start, replace, follow"),
        ),
    ),
    (
        "Drive detail",
        (
            ("l L i", "toggle the locate LED"),
            ("a", "acknowledge its findings (warns again if they grow)"),
            ("[ ]", "previous, next drive (every drive, those in no bay too)"),
            ("w", "swap this drive (a drive in a bay)"),
            ("up/down", "scroll"),
        ),
    ),
    (
        "Drive list (D)",
        (
            ("up/down, j k", "choose a drive"),
            ("Enter", "its drive detail (Esc back)"),
        ),
    ),
    (
        "Swap (w)",
        (
            ("s", "start: take the member offline, light the LED (asks first)"),
            ("r", "type the new drive's serial (off its label) to replace onto it"),
            ("a", "abort (asks first; an interrupted start is undone)"),
        ),
    ),
    (
        "Pools",
        (
            ("Tab, left/right", "choose the pool"),
            ("s z x", "start, pause, stop its scrub (asks first)"),
        ),
    ),
    (
        "Fans (the curve editor)",
        (
            ("< >", "pick a curve point"),
            ("arrows, h j k l", "move it: 1 C left/right, 5 % up/down"),
            ("a x", "add a point after it, delete it"),
            ("[ ]", "less, more hysteresis"),
            ("m M", "lower, raise the minimum duty"),
            ("z", "next zone"),
            ("s", "save the zone to the configuration file (comments kept)"),
            ("u / U", "undo the last edit / every unsaved edit"),
        ),
    ),
    (
        "Bench",
        (
            ("r s", "run, stop (the partial result is kept)"),
            ("o", "profile and settings"),
            ("t", "target: a directory or a whole device"),
            ("e", "custom fio job (Ctrl+S keeps it)"),
            ("c", "compare runs: space marks, m metric, x svg"),
            ("x", "export the graph as SVG"),
        ),
    ),
    (
        "Fleet",
        (
            ("up/down, j k", "choose a host; PgUp PgDn Home End"),
            ("Enter", "the host's drives, pools and UPS (Esc back)"),
        ),
    ),
)


def help_text(glyphs: Glyphs) -> Text:
    """The key map by screen and what the marks mean (long lines are folded by the panel)."""
    text = Text()
    for title, keys in KEYS:
        text.append(f"{title}\n", style=LABEL)
        for key, what in keys:
            text.append(f"  {key:<17}", style="bold")
            text.append(f"{what}\n")
        text.append("\n")
    text.append("Bay marks (colour is never the only signal)\n", style=LABEL)
    text.append("  + OK   ! warning   X critical   z standby   . empty   # missing   ? unknown\n")
    text.append("  - SMART being read (the first seconds after start)\n")
    text.append(
        "  [bay] selected   * locate LED on   R rebuilding   ~ stale temperature or a cut value\n"
    )
    text.append(
        "\nOn a serial console (TERM=vt100, vt220, linux) or without a UTF-8 locale nastui draws"
        " in plain ASCII; --ascii forces it, --colors none|16|256|truecolor sets colour.",
        style=DIM,
    )
    return text
