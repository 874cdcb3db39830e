"""The command line: `nastui [GLOBAL OPTIONS] [COMMAND ...]`.

Global options work before or after the command (`nastui --demo bays` and `nastui bays --demo`).
Exit codes are documented in `nastui.cli.exits` and the README.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, cast

from nastui import __version__
from nastui.cli.registry import COMMANDS, command
from nastui.core.cmdline import command_of
from nastui.exits import EX_USAGE, UNKNOWN

COLOR_CHOICES = ("none", "16", "256", "truecolor")


PLUGIN_COMMANDS = frozenset({"status"})  # run by monitoring systems: their exit codes apply


class _Formatter(argparse.HelpFormatter):
    """argparse's formatter, its width from `help_width`. argparse makes one for every option
    added (to check its metavar), and its own asks `shutil` for the width: shutil, and the
    compression modules shutil loads, were 2 ms of every start."""

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        width = help_width() - 2 if width is None else width  # less 2, as argparse does
        super().__init__(prog, indent_increment, max_help_position, width)


class Parser(argparse.ArgumentParser):
    """argparse, but usage errors exit 64 (EX_USAGE): 2 means CRITICAL to a monitoring system.
    For a monitoring-plugin command (`plugin`), a usage error is UNKNOWN (3) with a plugin
    status line on stdout, so the monitoring system shows what is wrong."""

    plugin = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        if self.plugin:
            line = f"NASTUI UNKNOWN - bad command line: {message}".replace("|", "/")
            print(line, file=sys.stdout, flush=True)
            self.exit(UNKNOWN, f"{self.prog}: error: {message}\n")
        self.exit(EX_USAGE, f"{self.prog}: error: {message}\n")


def help_width() -> int:
    """The columns `shutil.get_terminal_size` gives: COLUMNS, else standard output's
    terminal, else 80."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns > 0:
        return columns
    stdout = sys.__stdout__
    try:
        columns = os.get_terminal_size(stdout.fileno()).columns if stdout is not None else 0
    except (AttributeError, ValueError, OSError):  # not a terminal, or closed
        columns = 0
    return columns if columns > 0 else 80


def load_command(argv: Sequence[str] | None = None) -> None:
    """Import the module of the command the command line names, and so what it needs, as
    `parse_args` does while parsing (nothing for an unknown name or none): `nastui.entry`
    loads code apart from building the parser, whose objects are garbage once it has
    parsed."""
    name = command_of(list(sys.argv[1:] if argv is None else argv))
    if name is not None and any(entry.name == name for entry in COMMANDS):
        command(name)


def _global_options(*, suppress: bool) -> Parser:
    """The options every command takes; defaults suppressed on the subcommand copies so a value
    given before the command is not reset by the subcommand's parser."""
    default = argparse.SUPPRESS if suppress else None
    flag_default = argparse.SUPPRESS if suppress else False
    opts = Parser(add_help=False)
    opts.add_argument(
        "--demo", action="store_true", default=flag_default, help="run on the simulated NAS"
    )
    opts.add_argument(
        "--scenario", metavar="NAME", default=default, help="simulator scenario (implies --demo)"
    )
    opts.add_argument("--seed", type=int, default=default, help="simulator seed (default 0)")
    opts.add_argument(
        "--root",
        metavar="DIR",
        type=Path,
        default=default,
        help="read /sys, /proc and /dev under DIR (env NASTUI_ROOT)",
    )
    opts.add_argument(
        "--config", metavar="FILE", type=Path, default=default, help="configuration file"
    )
    opts.add_argument(
        "--ascii", action="store_true", default=flag_default, help="plain ASCII output"
    )
    opts.add_argument(
        "--colors", choices=COLOR_CHOICES, default=default, help="colour depth (default: detect)"
    )
    opts.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        default=flag_default,
        help="log what nastui does to stderr (journald priorities under systemd); "
        "for `status`, also what each collector did",
    )
    opts.add_argument(
        "--debug",
        action="store_true",
        default=flag_default,
        help="log every command run and more; show a traceback on an internal error",
    )
    return opts


if TYPE_CHECKING:
    _SubParsers = argparse._SubParsersAction[Parser]
else:  # not subscriptable at run time
    _SubParsers = argparse._SubParsersAction


class _Commands(_SubParsers):
    """The subcommands by name and help line. Each one's parser, with the global options and
    the command's own, is made when the command line reaches it (or `parser` asks for it):
    making one imports the command's module, and argparse looks up its translations on disk
    for every parser it makes (2.5 ms for the 18 commands a run does not reach)."""

    common: Parser  # the global options, for commands with nested actions

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.helps: dict[str, str] = {}
        # What argparse checks a command's name against and lists in its error: only the
        # names are read, so the parsers (typeshed's type for it) need not exist yet.
        self.choices = self.helps  # type: ignore[assignment]

    def add_command(self, name: str, help: str) -> None:
        """A subcommand: its name and its line in `nastui --help`; no parser yet."""
        self._choices_actions.append(argparse.Action([], dest=name, help=help, metavar=name))
        self.helps[name] = help

    def parser(self, name: str) -> Parser:
        """The parser of the subcommand `name`, made now if it is not yet."""
        made = self._name_parser_map.get(name)
        if made is None:
            made = Parser(prog=f"{self._prog_prefix} {name}", parents=[self.common])
            made.plugin = name in PLUGIN_COMMANDS
            command(name).add_arguments(made, self.common)
            self._name_parser_map[name] = made
        return made

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        assert values is not None and not isinstance(values, str)
        self.parser(values[0])  # a known name: argparse checked it against `choices`
        super().__call__(parser, namespace, values, option_string)


def build_parser() -> Parser:
    """The parser with every subcommand from `nastui.cli.registry`, whose own parsers are made
    when the command line reaches them (see `_Commands`)."""
    parser = Parser(
        prog="nastui",
        description="Terminal monitor and control panel for NAS servers. "
        "Without a command, starts the full-screen interface.",
        parents=[_global_options(suppress=False)],
    )
    parser.add_argument("--version", action="version", version=f"nastui {__version__}")
    sub = cast(
        _Commands,
        parser.add_subparsers(
            dest="command", metavar="COMMAND", parser_class=Parser, action=_Commands
        ),
    )
    sub.common = _global_options(suppress=True)
    for entry in COMMANDS:
        sub.add_command(entry.name, entry.help)
    return parser


def normalize(args: argparse.Namespace, env: Mapping[str, str]) -> None:
    """Fill global options that were not given: env fallbacks, --scenario implies --demo."""
    for name, value in (("demo", False), ("ascii", False), ("verbose", False), ("debug", False)):
        if not hasattr(args, name):
            setattr(args, name, value)
    for name in ("scenario", "seed", "root", "config", "colors"):
        if not hasattr(args, name):
            setattr(args, name, None)
    if args.root is None and env.get("NASTUI_ROOT"):
        args.root = Path(env["NASTUI_ROOT"])
    if args.root is not None:  # one spelling everywhere: "//" and "/./" are "/"
        args.root = Path(os.path.realpath(args.root))
    if args.scenario is not None:
        args.demo = True
    if args.seed is None:
        args.seed = 0


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Parse and normalize the command line."""
    words = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    parser.plugin = command_of(words) in PLUGIN_COMMANDS
    args = parser.parse_args(words)
    normalize(args, os.environ)
    return args
