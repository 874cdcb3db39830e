"""`nastui config check [FILE]`."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TextIO

from nastui.cli.configcheck import config_check


def add_arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    """The `check` action and its optional file."""
    actions = parser.add_subparsers(dest="config_command", metavar="ACTION", required=True)
    check = actions.add_parser(
        "check",
        parents=[common],
        help="validate a configuration file",
    )
    check.add_argument("file", nargs="?", type=Path, help="file to check (default: the one in use)")


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Check the file named, or the one nastui would use."""
    return config_check(args.file or args.config, os.environ, out)
