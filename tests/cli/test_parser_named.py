"""`build_parser(words)` gives the global options only to the subcommands the command line
names; whatever the words, it parses them as the full parser does (the command run is always
among them, abbreviated option names and option values that look like commands included)."""

from __future__ import annotations

import argparse
import contextlib
import io
from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from nastui.cli.args import build_parser
from nastui.cli.registry import COMMANDS

NAMES = [entry.name for entry in COMMANDS]
GLOBAL = st.sampled_from(
    [
        ["--demo"],
        ["--ascii"],
        ["-v"],
        ["--seed", "3"],
        ["--scenario", "healthy-24-bay"],
        ["--colors", "16"],
        ["--conf", "status"],  # an abbreviated option whose value is a command's name
        ["--config", "bays"],
        ["--root", "/"],
    ]
)


def _parsed(parser: argparse.ArgumentParser, words: Sequence[str]) -> tuple[str, object]:
    """The namespace, or the exit code and what was printed, of parsing `words`."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            return "ok", vars(parser.parse_args(list(words)))
        except SystemExit as exc:
            return f"exit {exc.code}", err.getvalue()


@settings(max_examples=150, deadline=None)
@given(
    before=st.lists(GLOBAL, max_size=3),
    name=st.sampled_from(NAMES),
    after=st.lists(GLOBAL, max_size=3),
)
def test_a_named_parser_parses_as_the_full_one(
    before: list[list[str]], name: str, after: list[list[str]]
) -> None:
    words = [*(w for opt in before for w in opt), name, *(w for opt in after for w in opt)]
    assert _parsed(build_parser(words), words) == _parsed(build_parser(), words)


def test_only_the_named_commands_get_the_global_options() -> None:
    parser = build_parser(["--demo", "status"])
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    with_globals = {
        name
        for name, p in sub.choices.items()
        if any("--demo" in a.option_strings for a in p._actions)
    }
    assert with_globals == {"status"}
