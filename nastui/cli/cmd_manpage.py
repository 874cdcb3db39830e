"""`nastui manpage`: print the nastui(1) man page (see cli/manpage.py)."""

from __future__ import annotations

import argparse
import time
from typing import TextIO

from nastui import exits


def add_arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    """No options of its own."""


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Print the page."""
    from nastui.cli.clitree import full_parser, tree
    from nastui.cli.manpage import manpage

    out.write(manpage(tree(full_parser()), time.strftime("%Y-%m-%d")))
    return exits.OK
