"""`nastui locate BAY|SERIAL|DEV [--off] [--method M] [--seconds N]`: light (or put out) the
locate LED of a drive's bay by the first method that works, and say which.

An activity blink lives in this process: the command then stays in the foreground until the
blink ends (`--seconds`, default 120) or Ctrl-C / SIGTERM stops it.

`--off` on a bay with no drive in it puts out the LED nastui lit there, where its record says
it was lit (the enclosure slot; `nastui.control.locate_empty`): after a pull with the LED lit.
The bay may be named by the pulled drive's serial or kernel name, as its record keeps them.

Exit codes: 0 done, 64 no such bay or drive (an empty bay with no LED lit by nastui on record
too), 69 no method could do it, 77 permission denied (run as root).
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from types import FrameType
from typing import TextIO

from nastui import exits
from nastui.cli.command import poll_once
from nastui.control.locate_ladder import METHODS, LadderLocator
from nastui.core.drivename import DRIVE_NAMES, find_drive
from nastui.core.statefiles import BLINK
from nastui.model import LocateResult


def add_arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    """The target, --off, --method and --seconds."""
    parser.add_argument("target", help=DRIVE_NAMES)
    parser.add_argument("--off", action="store_true", help="switch the LED off")
    parser.add_argument("--method", choices=METHODS, help="use this method only")
    parser.add_argument(
        "--seconds", type=float, default=None, help="how long an activity blink lasts"
    )


def exit_code(result: LocateResult) -> int:
    """0 when it worked; 77 when permissions stopped it; 69 when nothing could do it."""
    if result.ok:
        return exits.OK
    if "permission denied" in result.message.lower():
        return exits.EX_NOPERM
    return exits.EX_UNAVAILABLE


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def _hold_blink(locator: LadderLocator, drive_key: str, out: TextIO) -> int:
    """Stay in the foreground while the activity blink runs; stop it on Ctrl-C or SIGTERM."""
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        out.write("blinking: Ctrl-C stops it\n")
        out.flush()
        while not locator.blinker.wait(0.5):
            pass
    except KeyboardInterrupt:
        out.write("stopped\n")
        return exits.INTERRUPTED
    finally:
        locator.blinker.stop()
        locator.forget(drive_key)
        signal.signal(signal.SIGTERM, previous)
    if locator.blinker.error:
        print(f"nastui: {locator.blinker.error}", file=sys.stderr)
        return exits.EX_UNAVAILABLE
    return exits.OK


def _say(result: LocateResult, out: TextIO) -> None:
    stream = out if result.ok else sys.stderr
    print(("" if result.ok else "nastui: ") + f"{result.message} [{result.method}]", file=stream)


def _put_out_empty(locator: LadderLocator, bay: int, out: TextIO) -> int:
    """`--off` on an empty bay: by its records; 64 when there is none."""
    recorded = bool(locator.lit_in(bay))
    result = asyncio.run(locator.put_out_empty(bay))
    _say(result, out)
    return exit_code(result) if recorded else exits.EX_USAGE


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Find the drive, switch its bay's LED, report the method."""
    session, snapshot = poll_once(args)
    drive, bay = find_drive(snapshot, args.target)
    locator = session.locator
    on = not args.off
    if isinstance(locator, LadderLocator):
        if drive is None and bay is None and args.target.isdigit():
            bay = int(args.target) if locator.lit_in(int(args.target)) else None  # not laid out
        elif drive is None and bay is None and not on:  # a pulled drive's serial or name
            bay = locator.bay_lit_for(args.target)
        if drive is None and bay is not None and not on:
            return _put_out_empty(locator, bay, out)
        if drive is None:
            print(f"nastui: no drive {args.target!r} ({DRIVE_NAMES})", file=sys.stderr)
            return exits.EX_USAGE
        if args.seconds is not None:
            locator.blink_seconds = args.seconds
        result = asyncio.run(locator.locate_drive(drive, bay, on, args.method))
    elif bay is not None:
        result = asyncio.run(locator.locate(bay, on))
    else:
        print(f"nastui: no bay holds {args.target!r}", file=sys.stderr)
        return exits.EX_USAGE
    _say(result, out)
    if result.ok and on and result.method == BLINK and isinstance(locator, LadderLocator):
        assert drive is not None
        return _hold_blink(locator, drive.key, out)
    return exit_code(result)
