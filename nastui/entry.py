"""The `nastui` console script: headless commands, or the full-screen UI when none is given.

This is the only module that may import both the CLI and the UI, and it imports the UI (and so
Textual) only when the UI is what was asked for: `nastui status` from cron never loads Textual.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from nastui import exits
from nastui.cli.args import parse_args
from nastui.cli.logsetup import configure, level_for
from nastui.cli.main import run_headless


def _run_ui(args: argparse.Namespace) -> int:
    try:
        from nastui.ui.launch import run_ui
    except ModuleNotFoundError as exc:
        if exc.name is not None and exc.name.startswith("nastui.ui"):
            print(
                "nastui: the full-screen interface is not part of this build; "
                "use `nastui bays` or `nastui status` (add --demo for the simulator)",
                file=sys.stderr,
            )
            return exits.EX_UNAVAILABLE
        raise
    try:
        return run_ui(args)
    except exits.CommandExit as exc:  # the interface's start: the one catch, as run_headless
        if exc.message:
            print(exc.message, file=sys.stderr)
        return exc.code


def _crash(args: argparse.Namespace | None, exc: BaseException) -> int:
    if os.environ.get("NASTUI_DEBUG") or getattr(args, "debug", False):
        raise exc
    print(
        f"nastui: internal error: {type(exc).__name__}: {exc} "
        "(a bug: please report it; --debug shows the traceback)",
        file=sys.stderr,
    )
    # A monitoring check that cannot check is UNKNOWN, not a software error.
    if args is not None and getattr(args, "command", None) == "status":
        return exits.UNKNOWN
    return exits.EX_SOFTWARE


def main(argv: Sequence[str] | None = None) -> int:
    """Run nastui; returns the process exit code."""
    args: argparse.Namespace | None = None
    kind = os.environ.get("_NASTUI_COMPLETE")
    if kind:  # a completion script asking for words (nastui.cli.completewords), not a run
        from nastui.cli.completewords import main as complete

        return complete(kind, sys.argv[1:] if argv is None else argv, os.environ)
    try:
        args = parse_args(argv)
        if args.command is None:
            return _run_ui(args)
        configure(level_for(args.verbose, args.debug), sys.stderr, os.environ)
        return run_headless(args)
    except KeyboardInterrupt:
        return exits.INTERRUPTED
    except BrokenPipeError:
        # `nastui bays | head`: the reader left; say nothing more.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return exits.OK
    except Exception as exc:
        return _crash(args, exc)
