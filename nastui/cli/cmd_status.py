"""`nastui status`: a one-screen summary; exit codes are the monitoring-plugin ones."""

from __future__ import annotations

import argparse
from typing import TextIO

from nastui import exits
from nastui.cli.command import glyphs_of, poll_once, write_json
from nastui.cli.statusview import render_status, status_data
from nastui.core.assess import overall
from nastui.daemon.swapstatus import status_view


def add_arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    """--json."""
    parser.add_argument("--json", action="store_true", help="machine-readable summary")


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Collect once, print the summary, exit with the overall state."""
    opened = poll_once(args)
    if isinstance(opened, int):
        return opened
    session, snapshot = opened
    swap_lines, swap_critical = status_view(session, snapshot)
    if args.json:
        data = status_data(snapshot, session.config.thresholds)
        write_json({**data, "swap": swap_lines}, out)
    else:
        out.write(render_status(snapshot, glyphs_of(args, session)))
        out.write("".join(f"{line}\n" for line in swap_lines))
    return max(int(overall(snapshot)), exits.CRITICAL if swap_critical else exits.OK)
