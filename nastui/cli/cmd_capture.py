"""`nastui capture [-o FILE] [--mask-serials] [--json]`: a support bundle of this box, one
.tar.gz safe to mail, that `nastui --root FILE` replays (see `nastui.capture.bundle`).

    $ sudo nastui capture --mask-serials
    nastui-capture-nas-20260314-020000.tar.gz: 212 KiB in 3.1 s, 184 files, 61 program runs,
    24 serials masked; replay: nastui --root nastui-capture-nas-20260314-020000.tar.gz status
"""

from __future__ import annotations

import argparse
import io
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

from nastui import exits
from nastui.capture.bundle import Captured, CaptureError, View, capture
from nastui.cli.cmd_bays import bays_data
from nastui.cli.cmd_drives import drives_data
from nastui.cli.cmd_pools import pools_data
from nastui.cli.command import write_json
from nastui.cli.statusview import render_status
from nastui.collectors.replay import BundleError
from nastui.config import ConfigError
from nastui.core.glyphs import glyphs_for
from nastui.model import HostSnapshot
from nastui.session import Session, Source, open_session
from nastui.sim import UnknownScenario


def add_arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    """-o/--output, --mask-serials, --json."""
    parser.add_argument(
        "-o",
        "--output",
        type=Path,
        metavar="FILE",
        help="the bundle to create (never overwritten); default "
        "nastui-capture-HOST-DATE.tar.gz here",
    )
    parser.add_argument(
        "--mask-serials",
        action="store_true",
        help="replace every drive serial by a token, the same one everywhere in the bundle",
    )
    parser.add_argument("--json", action="store_true", help="what was written, as JSON")


def _json_view(data: Mapping[str, Any]) -> str:
    """`data` exactly as the command's --json prints it."""
    out = io.StringIO()
    write_json(data, out)
    return out.getvalue()


def _status_view(session: Session, snapshot: HostSnapshot) -> str:
    """`status -v` of the poll (the box only: no UPS asked, no history read)."""
    limits = session.config.thresholds
    return render_status(snapshot, glyphs_for(ascii_only=True), limits, verbose=True)


VIEWS: dict[str, View] = {
    "drives.json": lambda session, snap: _json_view(drives_data(session, snap)),
    "bays.json": lambda session, snap: _json_view(bays_data(snap, session.config.thresholds)),
    "pools.json": lambda session, snap: _json_view(pools_data(snap)),
    "status.txt": _status_view,
}


def _summary(done: Captured) -> str:
    size = (
        f"{done.size / 1024:.0f} KiB"
        if done.size < 1024 * 1024
        else f"{done.size / 1048576:.1f} MiB"
    )
    masked = f", {done.masked} serials masked" if done.masked else ""
    return (
        f"{done.path}: {size} in {done.seconds:.1f} s, {done.files} files, {done.runs} program "
        f"runs{masked}; replay: nastui --root {done.path} status\n"
    )


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Capture once; exit 0 written, 64 the simulator, 73 the bundle cannot be written."""
    if os.geteuid() != 0:
        print(
            "nastui capture: not root: smartctl cannot open the drives, so the bundle has no "
            "SMART (run it with sudo)",
            file=sys.stderr,
        )
    try:
        done = capture(
            lambda: open_session(Source.from_options(args), os.environ),
            args.output,
            VIEWS,
            masking=args.mask_serials,
        )
    except CaptureError as exc:
        print(f"nastui capture: {exc}", file=sys.stderr)
        return exc.code
    except (ConfigError, UnknownScenario, BundleError) as exc:
        print(f"nastui: {exc}", file=sys.stderr)
        return exits.EX_DATAERR if isinstance(exc, BundleError) else exits.EX_CONFIG
    for note in done.notes:
        print(f"nastui capture: {note}", file=sys.stderr)
    if args.json:
        write_json(
            {
                "path": str(done.path),
                "size_bytes": done.size,
                "seconds": round(done.seconds, 3),
                "files": done.files,
                "runs": done.runs,
                "masked_serials": done.masked,
                "notes": list(done.notes),
            },
            out,
        )
    else:
        out.write(_summary(done))
    return exits.OK
