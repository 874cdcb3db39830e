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
# The longest the first frame waits for the first poll (then it comes without a snapshot, and
# another frame when the interface's own first poll ends).
FIRST_POLL_WAIT_S = 1.0
# The longest that poll waits for SMART: the reads still going on then go on in the interface
# (the same event loop), their drives shown as being read until each ends. Smaller than the
# whole poll's wait, so the pools and fans collected after the drives still make the frame.
FIRST_SMART_WAIT_S = 0.75


def textual_environment(env: MutableMapping[str, str], colors: str | None) -> None:
    """Set what Textual reads at import: colour depth, no animation, a frame-rate cap."""
    if colors == "none":
        env["NO_COLOR"] = "1"
    elif colors in COLOR_SYSTEMS:
        env["TEXTUAL_COLOR_SYSTEM"] = COLOR_SYSTEMS[colors]
    env.setdefault("TEXTUAL_ANIMATIONS", "none")
    env.setdefault("TEXTUAL_FPS", "20")


def _first_snapshot(session: Session, runner: asyncio.Runner) -> HostSnapshot | None:
    """Poll once before the UI starts, on the event loop the interface will run on, so its
    first frame has data (None if the poll is slower than `FIRST_POLL_WAIT_S`). SMART reads
    still going on after `FIRST_SMART_WAIT_S` are not cut short: the interface's next poll
    takes them up."""

    async def bounded() -> HostSnapshot | None:
        try:
            first = session.poll(wait=FIRST_SMART_WAIT_S)
            return await asyncio.wait_for(first, FIRST_POLL_WAIT_S)
        except TimeoutError:
            return None

    return run_async(bounded(), runner)


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
    # One event loop for the first poll and the interface: the SMART reads the first poll
    # started and did not wait for end in the interface, rather than being killed with a loop.
    with asyncio.Runner() as runner:
        initial = _first_snapshot(session, runner)

        from nastui.ui.app import make_app  # Textual is imported here, and only here

        app = make_app(
            session,
            ascii_only=ascii_only,
            initial=initial,
            history_loader=partial(history_for, session),
        )
        # What the start built (modules, classes, the session, the first snapshot) lives as
        # long as the process: out of the collector's sight, its full passes do not walk it
        # again (one came just before the first frame: 24 ms).
        gc.freeze()
        # As `App.run` runs it (`asyncio.run(app.run_async())`), on this loop.
        run_async(app.run_async(), runner)
    return app.return_code or 0
