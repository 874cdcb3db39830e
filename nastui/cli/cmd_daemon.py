"""`nastui daemon`: the monitoring daemon (see `nastui.daemon.monitord`; no Textual here)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TextIO

from nastui import exits
from nastui.cli.command import textfile_dir_problem
from nastui.daemon.metrics_http import DEFAULT_PORT, ListenAddress, parse_listen
from nastui.daemon.monitord import DaemonOptions, run_daemon
from nastui.session import Source


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 < value <= 100_000:
        raise argparse.ArgumentTypeError(f"must be above 0, got {text}")
    return value


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, got {text}")
    return value


def _listen(text: str) -> ListenAddress:
    try:
        return parse_listen(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    """--once, --cycles, --period, --no-notify, --history, --prometheus, --metrics-listen,
    --keep-days."""
    parser.add_argument("--once", action="store_true", help="one cycle, then exit")
    parser.add_argument(
        "--cycles", type=_count, metavar="N", help="N cycles, then exit (a bounded run)"
    )
    parser.add_argument(
        "--period",
        type=_positive,
        metavar="SECONDS",
        help="seconds between cycles (default: poll.pools, 10)",
    )
    parser.add_argument(
        "--no-notify", action="store_true", help="log alerts but send nothing (a dry run)"
    )
    parser.add_argument(
        "--history",
        type=Path,
        metavar="FILE",
        help="the history database (default: history.sqlite in the state directory)",
    )
    parser.add_argument(
        "--prometheus",
        type=Path,
        metavar="FILE",
        help="also write node_exporter's textfile format here every cycle",
    )
    parser.add_argument(
        "--metrics-listen",
        type=_listen,
        metavar="[ADDRESS:]PORT",
        help=f"serve Prometheus metrics on http://ADDRESS:PORT/metrics (e.g. {DEFAULT_PORT}: "
        "127.0.0.1 only; 0: a free port, logged)",
    )
    parser.add_argument(
        "--keep-days",
        type=_positive,
        default=90.0,
        metavar="DAYS",
        help="how long history is kept (default 90)",
    )


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Run the daemon in the foreground; logs go to `out` (journald under systemd)."""
    if args.prometheus is not None and (problem := textfile_dir_problem(args.prometheus)):
        print(f"nastui: {problem}", file=sys.stderr)
        return exits.EX_CANTCREAT
    options = DaemonOptions(
        once=args.once,
        cycles=args.cycles,
        period=args.period,
        notify=not args.no_notify,
        history=args.history,
        prometheus=args.prometheus,
        keep_days=args.keep_days,
        metrics_listen=args.metrics_listen,
    )
    return run_daemon(options, Source.from_options(args, live=True), os.environ, out, sys.stderr)
