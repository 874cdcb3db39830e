"""The `nastui` console script: headless commands, or the full-screen UI when none is given.

This is the only module that may import both the CLI and the UI, and it imports the UI (and so
Textual) only when the UI is what was asked for: `nastui status` from cron never loads Textual.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import sys
from collections.abc import Iterator, Sequence

from nastui import exits
from nastui.cli.args import load_command, parse_args
from nastui.cli.logsetup import configure, level_for
from nastui.cli.main import run_headless


def _asyncio_without_tls() -> None:
    """Import asyncio without OpenSSL: 6 MB resident and 5 ms of every start.

    asyncio imports `ssl` only to offer TLS on its own transports (`open_connection(ssl=...)`),
    which nastui never uses: SNMP is UDP, and the notifiers' TLS (SMTP, webhooks) goes through
    smtplib and urllib, which import `ssl` themselves when they are loaded. So `ssl` is hidden
    while asyncio is imported: asyncio records it as unavailable, as on a Python built without
    OpenSSL, and the interface, `status` and every command that sends nothing never load
    OpenSSL. A later `import ssl` (a notifier's) loads the real module as usual. Nothing to do
    when either is already loaded (an embedding program, the tests)."""
    if "asyncio" in sys.modules or "ssl" in sys.modules:
        return
    sys.modules["ssl"] = None  # type: ignore[assignment]  # `import ssl` raises ImportError
    try:
        import asyncio  # noqa: F401
    finally:
        del sys.modules["ssl"]


@contextlib.contextmanager
def _loading() -> Iterator[None]:
    """Load code without the cyclic garbage collector, then freeze what was loaded.

    Importing a command makes tens of thousands of objects that live as long as the process;
    the collector would walk the young ones again and again while they are made, and all of
    them again at exit (15 ms of `nastui status`). Frozen (`gc.freeze`), they are never
    walked again. Everything made afterwards (the parser first: its garbage is collected, not
    kept) is collected as usual, and the collector is back as it was before the command runs,
    whether loading succeeded or not."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        _asyncio_without_tls()
        yield
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()


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
        with _loading():
            load_command(argv)  # the command's module and what it needs, not the parser
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
