"""`nastui bays`: the chassis as a table in its physical layout, or JSON with one entry per bay."""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

from nastui import exits
from nastui.cli.args import help_width
from nastui.cli.baytable import bay_entries, render_bays
from nastui.cli.command import glyphs_of, poll_once, use_color, write_json
from nastui.core.layout import NO_CHASSIS
from nastui.model import HostSnapshot, Thresholds

VIEWS = ("dev", "temp", "health", "serial", "pool")


def add_arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    """--view and --json."""
    parser.add_argument("--view", choices=VIEWS, default="dev", help="what each bay shows")
    parser.add_argument("--json", action="store_true", help="JSON: one entry per bay under bays")


def bays_data(snapshot: HostSnapshot, limits: Thresholds) -> dict[str, Any]:
    """Everything `nastui bays --json` prints."""
    chassis = snapshot.chassis.name if snapshot.chassis is not None else None
    return {
        "host": snapshot.host,
        "taken_at": snapshot.taken_at,
        "chassis": chassis,
        "bays": bay_entries(snapshot, limits),
    }


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Collect once and draw the bays."""
    session, snapshot = poll_once(args)
    limits = session.config.thresholds
    if args.json:
        write_json(bays_data(snapshot, limits), out)
        return exits.OK
    if snapshot.chassis is None:
        print(f"nastui: {NO_CHASSIS}", file=sys.stderr)
        for drive in snapshot.drives:
            out.write(f"  {drive.label}\n")
        return exits.OK
    glyphs = glyphs_of(args, session)
    width = help_width() if out.isatty() else None  # a terminal's; a pipe's rows stay whole
    text = render_bays(snapshot, args.view, limits, glyphs, color=use_color(args, out), width=width)
    out.write(text)
    return exits.OK
