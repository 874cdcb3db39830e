"""`nastui swap`: replace a drive, guided and verified, resumable from the state directory.

    nastui swap plan TARGET [--json]      what taking it out means, and the exact commands
    nastui swap start TARGET [--pull-first|--in-place]
                                          prepare: offline/fail it, light its bay's LED
    nastui swap [status] [--json]         follow: the pull, the new drive and its check, the
                                          rebuild; a wrong pull is a CRITICAL (exit 2)
    nastui swap burnin [--badblocks|--fio] --confirm SERIAL [--hours H]
                                          optional: burn the checked new drive in first
                                          (destroys what is on it; guarded as the bench is)
    nastui swap replace --confirm SERIAL  run the replace on the checked new drive
    nastui swap abort                     stop following (LED off; the pool is left as it is,
                                          but a start interrupted while preparing is undone)
    nastui swap log [--json]              finished swaps, oldest first
    nastui --demo swap sim pull|insert|fail BAY [--variant V] | wait SECONDS
                                          the operator's hands on the simulator

TARGET is a bay number, serial, device name or by-id name. Exit codes: 0 done or nothing
wrong; 2 refused (pulling it would lose data) or a wrong pull; 64 bad target or step out of
order (a swap in progress, or another nastui changing it: named); 65 the swap file is not one
nastui wrote; 69 a command failed (a failed undo keeps the swap for the next abort); 73 the
state directory cannot be written.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import TextIO

from nastui import exits
from nastui.cli.command import action_of, json_option, poll_once, write_json
from nastui.core.drivename import DRIVE_NAMES
from nastui.sim.hands import Hand
from nastui.sim.swap import VARIANTS, SimSwap
from nastui.swap.flow import box as swapflow
from nastui.swap.flow import steps
from nastui.swap.io.store import BadStateFile, StateError
from nastui.swap.logic.burnin import BADBLOCKS, FIO
from nastui.swap.view import (
    log_text,
    plan_data,
    plan_text,
    record_data,
    swap_data,
    swap_text,
)


def add_arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    """The actions; none is `status`."""
    json_option(parser)
    sub = parser.add_subparsers(dest="swap_action", metavar="ACTION", help="default: status")
    plan = sub.add_parser("plan", parents=[common], help="what taking a drive out means")
    plan.add_argument("target", help=DRIVE_NAMES)
    json_option(plan, action=True)
    start = sub.add_parser("start", parents=[common], help="prepare the swap and light the LED")
    start.add_argument("target", help=DRIVE_NAMES)
    way = start.add_mutually_exclusive_group()
    way.add_argument("--pull-first", action="store_true", help="pull the old drive first")
    way.add_argument("--in-place", action="store_true", help="new drive in a free bay first")
    status = sub.add_parser("status", parents=[common], help="follow the swap in progress")
    json_option(status, action=True)
    replace = sub.add_parser("replace", parents=[common], help="replace onto the new drive")
    replace.add_argument("--confirm", required=True, metavar="SERIAL", help="the new serial")
    burnin = sub.add_parser(
        "burnin", parents=[common], help="write and verify the new drive before it joins"
    )
    tool = burnin.add_mutually_exclusive_group()
    tool.add_argument("--badblocks", action="store_true", help="badblocks -wv (the default)")
    tool.add_argument("--fio", action="store_true", help="fio write pass, crc32c verified")
    burnin.add_argument("--confirm", required=True, metavar="SERIAL", help="the new serial")
    burnin.add_argument(
        "--hours", type=float, default=168.0, help="give up after this long (default: 168)"
    )
    sub.add_parser(
        "abort", parents=[common], help="stop following the swap (an interrupted start: undone)"
    )
    log = sub.add_parser("log", parents=[common], help="finished swaps")
    json_option(log, action=True)
    sim = sub.add_parser("sim", parents=[common], help="demo only: pull, insert, fail, wait")
    sim.add_argument("hand", choices=("pull", "insert", "fail", "wait"), help="what to do")
    sim.add_argument("value", type=int, help="the bay (pull/insert/fail) or seconds (wait)")
    sim.add_argument("--variant", choices=VARIANTS, default="new", help="what is inserted")


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Open the box, then do the action."""
    action = action_of(args, "swap_action", "status", frozenset({"plan", "status", "log"}))
    session, snapshot = poll_once(args)
    box = swapflow.open_box(session, snapshot)
    try:
        return asyncio.run(_ACTIONS[action](box, args, out))
    except BadStateFile as exc:
        print(f"nastui: {exc}", file=sys.stderr)
        return exits.EX_DATAERR
    except StateError as exc:
        print(f"nastui: {exc}", file=sys.stderr)
        return exits.EX_CANTCREAT
    finally:
        if box.store.notice:
            print(f"nastui: {box.store.notice}", file=sys.stderr)


async def _plan(box: swapflow.Box, args: argparse.Namespace, out: TextIO) -> int:
    plan = box.plan(args.target)
    if args.json:
        write_json(plan_data(plan), out)
    else:
        out.write(plan_text(plan))
    if plan.drive is None:
        return exits.EX_USAGE
    return exits.CRITICAL if plan.refusal else exits.OK


def _report(outcome: steps.Outcome, out: TextIO) -> int:
    """Print what an action ran and what went wrong; the exit code for it."""
    for line in outcome.ran:
        out.write(line + "\n")
    for line in outcome.notes:
        out.write(line + "\n")
    if outcome.error is None:
        return exits.OK
    print(f"nastui: {outcome.error}", file=sys.stderr)
    return _CODES[outcome.trouble or steps.Trouble.USAGE]


_CODES = {
    steps.Trouble.USAGE: exits.EX_USAGE,
    steps.Trouble.REFUSED: exits.CRITICAL,
    steps.Trouble.FAILED: exits.EX_UNAVAILABLE,
}


async def _start(box: swapflow.Box, args: argparse.Namespace, out: TextIO) -> int:
    way = True if args.in_place else False if args.pull_first else None
    outcome = await steps.start(box, args.target, way)
    code = _report(outcome, out)
    if code == exits.OK and outcome.swap is not None:
        out.write(swap_text(outcome.swap))
    return code


async def _status(box: swapflow.Box, args: argparse.Namespace, out: TextIO) -> int:
    swap = await steps.refresh(box)
    if args.json:
        write_json(swap_data(swap), out)
    elif swap is None:
        out.write("no swap in progress (`nastui swap plan TARGET` to begin)\n")
    else:
        out.write(swap_text(swap))
    return exits.CRITICAL if swap is not None and (swap.wrong_pulls or swap.failures) else exits.OK


async def _replace(box: swapflow.Box, args: argparse.Namespace, out: TextIO) -> int:
    outcome = await steps.replace(box, args.confirm)
    code = _report(outcome, out)
    if code == exits.OK:
        out.write("replace started: `nastui swap` follows the rebuild\n")
    return code


async def _burnin(box: swapflow.Box, args: argparse.Namespace, out: TextIO) -> int:
    tool = FIO if args.fio else BADBLOCKS
    if args.hours <= 0:
        print("nastui: --hours must be more than 0", file=sys.stderr)
        return exits.EX_USAGE
    outcome = await steps.burnin(box, args.confirm, tool, args.hours * 3600.0)
    code = _report(outcome, out)
    if code == exits.OK:
        out.write("burn-in passed: `nastui swap replace --confirm SERIAL` when ready\n")
    return code


async def _abort(box: swapflow.Box, args: argparse.Namespace, out: TextIO) -> int:
    return _report(await steps.abort(box), out)


async def _log(box: swapflow.Box, args: argparse.Namespace, out: TextIO) -> int:
    records = box.store.log()
    if args.json:
        write_json({"swaps": [record_data(r) for r in records]}, out)
    else:
        out.write(log_text(records))
    return exits.OK


async def _sim(box: swapflow.Box, args: argparse.Namespace, out: TextIO) -> int:
    sim = box.hands
    if not isinstance(sim, SimSwap):  # the operator's hands exist on the simulator only
        print("nastui: `swap sim` acts on the simulator only (add --demo)", file=sys.stderr)
        return exits.EX_USAGE
    if args.hand == "wait":
        sim.wait(args.value)
        out.write(f"demo clock moved on {args.value} s\n")
        return exits.OK
    if box.snapshot.slot(args.value) is None:
        print(f"nastui: no bay {args.value}", file=sys.stderr)
        return exits.EX_USAGE
    current = box.store.load()
    like = current.old.key if current is not None else ""
    sim.add([Hand(args.hand, box.now, args.value, args.variant, like=like)])
    out.write(f"simulated: {args.hand} bay {args.value}\n")
    return exits.OK


_ACTIONS = {
    "plan": _plan,
    "start": _start,
    "status": _status,
    "replace": _replace,
    "burnin": _burnin,
    "abort": _abort,
    "log": _log,
    "sim": _sim,
}
