"""`nastui completion bash|zsh|fish`: print a shell completion script (see cli/completion.py)."""

from __future__ import annotations

import argparse
from typing import TextIO

from nastui import exits
from nastui.cli.completion import SHELLS


def add_arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    """SHELL."""
    parser.add_argument("shell", choices=SHELLS, help="the shell to complete in")


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Print the script."""
    from nastui.cli.clitree import full_parser, tree
    from nastui.cli.completion import script

    out.write(script(args.shell, tree(full_parser())))
    return exits.OK
