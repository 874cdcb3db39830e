"""Starting the full-screen interface from the command line (`nastui`, `nastui --demo`).

Colour depth, ASCII mode, animation and frame rate are settled here, before Textual is imported:
Textual reads its environment once, at import.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import gc
import os
import sys
from collections.abc import MutableMapping
from functools import partial

from nastui import exits
from nastui.core.glyphs import choose_ascii
from nastui.model import HostSnapshot
from nastui.session import Session, Source, history_for, open_or_exit, run_async

COLOR_SYSTEMS = {"16": "standard", "256": "256", "truecolor": "truecolor"}
FIRST_POLL_WAIT_S = 1.0


def textual_environment(env: MutableMapping[str, str], colors: str | None) -> None:
    """Set what Textual reads at import: colour depth, no animation, a frame-rate cap."""
    if colors == "none":
        env["NO_COLOR"] = "1"
    elif colors in COLOR_SYSTEMS:
        env["TEXTUAL_COLOR_SYSTEM"] = COLOR_SYSTEMS[colors]
    env.setdefault("TEXTUAL_ANIMATIONS", "none")
    env.setdefault("TEXTUAL_FPS", "20")


def _first_snapshot(session: Session) -> HostSnapshot | None:
    """Poll once before the UI starts so its first frame has data (skipped if slow)."""

    async def bounded() -> HostSnapshot | None:
        try:
            return await asyncio.wait_for(session.poll(), FIRST_POLL_WAIT_S)
        except TimeoutError:
            return None

    return run_async(bounded())


def run_ui(args: argparse.Namespace) -> int:
    """Open the source and run the interface; returns the exit code."""
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        print(
            "nastui: the full-screen interface needs a terminal; "
            "use `nastui status` or `nastui bays` in scripts",
            file=sys.stderr,
        )
        return exits.EX_USAGE
    # The history (a demo builds a simulated day of it) is loaded after the first frame, off
    # the event loop: it would otherwise add half a second before anything shows.
    # The fleet too (`NastuiApp` sets it up then): nothing of it loads before the first frame.
    source = dataclasses.replace(Source.from_options(args, live=True, history=False), fleet=False)
    session = open_or_exit(source, os.environ)
    ui = session.config.ui
    textual_environment(os.environ, args.colors or ui.colors)
    ascii_only = choose_ascii(os.environ, forced=True if args.ascii else ui.ascii)
    initial = _first_snapshot(session)

    from nastui.ui.app import make_app  # Textual is imported here, and only here

    app = make_app(
        session,
        ascii_only=ascii_only,
        initial=initial,
        history_loader=partial(history_for, session),
    )
    # What the start built (modules, classes, the session, the first snapshot) lives as long as
    # the process: out of the collector's sight, its full passes do not walk it again (one came
    # just before the first frame: 24 ms).
    gc.freeze()
    app.run()
    return app.return_code or 0
