"""The command a `nastui` command line names, read without the parser (pure): the entry point
loads that command's code first (`nastui.cli.args.load_command`), and `nastui fans` tells a
running fand by its arguments (`nastui.collectors.procs`)."""

from __future__ import annotations

from collections.abc import Sequence

VALUED_OPTIONS = frozenset({"--scenario", "--seed", "--root", "--config", "--colors"})
"""The global options that take a value: the word after each is not the command."""


def command_of(argv: Sequence[str]) -> str | None:
    """The command named on a command line (the first word that is not an option or the
    value of a global option), or None."""
    skip = False
    for word in argv:
        if skip:
            skip = False
        elif word in VALUED_OPTIONS:
            skip = True
        elif word == "--":
            return None
        elif not word.startswith("-"):
            return word
    return None
