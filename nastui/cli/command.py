"""What every `nastui` subcommand module provides, and the helpers they share.

A command is a module with `add_arguments(parser, common)` and `run(args, out)`;
`nastui.cli.registry` lists them with their names and help. Commands that read the box call
`open_for(args)`, so the global options mean the same everywhere.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol, TextIO

from nastui import exits
from nastui.core.glyphs import Glyphs, choose_ascii, glyphs_for
from nastui.model import HostSnapshot
from nastui.session import Session, Source, open_or_exit


class Command(Protocol):
    """A subcommand module (its name and one-line help are in `nastui.cli.registry`)."""

    def add_arguments(
        self, parser: argparse.ArgumentParser, common: argparse.ArgumentParser
    ) -> None:
        """Add the command's own options (`common`: the global options, for nested actions)."""
        ...

    def run(self, args: argparse.Namespace, out: TextIO) -> int:
        """Do it; return the exit code (see `nastui.exits`), or raise
        `nastui.exits.CommandExit` to end early."""
        ...


def open_for(args: argparse.Namespace) -> Session:
    """The session the global options describe (`nastui.exits.CommandExit` when it cannot be
    opened: the command ends there, with one line)."""
    return open_or_exit(Source.from_options(args), os.environ)


def poll_once(args: argparse.Namespace) -> tuple[Session, HostSnapshot]:
    """The session the global options describe and one assessed snapshot of it (see
    `open_for`)."""
    session = open_for(args)
    return session, session.poll_now()


def swap_view(session: Session, snapshot: HostSnapshot) -> tuple[HostSnapshot, list[str], bool]:
    """`snapshot` with its alerts as the swap in progress explains them (the daemon's keys),
    the swap's lines and whether it is CRITICAL (`nastui.swap.flow.status.swap_view`), for
    `status` and `alert list`; the swap's code loaded only when there may be a swap in progress
    (`Session.may_keep_swap`)."""
    if not session.may_keep_swap():
        return snapshot, [], False
    from nastui.swap.flow.status import swap_view as explained

    return explained(session, snapshot)


def use_color(args: argparse.Namespace, stream: TextIO) -> bool:
    """Colour the output? `--colors`, `NO_COLOR`, and whether `stream` is a terminal decide."""
    if args.colors == "none" or os.environ.get("NO_COLOR"):
        return False
    if args.colors is not None:
        return True
    return stream.isatty() and os.environ.get("TERM", "dumb") != "dumb"


def glyphs_of(args: argparse.Namespace, session: Session | None = None) -> Glyphs:
    """ASCII or Unicode, from `--ascii`, the configuration and the terminal."""
    configured = session.config.ui.ascii if session is not None else None
    return glyphs_for(choose_ascii(os.environ, forced=True if args.ascii else configured))


def json_option(parser: argparse.ArgumentParser, *, action: bool = False) -> None:
    """`--json`. A command with actions takes it itself, for the action it runs when none is
    named (`nastui swap --json`), and on each action that prints data (`action`): that copy
    has no default, so `nastui swap --json status` keeps the value given before the action."""
    default = argparse.SUPPRESS if action else False
    parser.add_argument("--json", action="store_true", default=default, help="JSON output")


def action_of(args: argparse.Namespace, dest: str, default: str, data: frozenset[str]) -> str:
    """The action the command line names in `dest`, else `default`. `--json` (`json_option`)
    with an action that prints no data (not in `data`) is a usage error, not ignored."""
    action: str = getattr(args, dest) or default
    if args.json and action not in data:
        listed = ", ".join(sorted(data))
        raise exits.CommandExit(
            exits.EX_USAGE,
            f"nastui: `nastui {args.command} {action}` prints no data: --json goes with {listed}",
        )
    return action


JSON_SCHEMA = 1  # docs/json.md; raised when a field changes meaning or goes away


def write_json(data: Mapping[str, Any], out: TextIO) -> None:
    """One `--json` document: an object that starts with `"schema": JSON_SCHEMA`, then `data`
    (its lists under named keys, never bare), pretty-printed, and a newline."""
    json.dump({"schema": JSON_SCHEMA, **data}, out, indent=2)
    out.write("\n")


def textfile_dir_problem(target: Path) -> str | None:
    """Why a Prometheus textfile cannot go to `target`: its directory does not exist (a typo
    would otherwise make a directory node_exporter never reads); None when it does."""
    if target.parent.exists():
        return None
    return (
        f"{target.parent} does not exist: create it (node_exporter's "
        "--collector.textfile.directory), or fix the path"
    )
