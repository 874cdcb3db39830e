"""`nastui pools`: every pool with its state, space, scan (rate and ETA), last scrub, schedule and
vdev tree; `--json` for scripts. What could not be read (no `zpool`, no ZFS module, btrfs-progs
without root) is one line each after the pools, which still show."""

from __future__ import annotations

import argparse
import textwrap
from typing import Any, TextIO

from nastui import exits
from nastui.cli.command import glyphs_of, poll_once, write_json
from nastui.core import summary
from nastui.core.glyphs import Glyphs
from nastui.core.scanning.words import TOOLS, layout_text
from nastui.model import HostSnapshot, Pool, ScanProgress, Vdev

WIDTH = 80
COUNTERS = ("read_errors", "write_errors", "checksum_errors")


def add_arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    """--json."""
    parser.add_argument("--json", action="store_true", help="one JSON entry per pool")


def scan_entry(scan: ScanProgress | None) -> dict[str, Any] | None:
    """A scan as JSON-ready data (times are Unix seconds; unknown is null)."""
    if scan is None:
        return None
    return {
        "kind": scan.kind.value,
        "state": scan.state.value,
        "percent": scan.percent,
        "bytes_done": scan.bytes_done,
        "bytes_total": scan.bytes_total,
        "rate_bytes_per_s": scan.rate_bytes_per_s,
        "eta_seconds": scan.eta_seconds,
        "reported_eta_seconds": scan.reported_eta_seconds,
        "errors": scan.errors,
        "repaired_bytes": scan.repaired_bytes,
        "started_at": scan.started_at,
        "ended_at": scan.ended_at,
        "duration_s": scan.duration,
    }


def vdev_entry(snapshot: HostSnapshot, vdev: Vdev) -> dict[str, Any]:
    """A vdev and its children, with the drive and bay behind each leaf."""
    drive = snapshot.drive(vdev.drive) if vdev.drive else None
    return {
        "name": vdev.name,
        "kind": vdev.kind,
        "state": vdev.state.value,
        **{name: getattr(vdev, name) for name in COUNTERS},
        "note": vdev.note,
        "drive": vdev.drive,
        "dev": drive.dev if drive else None,
        "bay": snapshot.bay_of(drive.key) if drive else None,
        "children": [vdev_entry(snapshot, c) for c in vdev.children],
    }


def pool_entry(snapshot: HostSnapshot, pool: Pool) -> dict[str, Any]:
    """A pool as JSON-ready data."""
    now = snapshot.taken_at
    last = pool.last_scrub
    return {
        "name": pool.name,
        "kind": pool.kind.value,
        "state": pool.state.value,
        "uuid": pool.uuid,
        "mountpoint": pool.mountpoint,
        "size_bytes": pool.size_bytes,
        "allocated_bytes": pool.allocated_bytes,
        "used_percent": pool.used_percent,
        "fragmentation_percent": pool.fragmentation_percent,
        "scan": scan_entry(pool.scan),
        "last_scrub": scan_entry(last),
        "last_scrub_age_s": now - last.ended_at if last and last.ended_at is not None else None,
        "scrub_schedule": pool.scrub_schedule,
        "status": pool.status_text,
        "error_count": pool.error_count,
        "error_files": list(pool.error_files),
        "vdevs": vdev_entry(snapshot, pool.root),
        "layout_change": scan_entry(pool.layout_change),
        "notes": list(pool.notes),
    }


def pools_data(snapshot: HostSnapshot) -> dict[str, Any]:
    """Everything `nastui pools --json` prints."""
    return {
        "host": snapshot.host,
        "taken_at": snapshot.taken_at,
        "pools": [pool_entry(snapshot, p) for p in snapshot.pools],
        "errors": [{"source": e.source, "message": e.message} for e in snapshot.errors],
    }


def _counter(value: int | None) -> str:
    return f"{value if value is not None else '-':>6}"


def _tree_lines(snapshot: HostSnapshot, pool: Pool, glyphs: Glyphs) -> list[str]:
    name_w = 34
    lines = [f"  {'NAME':<{name_w}} {'STATE':<9}{'READ':>6}{'WRITE':>6}{'CKSUM':>6}  DEV     BAY"]
    for prefix, node in summary.tree_rows(pool.root, glyphs):
        room = name_w - len(prefix)
        name = node.name
        if len(name) > room:
            name = glyphs.ellipsis + name[-(room - len(glyphs.ellipsis)) :]
        label = prefix + name
        row = f"  {label:<{name_w}} {node.state.value:<9}"
        row += "".join(_counter(getattr(node, c)) for c in COUNTERS)
        drive = snapshot.drive(node.drive) if node.drive else None
        if drive is not None:
            bay = snapshot.bay_of(drive.key)
            row += f"  {drive.dev:<7} {bay if bay is not None else '-':>3}"
        if node.note:
            row += f"  {node.note}"
        lines.append(row.rstrip())
    return lines


def render_pool(snapshot: HostSnapshot, pool: Pool, glyphs: Glyphs) -> str:
    """One pool as text: header, scans, schedule, status, tree, permanent errors."""
    now = snapshot.taken_at
    lines = [f"{pool.name} {pool.kind.value} {pool.state.value}, {summary.space_text(pool)}"]
    where = f"  mounted on {pool.mountpoint}" if pool.mountpoint else ""
    if where:
        lines.append(where)
    tool = TOOLS[pool.kind]
    if pool.scan is not None:
        lines.append(f"  {summary.scan_text(pool.scan, now, tool)}")
    if pool.layout_change is not None:
        lines.append(f"  {layout_text(pool.layout_change, now, tool)}")
    if pool.last_scrub is not None and pool.last_scrub != pool.scan:
        lines.append(f"  last completed {summary.scan_text(pool.last_scrub, now)}")
    elif pool.last_scrub is None and pool.scan is None:
        lines.append("  no completed scrub on record")
    lines.append(f"  schedule: {pool.scrub_schedule or 'no scrub timer or cron entry found'}")
    if pool.status_text:
        lines += textwrap.wrap(pool.status_text, WIDTH, initial_indent="  ", subsequent_indent="  ")
    lines += _tree_lines(snapshot, pool, glyphs)
    if pool.error_count and not pool.error_files:
        lines.append(f"  {pool.error_count} data error(s): run `zpool status -v` for the files")
    lines += [f"  permanent error: {path}" for path in pool.error_files[:50]]
    lines += [f"  not understood: {note}" for note in pool.notes]
    return "\n".join(lines) + "\n"


def render_pools(snapshot: HostSnapshot, glyphs: Glyphs) -> str:
    """Every pool, then one line per thing that could not be read."""
    blocks = [render_pool(snapshot, pool, glyphs) for pool in snapshot.pools]
    text = "\n".join(blocks) if blocks else "no pools found\n"
    pool_sources = ("zfs", "mdraid", "btrfs")
    notes = [e for e in snapshot.errors if e.source.split(":")[0] in pool_sources]
    if notes:
        text += "\n" + "".join(f"{e.source}: {e.message}\n" for e in notes)
    return text


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Collect once and print the pools."""
    session, snapshot = poll_once(args)
    if args.json:
        write_json(pools_data(snapshot), out)
    else:
        out.write(render_pools(snapshot, glyphs_of(args, session)))
    return exits.OK
