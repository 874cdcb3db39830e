"""`nastui snmp-agent`: net-snmp pass_persist handler serving the daemon's latest snapshot.

In snmpd.conf (the OID is the default base; see nastui/mibs/NASTUI-MIB.txt):

    pass_persist .1.3.6.1.4.1.8072.9999.9999.6278 /usr/bin/nastui snmp-agent

It reads `latest.json` only; it never runs smartctl or a collector, so it needs no root and a
poll never wakes a disk. It writes nothing to stderr (snmpd reads the handler's stderr as if it
were an answer): trouble goes to syslog, and to the terminal when run by hand.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
from pathlib import Path
from typing import TextIO

from nastui.agent.loop import DEFAULT_MAX_AGE, Agent, syslog_logger
from nastui.agent.mib import DEFAULT_BASE, Oid, format_oid, parse_oid
from nastui.collectors.latest import default_latest_path, read_latest


def _oid(text: str) -> Oid:
    try:
        return parse_oid(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"--max-age must be positive, got {text}")
    return value


def add_arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    """--state-file, --base-oid, --max-age."""
    parser.add_argument(
        "--state-file",
        type=Path,
        metavar="PATH",
        help="the daemon's latest.json (default: the state directory's)",
    )
    parser.add_argument(
        "--base-oid",
        type=_oid,
        metavar="OID",
        help="the subtree served, as given to pass_persist (default: netSnmpPlaypen.6278)",
    )
    parser.add_argument(
        "--max-age",
        type=_seconds,
        metavar="SECONDS",
        default=DEFAULT_MAX_AGE,
        help=f"an older snapshot is served as health UNKNOWN (default {DEFAULT_MAX_AGE:.0f})",
    )


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Answer snmpd on stdin/stdout until it closes stdin."""
    path = args.state_file or default_latest_path(os.environ, os.geteuid())
    base = args.base_oid or DEFAULT_BASE
    log = syslog_logger(sys.stderr if sys.stderr.isatty() else None)
    agent = Agent(path, read_latest, base=base, max_age=args.max_age, log=log)
    log(f"serving {path} under {format_oid(base)}")
    stdin = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")
    return agent.serve(stdin, out)
