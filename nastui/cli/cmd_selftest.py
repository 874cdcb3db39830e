"""`nastui selftest start|status|schedule`: SMART self-tests by hand, and the daemon's plan.

- `start DRIVE [--long]` starts a short (or long) self-test on a drive named by bay, serial,
  device name or /dev path, through `smartctl -n standby -t` (the simulator's on the demo). A
  sleeping drive is never woken: exit 1, try again when it is awake; a drive already testing
  is left to finish (exit 69). The start is kept in the
  state directory's `selftests.json`, which the daemon follows. Exit 0 started, 1 asleep,
  64 no such drive, 69 smartctl refused or is missing, 73 the book cannot be written.
- `status [--json]` (also `nastui selftest` alone) reads the progress of running tests now and
  shows each drive's last result.
- `schedule [--json]` shows when each drive's next short and long test is due and why a drive
  is skipped (asleep, its pool scrubbing, its vdev busy, opted out).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import TextIO

from nastui import exits
from nastui.cli.command import action_of, json_option, poll_once, write_json
from nastui.control.statefile import StateError
from nastui.core.drivename import DRIVE_NAMES, find_drive
from nastui.model import HostSnapshot
from nastui.selftest.flow.cycle import follow, schedule, start
from nastui.selftest.io.tester import load_book, save_book
from nastui.selftest.logic.plan import SelftestKind
from nastui.selftest.logic.text import StartOutcome
from nastui.selftest.logic.view import (
    decision_json,
    decision_line,
    page_json,
    page_lines,
    running_line,
)
from nastui.session import Session


def add_arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    """The subcommands; none is `status`."""
    json_option(parser)
    sub = parser.add_subparsers(dest="selftest_action", metavar="ACTION", help="default: status")
    begin = sub.add_parser("start", parents=[common], help="start a self-test on a drive")
    begin.add_argument("drive", help=DRIVE_NAMES)
    begin.add_argument("--long", action="store_true", help="a long (extended) test")
    status = sub.add_parser("status", parents=[common], help="progress and last result")
    json_option(status, action=True)
    plan = sub.add_parser("schedule", parents=[common], help="when each drive's tests are due")
    json_option(plan, action=True)


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Poll once, then do the action."""
    chosen = action_of(args, "selftest_action", "status", frozenset({"status", "schedule"}))
    session, snapshot = poll_once(args)
    action = {"start": _start, "status": _status, "schedule": _schedule}
    try:
        return action[chosen](args, session, snapshot, out)
    except StateError as exc:
        print(f"nastui: {exc}", file=sys.stderr)
        return exits.EX_CANTCREAT


def _start(args: argparse.Namespace, session: Session, snap: HostSnapshot, out: TextIO) -> int:
    drive, _ = find_drive(snap, args.drive)
    if drive is None:
        devs = ", ".join(d.dev for d in snap.drives) or "none found"
        print(f"nastui: no drive {args.drive!r} (drives: {devs})", file=sys.stderr)
        return exits.EX_USAGE
    directory = session.writable_state_dir()
    kind = SelftestKind.LONG if args.long else SelftestKind.SHORT
    tester = session.backend.tester
    book, now = load_book(directory), session.clock.now()
    if drive.key in book and book[drive.key].running is not None:
        fresh = asyncio.run(follow(snap, {drive.key: book[drive.key]}, tester, now)).book
        if fresh[drive.key].running is not None:  # read now, not kept: the daemon records ends
            line = running_line(fresh[drive.key], now)
            print(f"nastui: {drive.dev}: {line} (`nastui selftest status`)", file=sys.stderr)
            return exits.EX_UNAVAILABLE
    book, answer, _ = asyncio.run(start(book, drive, kind, tester, now))
    save_book(directory, book)
    if answer.outcome is StartOutcome.STARTED:
        out.write(f"{drive.label}: {kind.value} self-test started ({answer.line})\n")
        return exits.OK
    if answer.outcome is StartOutcome.ASLEEP:
        print(
            f"nastui: {drive.dev} is asleep and was not woken: start the test when it is awake",
            file=sys.stderr,
        )
        return exits.WARNING
    if answer.outcome is StartOutcome.BUSY:
        print(f"nastui: {drive.dev}: a self-test already runs ({answer.line})", file=sys.stderr)
        return exits.EX_UNAVAILABLE
    print(f"nastui: {drive.dev}: self-test not started: {answer.line}", file=sys.stderr)
    return exits.EX_UNAVAILABLE


def _status(args: argparse.Namespace, session: Session, snap: HostSnapshot, out: TextIO) -> int:
    book = load_book(session.state_dir) if session.state_dir is not None else {}
    tester = session.backend.tester
    now = session.clock.now()
    fresh = asyncio.run(follow(snap, book, tester, now)).book  # read now, never kept here
    if args.json:
        drives = [
            {"drive": d.key, "dev": d.dev, **page_json(fresh.get(d.key))} for d in snap.drives
        ]
        write_json({"drives": drives}, out)
        return exits.OK
    for drive in snap.drives:
        lines = page_lines(fresh.get(drive.key), now)
        out.write(f"{drive.dev:<10} {lines[0]}; {'; '.join(lines[1:])}\n")
    return exits.OK


def _schedule(args: argparse.Namespace, session: Session, snap: HostSnapshot, out: TextIO) -> int:
    book = load_book(session.state_dir) if session.state_dir is not None else {}
    decisions = schedule(snap, book, session.config.selftest, session.clock.now())
    if args.json:
        write_json({"drives": [decision_json(d) for d in decisions]}, out)
        return exits.OK
    for decision in decisions:
        out.write(decision_line(decision) + "\n")
    return exits.OK
