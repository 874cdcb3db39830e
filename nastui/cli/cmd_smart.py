"""`nastui smart explain FILE|-` and `nastui smart ack DRIVE [KEY ...]`.

`explain` reads a saved `smartctl -x`/`-a` text or `smartctl -j` report (a forum post, another
box) and prints the drive's identity, the verdict and its reasons, through the same parsers and
rules as the live path; it exits with the verdict's monitoring code (0 OK ... 3 UNKNOWN).
`ack` makes a drive's current findings its new baseline: they are shown as acknowledged, and
warn again only when the value grows.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time
from typing import Any, TextIO

from nastui import exits, safeio
from nastui.cli.cmd_drives import reason_lines
from nastui.cli.command import glyphs_of, poll_once, write_json
from nastui.collectors.replay import BundleError
from nastui.collectors.smart.collector import parse_capture
from nastui.collectors.smart.reading import SmartReading, drive_from_reading
from nastui.collectors.smart.reading import exit_findings as exit_meanings
from nastui.config import ConfigError
from nastui.control import acks
from nastui.control.statefile import StateError
from nastui.core import units
from nastui.core.ack import ackable
from nastui.core.drivename import DRIVE_NAMES, find_drive
from nastui.core.health import drive_verdict
from nastui.model import Drive, PowerState, Thresholds
from nastui.model.errors import ParseError
from nastui.session import Source, load_for


def add_arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    """The `explain` and `ack` actions."""
    actions = parser.add_subparsers(dest="smart_command", metavar="ACTION", required=True)
    explain = actions.add_parser(
        "explain", parents=[common], help="verdict and reasons for a saved smartctl report"
    )
    explain.add_argument("file", help="smartctl -x, -a or -j output; - reads standard input")
    explain.add_argument("--json", action="store_true", help="machine-readable")
    ack = actions.add_parser(
        "ack", parents=[common], help="acknowledge a drive's findings at their current values"
    )
    ack.add_argument("drive", help=DRIVE_NAMES)
    ack.add_argument("keys", nargs="*", help='findings to acknowledge ("attr:197"); default all')
    ack.add_argument("--note", default="", help="a note kept with the acknowledgement")
    ack.add_argument("--clear", action="store_true", help="forget the acknowledgements instead")


REPORT_LIMIT = 16 * safeio.MIB  # a `smartctl -x` report is tens of KiB


def _read(name: str) -> str:
    """The report: standard input, a regular file or a pipe, at most REPORT_LIMIT bytes.

    Raises:
        OSError: it cannot be read, is a device or directory, or is larger than the bound.
    """
    if name == "-":
        raw = safeio.read_fd_bounded(sys.stdin.fileno(), "standard input", REPORT_LIMIT)
    else:
        raw = safeio.read_input_bounded(name, REPORT_LIMIT)
    return raw.decode("utf-8", errors="replace")


def explained(reading: SmartReading, limits: Thresholds, now: float) -> Drive:
    """The drive a report describes, with its verdict."""
    drive = drive_from_reading(reading, "capture", now)
    return dataclasses.replace(drive, verdict=drive_verdict(drive, limits, now))


def explain_lines(reading: SmartReading, drive: Drive) -> list[str]:
    """The explanation as text lines."""
    ident = drive.identity
    version = f"smartctl {reading.version}" if reading.version else "smartctl"
    lines = [f"{reading.source}: {version} report, {ident.transport.value}"]
    lines.append(
        f"  model {ident.model or '?'}   serial {ident.serial or '?'}   "
        f"firmware {ident.firmware or '?'}"
    )
    rotation = f"{ident.rpm} rpm" if ident.rpm else ("SSD" if ident.rotational is False else "")
    facts = [units.size(ident.capacity_bytes), rotation]
    if drive.power_on_hours is not None:
        facts.append(f"{drive.power_on_hours} power-on hours")
    if drive.temperature is not None:
        facts.append(f"{drive.temperature.celsius:.0f} °C")
    if drive.power is not PowerState.UNKNOWN:
        facts.append(f"power {drive.power.value}")
    lines.append("  " + ", ".join(f for f in facts if f))
    lines.append(f"  health {drive.verdict.health.name}")
    lines += reason_lines(drive, "    ")
    if reading.exit_status:
        meanings = "; ".join(exit_meanings(reading.exit_status))
        lines.append(f"  smartctl exit status {reading.exit_status}: {meanings}")
    lines += [f"  note: {note}" for note in reading.notes]
    return lines


def _explain_json(reading: SmartReading, drive: Drive) -> dict[str, Any]:
    ident = drive.identity
    return {
        "source": reading.source,
        "smartctl_version": reading.version,
        "model": ident.model,
        "serial": ident.serial,
        "firmware": ident.firmware,
        "transport": ident.transport.value,
        "capacity_bytes": ident.capacity_bytes,
        "power": drive.power.value,
        "temperature_c": drive.temperature.celsius if drive.temperature else None,
        "power_on_hours": drive.power_on_hours,
        "smart_passed": drive.smart_passed,
        "health": drive.verdict.health.name,
        "reasons": [
            {"health": r.health.name, "text": r.text, "key": r.key, "value": r.value}
            for r in drive.verdict.reasons
        ],
        "exit_status": reading.exit_status,
        "exit_status_meaning": exit_meanings(reading.exit_status),
        "notes": list(reading.notes),
    }


def run_explain(args: argparse.Namespace, out: TextIO) -> int:
    """Parse the file and print identity, verdict and reasons."""
    source = "<stdin>" if args.file == "-" else args.file
    try:
        text = _read(args.file)
    except safeio.UnsafeFileError as exc:
        print(f"nastui: {exc}: give a saved smartctl report", file=sys.stderr)
        return exits.EX_DATAERR
    except OSError as exc:
        print(f"nastui: cannot read {source}: {exc.strerror or exc}", file=sys.stderr)
        return exits.EX_USAGE
    try:
        reading = parse_capture(text, source)
    except ParseError as exc:
        print(f"nastui: {exc}", file=sys.stderr)
        return exits.EX_DATAERR
    try:
        limits = load_for(Source.from_options(args), os.environ).thresholds
    except ConfigError as exc:
        print(f"nastui: {exc}", file=sys.stderr)
        return exits.EX_CONFIG
    except BundleError as exc:
        print(f"nastui: --root {exc}", file=sys.stderr)
        return exits.EX_DATAERR
    drive = explained(reading, limits, time.time())
    if args.json:
        write_json(_explain_json(reading, drive), out)
    else:
        text = "\n".join(explain_lines(reading, drive)) + "\n"
        out.write(text.replace("°", glyphs_of(args).degree))
    return int(drive.verdict.health)


def run_ack(args: argparse.Namespace, out: TextIO) -> int:
    """Acknowledge (or forget) a drive's findings."""
    session, snapshot = poll_once(args)
    drive, _ = find_drive(snapshot, args.drive)
    if drive is None or not drive.identity.serial:
        why = "no such drive" if drive is None else "it has no serial number to keep it by"
        print(f"nastui: cannot acknowledge {args.drive}: {why}", file=sys.stderr)
        return exits.EX_USAGE
    try:
        directory = session.writable_state_dir()  # the machine's, or the demo's own
        if args.clear:
            count = acks.clear(directory, drive.key, args.keys or None)
            out.write(f"{drive.label}: {count} acknowledgement(s) forgotten\n")
            return exits.OK
        chosen = [r for r in drive.verdict.reasons if not args.keys or r.key in args.keys]
        done = acks.acknowledge(directory, drive.key, chosen, time.time(), args.note)
    except StateError as exc:
        print(f"nastui: {exc}", file=sys.stderr)
        return exits.EX_NOPERM if "permission" in str(exc).lower() else exits.EX_UNAVAILABLE
    if not done:
        left = [r.key for r in drive.verdict.reasons if ackable(r)]
        print(
            f"nastui: {drive.label}: nothing to acknowledge (findings: {left or 'none'})",
            file=sys.stderr,
        )
        return exits.EX_USAGE
    for ack in done:
        out.write(
            f"{drive.label}: acknowledged {ack.key} at {ack.value}: warns again if it grows\n"
        )
    return exits.OK


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Dispatch to the action."""
    if args.smart_command == "explain":
        return run_explain(args, out)
    return run_ack(args, out)
