"""`nastui config check [FILE]` and `nastui config init [FILE]`."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TextIO

from nastui import exits
from nastui.cli.configcheck import config_check
from nastui.control.statefile import StateError
from nastui.session import Session, Source, open_or_exit


def add_arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    """The `check` and `init` actions and their optional file."""
    actions = parser.add_subparsers(dest="config_command", metavar="ACTION", required=True)
    check = actions.add_parser(
        "check",
        parents=[common],
        help="validate a configuration file",
    )
    check.add_argument("file", nargs="?", type=Path, help="file to check (default: the one in use)")
    init = actions.add_parser(
        "init",
        parents=[common],
        help="write the annotated example configuration, this box's drives, pools and fans "
        "filled in as comments; never overwrites",
    )
    init.add_argument(
        "file",
        nargs="?",
        help="where to write (default: $NASTUI_CONFIG, /etc/nastui/config.toml as root, else "
        "~/.config/nastui/config.toml); - for stdout",
    )


def _init(args: argparse.Namespace, out: TextIO) -> int:
    from nastui.cli.configinit import render, write_new

    # What the box has, read with the built-in defaults: the file may not exist yet.
    env = {k: v for k, v in os.environ.items() if k != "NASTUI_CONFIG"}
    source = Source.from_options(args)
    source = Source(source.demo, source.scenario, source.seed, source.root, None, history=False)
    session = open_or_exit(source, env)
    text = render(session, source.demo, source.root)
    if text is None:
        print(
            "nastui: this installation has no config.example.toml documenting every key: "
            "reinstall nastui",
            file=sys.stderr,
        )
        return exits.EX_UNAVAILABLE
    if args.file == "-":
        out.write(text)
        return exits.OK
    given = args.file is not None
    target = Path(args.file) if given else _default_target(session, demo=source.demo)
    if target is None:
        return exits.EX_CANTCREAT
    code = write_new(target, text, make_parent=not given)
    if code == exits.OK:
        out.write(f"wrote {target}: edit it, then `nastui config check {target}`\n")
    return code


def _default_target(session: Session, *, demo: bool) -> Path | None:
    """Where `config init` writes without a FILE: the machine's default location, or, for the
    demo, its own scratch directory (never /etc/nastui: the demo's drives are not this box's)."""
    from nastui.cli.configinit import default_path

    if not demo:
        return default_path(os.environ, os.geteuid())
    try:
        return session.writable_state_dir() / "config.toml"
    except StateError as exc:
        print(f"nastui: {exc}, or name a FILE", file=sys.stderr)
        return None


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Check the file named (or the one nastui would use), or write a new one."""
    if args.config_command == "init":
        return _init(args, out)
    return config_check(args.file or args.config, os.environ, out, Source.from_options(args))
