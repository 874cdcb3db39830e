"""`nastui fand`: the fan control daemon (see `nastui.fans.flow.fand`; no Textual here either)."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TextIO

from nastui.fans.flow.fand import FandOptions, run_fand
from nastui.session import Source


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0.1 <= value <= 3600:
        raise argparse.ArgumentTypeError(f"period must be from 0.1 to 3600 seconds, got {text}")
    return value


def add_arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    """--once, --dry-run, --period, --full-speed."""
    parser.add_argument(
        "--once", action="store_true", help="one control period, then give the fans back and exit"
    )
    parser.add_argument(
        "--dry-run", action="store_true", help="print the writes instead of doing them"
    )
    parser.add_argument(
        "--period",
        type=_seconds,
        metavar="SECONDS",
        help="seconds between control periods (default: poll.fans, 5)",
    )
    parser.add_argument(
        "--full-speed",
        action="store_true",
        help="set every fan found to 100 %% and exit, even with a broken configuration: "
        "every hwmon pwm channel and the configured IPMI fans (systemd ExecStopPost)",
    )


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Run the daemon in the foreground; logs go to `out` (journald under systemd)."""
    options = FandOptions(
        once=args.once, dry_run=args.dry_run, period=args.period, full_speed=args.full_speed
    )
    source = Source.from_options(args, live=True)
    return run_fand(options, source, os.environ, out, sys.stderr)
