"""`nastui status`: a one-screen summary; exit codes are the monitoring-plugin ones.

0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN: a bad command line (`nastui.cli.args`), scenario name
or configuration is UNKNOWN too, with a plugin status line saying so. Pools get
a time-to-full estimate from the usage the daemon's history kept (`nastui.core.capacity`).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any, TextIO

from nastui import exits
from nastui.cli.command import glyphs_of, swap_view, write_json
from nastui.cli.statusview import FullIn, render_status, status_data
from nastui.core import perfdata
from nastui.core.assess import overall
from nastui.core.capacity import WINDOW_S, metric, time_to_full
from nastui.model import HostSnapshot
from nastui.session import Session, Source, history_for, open_or_exit


def add_arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    """--json. The global -v/--verbose (every command's) also adds what each collector did
    (absent stacks are off) and notes such as virtual disks without SMART."""
    parser.add_argument("--json", action="store_true", help="machine-readable summary")


def full_in(session: Session, snapshot: HostSnapshot, source_demo: bool) -> FullIn:
    """Pool name -> seconds until full, from the usage samples the history holds (the
    daemon's file; none without a daemon, nor on the demo)."""
    if not snapshot.pools or source_demo:
        return {}
    history = session.history or history_for(session)
    if history is None:
        return {}
    from nastui.history.db import HistoryError  # loaded already: the history is open

    now = snapshot.taken_at
    result: dict[str, float | None] = {}
    try:
        for pool in snapshot.pools:
            samples = history.samples(snapshot.host, metric(pool.name), now - WINDOW_S)
            result[pool.name] = time_to_full(samples, now)
    except HistoryError:
        return {}
    finally:
        if history is not session.history:
            history.close()
    return result


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Collect once, print the summary, exit with the overall state."""
    try:
        session = open_or_exit(Source.from_options(args), os.environ)
    except exits.CommandExit as exc:  # a monitoring plugin: UNKNOWN, said on stdout too
        print(exc.message, file=sys.stderr)
        message = exc.message.removeprefix("nastui: ")
        out.write(perfdata.text(f"NASTUI UNKNOWN - cannot check: {message}") + "\n")
        return exits.UNKNOWN
    snapshot = session.poll_now()
    limits = session.config.thresholds
    filling = full_in(session, snapshot, bool(args.demo))
    snapshot, swap_lines, swap_critical = swap_view(session, snapshot)
    snapshot, ups_lines, ups_json = _ups_view(session, snapshot)
    if args.json:
        data = status_data(snapshot, limits, filling)
        write_json({**data, "ups": ups_json, "swap": swap_lines}, out)
    else:
        glyphs = glyphs_of(args, session)
        text = render_status(
            snapshot, glyphs, limits, verbose=args.verbose, full_in=filling, extra=ups_lines
        )
        out.write(with_swap(text, swap_lines, critical=swap_critical))
    return max(int(overall(snapshot)), exits.CRITICAL if swap_critical else exits.OK)


def _ups_view(
    session: Session, snapshot: HostSnapshot
) -> tuple[HostSnapshot, list[str], list[dict[str, Any]]]:
    """The `[[ups]]`es read (`nastui.cli.statusups`): `snapshot` with their alerts, their
    lines and their `--json`; their code (and the acknowledgements it needs) loaded only
    when one is configured."""
    if not session.config.ups:
        return snapshot, [], []
    from nastui.cli.statusups import read_upses, ups_data, ups_lines, with_ups_alerts

    upses = read_upses(session)
    alerted = with_ups_alerts(snapshot, upses, session.alert_acks())
    return alerted, ups_lines(upses), ups_data(upses)


def with_swap(text: str, lines: list[str], *, critical: bool) -> str:
    """The summary with the swap's lines under its first line; a CRITICAL swap (a wrong
    pull) also leads the plugin line, whose perfdata stays where it was."""
    if not lines:
        return text
    first, _, rest = text.partition("\n")
    if critical:
        head, sep, perf = first.partition(" | ")
        _, _, summary = head.partition(" - ")
        lead = perfdata.text(lines[0].removeprefix("CRITICAL "))
        first = f"NASTUI CRITICAL - {lead}; {summary}{sep}{perf}"
    return first + "\n" + "".join(f"{perfdata.text(line)}\n" for line in lines) + rest
