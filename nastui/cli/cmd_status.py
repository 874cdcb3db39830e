"""`nastui status`: a one-screen summary; exit codes are the monitoring-plugin ones."""

from __future__ import annotations

import argparse
from typing import TextIO

from nastui.cli.command import glyphs_of, poll_once, write_json
from nastui.cli.statusview import render_status, status_data
from nastui.core.assess import overall


def add_arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    """--json."""
    parser.add_argument("--json", action="store_true", help="machine-readable summary")


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Collect once, print the summary, exit with the overall state."""
    opened = poll_once(args)
    if isinstance(opened, int):
        return opened
    session, snapshot = opened
    if args.json:
        write_json(status_data(snapshot, session.config.thresholds), out)
    else:
        out.write(render_status(snapshot, glyphs_of(args, session)))
    return int(overall(snapshot))
