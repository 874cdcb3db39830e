"""Headless commands: `bays`, `status`, `config check`. No Textual here, ever.

Every command opens its source through `nastui.session`, so `--demo`, `--scenario`, `--root`
and `--config` mean the same everywhere. Failures are one line on stderr naming the thing and
the fix, with an exit code from `nastui.cli.exits`; never a traceback.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Callable
from typing import TextIO

from nastui import exits
from nastui.cli.baytable import bay_entries, render_bays
from nastui.cli.configcheck import config_check
from nastui.cli.statusview import render_status, status_data
from nastui.core.assess import overall
from nastui.core.glyphs import choose_ascii, glyphs_for
from nastui.session import Session, Source, open_or_explain


def _use_color(args: argparse.Namespace, stream: TextIO) -> bool:
    if args.colors == "none" or os.environ.get("NO_COLOR"):
        return False
    if args.colors is not None:
        return True
    return stream.isatty() and os.environ.get("TERM", "dumb") != "dumb"


def _ascii(args: argparse.Namespace, session: Session) -> bool:
    forced = True if args.ascii else session.config.ui.ascii
    return choose_ascii(os.environ, forced=forced)


def cmd_bays(args: argparse.Namespace, session: Session, out: TextIO) -> int:
    """`nastui bays`: the chassis as a table (or JSON, one entry per bay)."""
    snapshot = asyncio.run(session.poll())
    limits = session.config.thresholds
    if args.json:
        json.dump(bay_entries(snapshot, limits), out, indent=2)
        out.write("\n")
        return exits.OK
    if snapshot.chassis is None:
        print(
            "nastui: no chassis configured: add a [chassis] table to the configuration "
            '(e.g. preset = "rv-4324"; see config.example.toml)',
            file=sys.stderr,
        )
        for drive in snapshot.drives:
            out.write(f"  {drive.label}\n")
        return exits.OK
    glyphs = glyphs_for(_ascii(args, session))
    out.write(render_bays(snapshot, args.view, limits, glyphs, color=_use_color(args, out)))
    return exits.OK


def cmd_status(args: argparse.Namespace, session: Session, out: TextIO) -> int:
    """`nastui status`: summary with monitoring-plugin exit codes."""
    snapshot = asyncio.run(session.poll())
    if args.json:
        json.dump(status_data(snapshot, session.config.thresholds), out, indent=2)
        out.write("\n")
    else:
        out.write(render_status(snapshot, glyphs_for(_ascii(args, session))))
    return int(overall(snapshot))


Command = Callable[[argparse.Namespace, Session, TextIO], int]
COMMANDS: dict[str, Command] = {"bays": cmd_bays, "status": cmd_status}


def run_headless(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    """Run a subcommand; returns the exit code."""
    if args.command == "config":
        return config_check(args.file or args.config, os.environ, out)
    session = open_or_explain(Source.from_options(args), os.environ, sys.stderr)
    if isinstance(session, int):
        return session
    return COMMANDS[args.command](args, session, out)
