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
from importlib.machinery import ModuleSpec, PathFinder
from types import ModuleType
from typing import TYPE_CHECKING, cast

from nastui import exits
from nastui.cli.args import load_command, parse_args
from nastui.cli.logsetup import configure, level_for
from nastui.cli.main import run_headless

if TYPE_CHECKING:
    from importlib.abc import Loader


class _AsyncioWithoutTls:
    """Import asyncio without OpenSSL, whenever it is first imported: 6 MB resident and 5 ms.

    asyncio imports `ssl` only to offer TLS on its own transports (`open_connection(ssl=...)`),
    which nastui never uses: SNMP is UDP, and the notifiers' TLS (SMTP, webhooks) goes through
    smtplib and urllib, which import `ssl` themselves when they are loaded. So `ssl` is hidden
    while asyncio is imported: asyncio records it as unavailable, as on a Python built without
    OpenSSL. A later `import ssl` (a notifier's) loads the real module as usual.

    An import hook (a finder ahead of the others, for `asyncio` alone, then gone) rather than
    importing asyncio at the start: a command that needs no event loop (`status --demo`,
    `config check`, `swap log`) never loads asyncio at all (13 ms of a 110 ms run), and whatever
    imports it first (a collector, Textual) gets it without TLS. The module keeps the path
    finder's own loader (`__loader__`, `__spec__.loader`): this one only wraps its run. Nothing
    to do when either module is loaded already (an embedding program, the tests)."""

    def install(self) -> None:
        """Hide `ssl` from the first import of asyncio, unless either is loaded already."""
        if "asyncio" not in sys.modules and "ssl" not in sys.modules and self not in sys.meta_path:
            sys.meta_path.insert(0, self)

    def find_spec(
        self, name: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        """asyncio's spec as the path finder makes it, its loader wrapped; None otherwise."""
        if name != "asyncio":
            return None
        with contextlib.suppress(ValueError):  # once: whatever imports asyncio next finds it
            sys.meta_path.remove(self)
        spec = PathFinder.find_spec(name, path)
        if spec is not None and spec.loader is not None and "ssl" not in sys.modules:
            spec.loader = cast("Loader", _SslHidden(spec.loader))
        return spec


class _SslHidden:
    """A module's loader, run with `ssl` hidden (`_AsyncioWithoutTls`)."""

    def __init__(self, loader: Loader) -> None:
        self._loader = loader

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        """The wrapped loader's module (None: the default one)."""
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        """Run the module (asyncio's `__init__`, which imports its submodules), `ssl` hidden;
        the module keeps the wrapped loader as its own."""
        module.__loader__ = self._loader
        if module.__spec__ is not None:
            module.__spec__.loader = self._loader
        sys.modules["ssl"] = None  # type: ignore[assignment]  # `import ssl` raises ImportError
        try:
            self._loader.exec_module(module)
        finally:
            sys.modules.pop("ssl", None)  # the None above: a real ssl cannot load while it is there


_WITHOUT_TLS = _AsyncioWithoutTls()


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
        _WITHOUT_TLS.install()
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
