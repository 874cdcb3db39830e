"""Running a headless command. No Textual here, ever.

Every command opens its source through `nastui.session` (see `nastui.cli.command.open_for`),
so `--demo`, `--scenario`, `--root` and `--config` mean the same everywhere. Failures are one
line on stderr naming the thing and the fix, with an exit code from `nastui.exits`; never a
traceback. A command that cannot go on raises `nastui.exits.CommandExit` where it finds out,
and `run_headless` says it and returns its code (borgmatic's one catch at the boundary).
Under `--ascii` or on a console that needs it, stdout and stderr carry only ASCII.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from typing import TextIO, cast

from nastui.cli.asciiout import AsciiStream, ascii_wanted
from nastui.cli.registry import command
from nastui.exits import CommandExit


def run_headless(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Run the subcommand named in `args`; returns the exit code. A command that ends early
    raises `nastui.exits.CommandExit`: its line goes to stderr here, the one place."""
    stream = sys.stdout if out is None else out
    if not ascii_wanted(args) or isinstance(stream, AsciiStream):
        return _run(args, stream)
    ascii_out = cast("TextIO", AsciiStream(stream))
    with contextlib.redirect_stderr(cast("TextIO", AsciiStream(sys.stderr))):
        if out is None:
            with contextlib.redirect_stdout(ascii_out):
                return _run(args, ascii_out)
        return _run(args, ascii_out)


def _run(args: argparse.Namespace, out: TextIO) -> int:
    try:
        return command(args.command).run(args, out)
    except CommandExit as exc:
        if exc.message:
            print(exc.message, file=sys.stderr)
        return exc.code
