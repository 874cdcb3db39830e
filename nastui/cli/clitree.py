"""The whole command line as a tree, read from argparse, for the completions and the man page.

`full_parser()` is `build_parser()` with every command's own options added (a normal run adds
only the options of the command it runs); `tree(parser)` turns it into `Node`s. Both the shell
completions and the man page are generated from that tree, so they can never disagree with what
`nastui` accepts.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field

from nastui.cli.args import Parser, _Commands, build_parser
from nastui.cli.registry import COMMANDS


@dataclass(frozen=True, slots=True)
class Option:
    """An option: its flags, help, and the value it takes (None: a flag)."""

    flags: tuple[str, ...]
    help: str
    metavar: str | None = None
    choices: tuple[str, ...] = ()

    @property
    def takes_value(self) -> bool:
        """Whether a value follows it."""
        return self.metavar is not None


@dataclass(frozen=True, slots=True)
class Positional:
    """A positional argument: its name, help, choices and whether it may be left out."""

    name: str
    help: str
    choices: tuple[str, ...] = ()
    optional: bool = False


@dataclass(frozen=True, slots=True)
class Node:
    """A command (the program itself at the root) with its options and subcommands."""

    path: tuple[str, ...]
    help: str
    options: tuple[Option, ...] = ()
    positionals: tuple[Positional, ...] = ()
    children: tuple[Node, ...] = field(default_factory=tuple)

    @property
    def name(self) -> str:
        """ "nastui scrub"."""
        return " ".join(self.path)

    def walk(self) -> list[Node]:
        """This node and every one under it, depth first."""
        found = [self]
        for child in self.children:
            found += child.walk()
        return found


def full_parser() -> Parser:
    """The parser with every command's own options (imports every command module)."""
    parser = build_parser()
    for action in parser._actions:
        if isinstance(action, _Commands):
            for entry in COMMANDS:
                action.parser(entry.name)
    return parser


def _help(action: argparse.Action) -> str:
    text = action.help if isinstance(action.help, str) and action.help != argparse.SUPPRESS else ""
    return " ".join(text.split())


def _choices(action: argparse.Action) -> tuple[str, ...]:
    return tuple(str(c) for c in action.choices) if action.choices else ()


def _value_name(action: argparse.Action) -> str | None:
    if action.nargs == 0:
        return None
    if isinstance(action.metavar, str):
        return action.metavar
    return action.dest.upper()


def tree(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ("nastui",), help: str = ""
) -> Node:
    """The tree under `parser` (see `full_parser`)."""
    options: list[Option] = []
    positionals: list[Positional] = []
    children: list[Node] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: _help(a) for a in action._choices_actions}
            for name, sub in action._name_parser_map.items():  # all made: `full_parser`
                children.append(tree(sub, (*path, name), helps.get(name, "")))
        elif action.option_strings:
            if _help(action) or action.help != argparse.SUPPRESS:
                options.append(
                    Option(
                        tuple(action.option_strings),
                        _help(action),
                        _value_name(action),
                        _choices(action),
                    )
                )
        else:
            optional = action.nargs in ("?", "*")
            name = action.metavar if isinstance(action.metavar, str) else action.dest
            positionals.append(Positional(name, _help(action), _choices(action), optional))
    return Node(
        path, help or parser.description or "", tuple(options), tuple(positionals), tuple(children)
    )
