"""`nastui alert test|list|ack|unack|log`: try the notifiers, see and acknowledge alerts.

- `test` sends a test message through every configured notifier and says, per notifier, that
  it went or why not (the article's advice: a monitor whose mail never arrives is no monitor).
  Exit 0 all sent, 1 one failed, 78 nothing configured.
- `list` (also `nastui alert` alone) polls once (like `nastui status`) and lists the alerts
  with their keys, marked where an acknowledgement covers them; `--json` too.
- `ack KEY [--for DURATION] [--note TEXT]` acknowledges a standing alert: its present value
  becomes the baseline, it is not sent again until it grows (or the acknowledgement expires);
  `unack KEY` withdraws it. KEY is the alert's key as `list` shows it (HOST/KEY), or a unique
  part of it. Acknowledgements are kept in the state directory's `acks.json` (the demo's own
  directory for `--demo`/`--scenario`), which every poll reads: `nastui status` then counts the
  alert as acknowledged. Exit 64 for no such alert, 73 when the file cannot be written.
- `log [--since DURATION]` prints what the daemon sent (or failed to), newest first.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import re
import sys
import time
from pathlib import Path
from typing import TextIO

from nastui import exits
from nastui.cli.command import action_of, json_option, open_for, swap_view, write_json
from nastui.cli.statusups import read_upses
from nastui.config import Config
from nastui.control import acks as ack_file
from nastui.control.statefile import StateError
from nastui.core.ack import ack_alert, ack_key
from nastui.core.fleetview import fleet_alert_list
from nastui.core.layout import EXAMPLE_HINT
from nastui.core.statefiles import state_dir
from nastui.core.units import age
from nastui.core.units import duration as span
from nastui.history.db import HISTORY_FILE, History, HistoryError
from nastui.model import Alert, FleetHost, HostSnapshot
from nastui.notify import notifiers_from, send_test
from nastui.session import Session, Source, open_or_exit, run_async

# Sample: 7d   12h   30m   90s   2w
_DURATION = re.compile(r"^(?P<n>\d+(?:\.\d+)?)(?P<unit>[smhdw])$")
_UNIT_S = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def duration(text: str) -> float:
    """ "7d", "12h", "30m", "90s", "2w" in seconds (argparse type)."""
    match = _DURATION.match(text.strip())
    if match is None or float(match["n"]) <= 0:
        raise argparse.ArgumentTypeError(
            f"not a duration: {text!r} (a number and s, m, h, d or w: 7d, 12h)"
        )
    return float(match["n"]) * _UNIT_S[match["unit"]]


def add_arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    """The subcommands; none is `list`."""
    json_option(parser)
    sub = parser.add_subparsers(dest="alert_action", metavar="ACTION", help="default: list")
    sub.add_parser("test", parents=[common], help="send a test message through every notifier")
    listing = sub.add_parser("list", parents=[common], help="the alerts standing now")
    json_option(listing, action=True)
    ack = sub.add_parser("ack", parents=[common], help="acknowledge a standing alert")
    ack.add_argument("key", help="the alert's key (see `nastui alert list`), or a unique part")
    ack.add_argument("--for", dest="duration", type=duration, help="expire after (7d, 12h)")
    ack.add_argument("--note", default="", help="why, for the next operator")
    unack = sub.add_parser("unack", parents=[common], help="withdraw an acknowledgement")
    unack.add_argument("key", help="the acknowledged alert's key")
    log = sub.add_parser("log", parents=[common], help="what the daemon sent, newest first")
    log.add_argument("--since", type=duration, help="how far back (7d; default: the last 50)")


def _history(*, write: bool, directory: Path | None = None) -> History | str:
    """The daemon's history in `directory` (default: the machine's state directory)."""
    path = (directory or state_dir(os.environ, os.geteuid())) / HISTORY_FILE
    try:
        return History.open(path, readonly=not write)
    except HistoryError as exc:
        return str(exc)


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Dispatch to the action."""
    action = {"test": _test, "list": _list, "ack": _ack, "unack": _unack, "log": _log}
    return action[action_of(args, "alert_action", "list", frozenset({"list"}))](args, out)


def _config(args: argparse.Namespace) -> Config:
    return open_for(args).config


def _test(args: argparse.Namespace, out: TextIO) -> int:
    config = _config(args)
    notifiers = notifiers_from(config.alerts, os.environ)
    if not notifiers:
        where = str(config.path) if config.path else "a configuration file"
        print(
            f"nastui: no notifier configured: add [alerts.email], exec or webhook to {where} "
            f"({EXAMPLE_HINT})",
            file=sys.stderr,
        )
        return exits.EX_CONFIG
    host = config.hostname or os.uname().nodename
    failed = 0
    for name, error in send_test(notifiers, host, time.time()):
        if error is None:
            print(f"sent    {name}", file=out)
        else:
            failed += 1
            print(f"FAILED  {error}", file=out)
    return exits.WARNING if failed else exits.OK


def _standing(args: argparse.Namespace) -> tuple[Session, str, tuple[Alert, ...]]:
    """The box's alerts, then its fleet's (`[[ups]]`, `[[host]]`, each "HOST/KEY"), as the
    daemon sends them, polled once, the acknowledgements applied."""
    source = dataclasses.replace(Source.from_options(args), fleet=True)
    session = open_or_exit(source, os.environ)
    snapshot, hosts = run_async(_poll_with_fleet(session))
    snapshot, _, _ = swap_view(session, snapshot)  # the swap's bay and wrong pulls, as sent
    polled = {h.name for h in hosts}
    if any(u.name not in polled for u in session.config.ups):  # the demo's fleet is simulated
        hosts += tuple(h for h in read_upses(session) if h.name not in polled)  # as `status`
    fleet = fleet_alert_list(hosts, session.alert_acks(), snapshot.taken_at)
    return session, snapshot.host, (*snapshot.alerts, *fleet)


async def _poll_with_fleet(session: Session) -> tuple[HostSnapshot, tuple[FleetHost, ...]]:
    fleet = session.fleet
    if fleet is None:
        return await session.poll(), ()
    try:
        return await asyncio.gather(session.poll(), fleet.poll())
    finally:
        fleet.close()


def _list(args: argparse.Namespace, out: TextIO) -> int:
    _, host, alerts = _standing(args)
    if args.json:
        entries = [
            {
                "host": a.host or host,
                "key": ack_key(a),
                "health": a.health.name,
                "name": a.name,
                "message": a.message,
                "value": a.value,
                "acknowledged": a.acknowledged,
            }
            for a in alerts
        ]
        write_json({"host": host, "alerts": entries}, out)
        return exits.OK
    if not alerts:
        print(f"{host}: no alerts", file=out)
    for a in alerts:
        mark = " (acknowledged)" if a.acknowledged else ""
        print(f"{a.health.short:<5} {ack_key(a)}\n      {a.name}: {a.message}{mark}", file=out)
    return exits.OK


def _find(alerts: tuple[Alert, ...], key: str) -> Alert | str:
    exact = [a for a in alerts if ack_key(a) == key or a.key == key]
    if len(exact) == 1:
        return exact[0]
    partial = [a for a in alerts if key in ack_key(a)]
    if len(partial) == 1:
        return partial[0]
    if not partial:
        return f"no standing alert {key!r} (`nastui alert list` shows their keys)"
    keys = ", ".join(ack_key(a) for a in partial[:5])
    return f"{key!r} matches {len(partial)} alerts ({keys}): give more of the key"


def _ack(args: argparse.Namespace, out: TextIO) -> int:
    session, _, alerts = _standing(args)
    alert = _find(alerts, args.key)
    if isinstance(alert, str):
        print(f"nastui: {alert}", file=sys.stderr)
        return exits.EX_USAGE
    now = session.clock.now()
    expires = now + args.duration if args.duration else None
    ack = ack_alert(alert, now, args.note, expires)
    try:
        ack_file.add_alert_ack(session.writable_state_dir(), ack)
    except StateError as exc:
        print(f"nastui: {exc}", file=sys.stderr)
        return exits.EX_CANTCREAT
    # What stands now, in the alert's words: its bare value (a self-test's power-on hour,
    # 56942) means nothing on its own.
    now_is = f" ({alert.message})" if ack.value is not None else ""
    until = f" for {span(args.duration)}" if args.duration else " until it grows or clears"
    print(f"acknowledged {ack.key}{now_is}{until}", file=out)
    return exits.OK


def _unack(args: argparse.Namespace, out: TextIO) -> int:
    session = open_for(args)
    known = {a.key for a in session.every_alert_ack()}
    keys = sorted(k for k in known if k == args.key or args.key in k)
    if args.key in keys:
        keys = [args.key]
    if len(keys) != 1:
        what = "no acknowledgement" if not keys else f"{len(keys)} acknowledgements match"
        print(f"nastui: {what} {args.key!r} (`nastui alert list` shows them)", file=sys.stderr)
        return exits.EX_USAGE
    try:
        ack_file.remove_alert_ack(session.writable_state_dir(), keys[0])
        if any(a.key == keys[0] for a in session.legacy_acks):
            _forget_legacy(keys[0])
    except (StateError, HistoryError) as exc:
        print(f"nastui: {exc}", file=sys.stderr)
        return exits.EX_CANTCREAT
    print(f"withdrew the acknowledgement of {keys[0]}", file=out)
    return exits.OK


def _forget_legacy(key: str) -> None:
    """Remove an acknowledgement an older nastui kept in the history database."""
    history = _history(write=True)
    if isinstance(history, str):
        raise HistoryError(history)
    try:
        history.remove_ack(key)
    finally:
        history.close()


def _log(args: argparse.Namespace, out: TextIO) -> int:
    session = open_for(args)  # the demo's log is its own daemon's, never the machine's
    try:
        history = _history(write=False, directory=session.writable_state_dir())
    except StateError as exc:
        history = str(exc)
    if isinstance(history, str):
        print(f"nastui: {history}", file=sys.stderr)
        return exits.EX_UNAVAILABLE
    now = time.time()
    rows = history.notices(now - args.since if args.since else 0.0, limit=50)
    if not rows:
        print("no alerts sent in that time", file=out)
    for row in rows:
        when = age(now - row.at)
        print(
            f"{when:>12}  {row.host} {row.kind} {row.health} {row.name}: {row.message}  "
            f"[{row.delivery}]",
            file=out,
        )
    return exits.OK
