"""`nastui scrub start|pause|stop POOL`: start, pause or stop a pool's scrub (an md array's
check), printing one line that says what happened and how (libzfs_core, `zpool scrub`,
`btrfs scrub`, md sysfs, or the simulator).

With `start --wait` it then follows the scrub to its end with a progress bar (see
`nastui.cli.scrubwait`).

Exit codes: 0 done; 64 no such pool, or an action the pool kind lacks (pause on btrfs or md);
69 the tool refused or is missing; 77 it needs root. With --wait: 0 finished clean, 1 finished
with errors found, 69 stopped before the end, 130 Ctrl-C (the scrub goes on).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import TextIO

from nastui import exits
from nastui.cli.command import poll_once
from nastui.collectors.runner import run as run_command
from nastui.control.scrub import scrubber_for
from nastui.core.scanning.words import find_pool
from nastui.model import ScrubAction, ScrubResult


def add_arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    """ACTION POOL."""
    parser.add_argument("action", choices=[a.value for a in ScrubAction], help="what to do")
    parser.add_argument("pool", help="pool name, btrfs UUID or mount point, or md array")
    parser.add_argument(
        "--wait",
        action="store_true",
        help="with start: follow the scrub to its end with a progress bar; exit 0 clean, "
        "1 errors found, 69 stopped early",
    )
    parser.add_argument(
        "--interval",
        type=float,
        default=2.0,
        metavar="S",
        help="with --wait: seconds between polls (default 2)",
    )


def exit_code(result: ScrubResult) -> int:
    """The exit code for what happened."""
    if result.ok:
        return exits.OK
    if not result.supported:
        return exits.EX_USAGE
    if not result.permission:
        return exits.EX_NOPERM
    return exits.EX_UNAVAILABLE


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Find the pool in a fresh poll, act on it, say what happened."""
    session, snapshot = poll_once(args)
    pool = find_pool(snapshot.pools, args.pool)
    if pool is None:
        names = ", ".join(p.name for p in snapshot.pools) or "none found"
        print(f"nastui: no pool {args.pool!r} (pools: {names})", file=sys.stderr)
        return exits.EX_USAGE
    timeout = session.config.poll.command_timeout_s
    scrubber = scrubber_for(session.backend, run_command, timeout=timeout)
    action = ScrubAction(args.action)
    if args.wait and action is not ScrubAction.START:
        print("nastui: --wait goes with start only", file=sys.stderr)
        return exits.EX_USAGE
    if not 0.1 <= args.interval <= 3600:
        print("nastui: --interval must be from 0.1 to 3600 seconds", file=sys.stderr)
        return exits.EX_USAGE
    result = asyncio.run(scrubber.scrub(pool, action))
    print(result.message, file=out if result.ok else sys.stderr)
    if not (result.ok and args.wait):
        return exit_code(result)
    from nastui.cli.scrubwait import wait_for_scrub

    return wait_for_scrub(session, pool.name, pool.scan, out, args.interval)
