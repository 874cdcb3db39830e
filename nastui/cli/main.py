"""Running a headless command. No Textual here, ever.

Every command opens its source through `nastui.session` (see `nastui.cli.command.open_for`),
so `--demo`, `--scenario`, `--root` and `--config` mean the same everywhere. Failures are one
line on stderr naming the thing and the fix, with an exit code from `nastui.exits`; never a
traceback.
"""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from nastui.cli.registry import command


def run_headless(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    """Run the subcommand named in `args`; returns the exit code."""
    return command(args.command).run(args, out)
