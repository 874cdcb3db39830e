"""Pool panels: the dashboard's summary lines and the pools screen's full view with the vdev
tree, its error counters and the scan progress bar (pure)."""

from __future__ import annotations

import textwrap

from rich.text import Text

from nastui.core import units
from nastui.core.glyphs import Glyphs
from nastui.core.scanning.words import TOOLS, eta_text, layout_text
from nastui.core.summary import scan_text, space_text, tree_rows
from nastui.model import HostSnapshot, Pool, ScanProgress, ScanState, Vdev
from nastui.ui.render.style import DIM, LABEL, bar, fit, pool_state_style

COUNTER_W = 6


def _header(pool: Pool, width: int = 200, *, selected: bool = False) -> Text:
    """ "storage zfs ONLINE  40% of 73.7 TiB, frag 3%", the space part on its own line when the
    whole does not fit in `width`; "> " and the name reversed when the pool is selected."""
    text = Text()
    if selected:
        text.append("> ", style=LABEL)
    text.append(pool.name, style=f"{LABEL} reverse" if selected else LABEL)
    text.append(f" {pool.kind.value} ")
    text.append(pool.state.value, style=pool_state_style(pool.state))
    space = space_text(pool) if pool.size_bytes is not None else ""
    if space:
        text.append(f"  {space}" if text.cell_len + 2 + len(space) <= width else f"\n  {space}")
    return text


def _bar_line(scan: ScanProgress, width: int, glyphs: Glyphs) -> Text:
    percent = scan.percent
    head = Text(f"  {scan.kind.value:<8} ")
    label = f" {percent:5.1f}%" if percent is not None else "   ?%"
    paused = " paused" if scan.state is ScanState.PAUSED else ""
    # The bar takes what is left: the figure and the word after it are never pushed off.
    room = width - len(head) - len(label) - len(paused) - 2
    head.append_text(bar(percent, max(4, room), glyphs))
    head.append(label)
    head.append(paused, style="yellow")
    return head


def _detail(scan: ScanProgress, tool: str | None) -> Text:
    done = units.size(scan.bytes_done)
    total = units.size(scan.bytes_total)
    rate = units.rate(scan.rate_bytes_per_s)
    return Text(f"  {done} of {total}, {rate}, {eta_text(scan, tool)}")


def _layout_lines(
    change: ScanProgress, now: float, width: int, glyphs: Glyphs, tool: str
) -> list[Text]:
    """A ZFS vdev removal or raidz expansion: a bar and its figures while it runs."""
    if change.state not in (ScanState.RUNNING, ScanState.PAUSED):
        return [Text(f"  {layout_text(change, now, tool)}", style=DIM)]
    return [_bar_line(change, width, glyphs), _detail(change, tool)]


def _scan_lines(
    scan: ScanProgress, now: float, width: int, glyphs: Glyphs, tool: str | None = None
) -> list[Text]:
    if scan.state not in (ScanState.RUNNING, ScanState.PAUSED):
        return [Text(f"  {scan_text(scan, now, tool)}")]
    head = _bar_line(scan, width, glyphs)
    detail = _detail(scan, tool)
    started = now - scan.started_at if scan.started_at is not None else None
    errors = f"{scan.errors if scan.errors is not None else '?'} errors"
    repaired = units.size(scan.repaired_bytes) if scan.repaired_bytes is not None else "?"
    more = f"  {errors}, {repaired} repaired, started {units.age(started)}"
    return [head, detail, Text(more)]


def pool_summary(pool: Pool, now: float, width: int, glyphs: Glyphs) -> Text:
    """A few lines for the dashboard: state and space, then the running or last scan."""
    text = _header(pool, width)
    scan = pool.scan or pool.last_scrub
    if scan is None:
        text.append("\n  no scrub on record", style="yellow")
        return text
    if scan.state in (ScanState.RUNNING, ScanState.PAUSED):
        for line in _running_short(scan, width, glyphs):
            text.append("\n")
            text.append_text(fit_text(line, width, glyphs))
    else:
        text.append("\n")
        text.append_text(_finished_short(scan, now))
    last = pool.last_scrub
    if last is not None and last != scan:  # equal, not the same object: a decoded snapshot
        text.append(f"\n  last scrub {units.age(now - (last.ended_at or now))}", style=DIM)
    return text


def _running_short(scan: ScanProgress, width: int, glyphs: Glyphs) -> list[Text]:
    """Two lines: "  scrub ████░░░ 40.1% ETA 5h22m" and "  959 MiB/s, 11.8/29.6 TiB, 0 err"."""
    percent = scan.percent
    tail = f" {percent:.1f}%" if percent is not None else " ?%"
    said = scan.reported_eta_seconds  # the tool's own time left, when it printed one
    eta = units.duration(said if said is not None else scan.eta_seconds)
    tail += " paused" if scan.state is ScanState.PAUSED else f" ETA {eta}"
    head = Text(f"  {scan.kind.value} ")
    head.append_text(bar(percent, max(4, width - head.cell_len - len(tail)), glyphs))
    head.append(tail)
    errors = f"{scan.errors} err" if scan.errors is not None else "? err"
    done = f"{units.size(scan.bytes_done)} of {units.size(scan.bytes_total)}"
    rest = Text(f"  {units.rate(scan.rate_bytes_per_s)}, {done}, ")
    rest.append(errors, style="yellow" if scan.errors else "")
    return [head, rest]


def _finished_short(scan: ScanProgress, now: float) -> Text:
    """ "  scrub 12 days ago, 7h10m, 0 errors", warning-coloured when errors were found."""
    ago = units.age(now - scan.ended_at) if scan.ended_at is not None else "?"
    took = f", {units.duration(scan.duration)}" if scan.duration is not None else ""
    verb = " canceled" if scan.state is ScanState.CANCELED else ""
    errors = scan.errors
    text = Text(f"  {scan.kind.value}{verb} {ago}{took}, ")
    text.append(f"{errors if errors is not None else '?'} err", style="yellow" if errors else "")
    return text


def fit_text(text: Text, width: int, glyphs: Glyphs) -> Text:
    """A one-line Text cut to `width` cells."""
    if text.cell_len <= width:
        return text
    cut = text.copy()
    cut.truncate(max(1, width - len(glyphs.ellipsis)))
    cut.append(glyphs.ellipsis)
    return cut


def _counter(value: int | None) -> Text:
    cell = f"{value if value is not None else '-':>{COUNTER_W}}"
    return Text(cell, style="bold red" if value else "")


def _vdev_rows(
    vdev: Vdev, snapshot: HostSnapshot, name_w: int, width: int, glyphs: Glyphs
) -> list[Text]:
    rows: list[Text] = []
    for prefix, node in tree_rows(vdev, glyphs):
        name = fit(node.name, max(4, name_w - len(prefix)), glyphs, keep_end=True)
        row = Text(f"{prefix}{name}".ljust(name_w))
        row.append(f" {node.state.value:<9}", style=pool_state_style(node.state))
        for count in (node.read_errors, node.write_errors, node.checksum_errors):
            row.append_text(_counter(count))
        drive = snapshot.drive(node.drive) if node.drive else None
        if drive is not None:
            bay = snapshot.bay_of(drive.key)
            row.append(f" {drive.dev:<7}{bay if bay is not None else '-':>4}", style=DIM)
        rows.append(row)
        if node.note:
            note = f" {node.note}"
            if row.cell_len + len(note) > width:
                rows.append(
                    Text(
                        " " * len(prefix) + "  " + fit(node.note, width - len(prefix) - 2, glyphs),
                        style="yellow",
                    )
                )
            else:
                row.append(note, style="yellow")
    return rows


def pool_detail(
    pool: Pool,
    snapshot: HostSnapshot,
    width: int,
    glyphs: Glyphs,
    *,
    selected: bool = False,
    past: Text | None = None,
) -> Text:
    """The pools screen's block for one pool: header, scans, past scans (`past`, from the
    history), status text, tree, error files."""
    now = snapshot.taken_at
    tool = TOOLS[pool.kind]
    text = _header(pool, width, selected=selected)
    lines = _scan_lines(pool.scan, now, width, glyphs, tool) if pool.scan is not None else []
    if pool.layout_change is not None:
        lines += _layout_lines(pool.layout_change, now, width, glyphs, tool)
    for line in lines:
        text.append("\n")
        text.append_text(line)
    last = pool.last_scrub
    if last is not None and last != pool.scan:
        text.append(f"\n  last completed {scan_text(last, now)}")
    elif last is None and pool.scan is None:
        text.append("\n  no completed scrub on record", style="yellow")
    if pool.scrub_schedule:
        text.append(f"\n  schedule: {pool.scrub_schedule}", style=DIM)
    if past is not None and past.plain:
        text.append("\n")
        text.append_text(past)
    if pool.status_text:
        for wrapped in textwrap.wrap(pool.status_text, max(20, width - 2)):
            text.append(f"\n  {wrapped}", style="yellow")
    name_w = max(16, width - 9 - 3 * COUNTER_W - 13)
    heading = f"{'NAME':<{name_w}} {'STATE':<9}{'READ':>6}{'WRITE':>6}{'CKSUM':>6} DEV     BAY"
    text.append("\n" + heading, style=LABEL)
    for row in _vdev_rows(pool.root, snapshot, name_w, width, glyphs):
        text.append("\n")
        text.append_text(row)
    for path in pool.error_files[:20]:
        text.append(f"\n  permanent error: {path}", style="bold red")
    for note in pool.notes:
        text.append(f"\n  not understood: {fit(note, max(8, width - 18), glyphs)}", style="yellow")
    return text
