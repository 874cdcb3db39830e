"""`nastui export --prometheus FILE`: the box's state for node_exporter's textfile collector.

It polls once with the global source options (so `--demo` works), or with `--from-state` reads
the daemon's latest.json instead (no smartctl, no root). Either way the configuration's limits
are exported beside the values, for the shipped alerting rules. The file is replaced
atomically (a temporary file in the same directory, renamed over it) and left readable by
node_exporter. A directory that does not exist is an error (exit 73), never created: it
is most likely a typo. The fleet is not polled here: `nastui daemon --prometheus FILE` exports it.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TextIO

from nastui import exits
from nastui.cli.command import poll_once, textfile_dir_problem
from nastui.collectors.latest import LatestError, default_latest_path, read_latest
from nastui.collectors.replay import BundleError
from nastui.config import ConfigError
from nastui.control.latest import write_public
from nastui.control.statefile import StateError
from nastui.core.metrics.render import render
from nastui.model import HostSnapshot, Thresholds
from nastui.session import Source, load_for


def add_arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    """--prometheus FILE, --from-state [PATH]."""
    parser.add_argument(
        "--prometheus",
        metavar="FILE",
        required=True,
        help="write the text exposition format to FILE (e.g. "
        "/var/lib/node_exporter/textfile_collector/nastui.prom); - for stdout",
    )
    parser.add_argument(
        "--from-state",
        nargs="?",
        const="",
        metavar="PATH",
        help="use the daemon's latest.json (default: the state directory's) instead of polling",
    )


def _snapshot(args: argparse.Namespace) -> tuple[HostSnapshot, Thresholds]:
    if args.from_state is None:
        session, snapshot = poll_once(args)
        return snapshot, session.config.thresholds
    path = Path(args.from_state) if args.from_state else None
    try:
        limits = load_for(Source.from_options(args), os.environ).thresholds
        return read_latest(path or default_latest_path(os.environ, os.geteuid())), limits
    except ConfigError as exc:
        raise exits.CommandExit(exits.EX_CONFIG, f"nastui: {exc}") from None
    except BundleError as exc:
        raise exits.CommandExit(exits.EX_DATAERR, f"nastui: --root {exc}") from None
    except LatestError as exc:
        raise exits.CommandExit(exits.EX_UNAVAILABLE, f"nastui: {exc}") from None


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Collect (or read) once and write the metrics."""
    text = render(*_snapshot(args))
    if args.prometheus == "-":
        out.write(text)
        return exits.OK
    target = Path(args.prometheus)
    problem = textfile_dir_problem(target)
    if problem is not None:
        print(f"nastui: {problem}", file=sys.stderr)
        return exits.EX_CANTCREAT
    if not target.name.endswith(".prom"):
        print(
            f"nastui: note: node_exporter's textfile collector reads only *.prom files, "
            f"not {target.name}",
            file=sys.stderr,
        )
    try:
        write_public(target, text)
    except StateError as exc:
        print(f"nastui: {exc}", file=sys.stderr)
        return exits.EX_NOPERM if isinstance(exc.__cause__, PermissionError) else exits.EX_CANTCREAT
    return exits.OK
