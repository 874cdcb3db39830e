"""`build_parser()` makes a subcommand's parser only when the command line reaches it: a run
makes one. Whatever the words, it parses them as the parser with every subcommand made does
(abbreviated option names, option values that look like commands, unknown commands, help)."""

from __future__ import annotations

import argparse
import contextlib
import io
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nastui.cli.args import _Commands, build_parser, help_width, parse_args
from nastui.cli.clitree import full_parser
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
        ["--help"],
        ["--he"],
        ["-vh"],
        ["--version"],
        ["--no-such-option"],
    ]
)
COMMAND = st.one_of(st.sampled_from(NAMES), st.sampled_from(["statsu", "", "-", "--"]))


def _parsed(parser: argparse.ArgumentParser, words: Sequence[str]) -> tuple[str, object, str]:
    """The namespace, or the exit code, and what was printed, of parsing `words`."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            return "ok", vars(parser.parse_args(list(words))), out.getvalue()
        except SystemExit as exc:
            return f"exit {exc.code}", err.getvalue(), out.getvalue()


@settings(max_examples=200, deadline=None)
@given(
    before=st.lists(GLOBAL, max_size=3),
    name=st.one_of(st.none(), COMMAND),
    after=st.lists(GLOBAL, max_size=3),
)
def test_the_lazy_parser_parses_as_the_full_one(
    before: list[list[str]], name: str | None, after: list[list[str]]
) -> None:
    named = [] if name is None else [name]
    words = [*(w for opt in before for w in opt), *named, *(w for opt in after for w in opt)]
    assert _parsed(build_parser(), words) == _parsed(full_parser(), words)


def test_the_help_lists_every_command_in_order() -> None:
    text = build_parser().format_help()
    assert text == full_parser().format_help()
    positions = [text.index(f"\n    {name} ") for name in NAMES if len(name) < 20]
    assert positions == sorted(positions)


def _made(parser: argparse.ArgumentParser) -> set[str]:
    sub = next(a for a in parser._actions if isinstance(a, _Commands))
    return set(sub._name_parser_map)


def test_a_run_makes_only_the_parser_of_its_command() -> None:
    parser = build_parser()
    parser.parse_args(["--demo", "--config", "bays", "status", "-v"])
    assert _made(parser) == {"status"}
    assert _made(build_parser()) == set()
    assert parse_args(["--demo", "status"]).command == "status"


@settings(max_examples=60, deadline=None)
@given(columns=st.one_of(st.none(), st.integers(-5, 400).map(str), st.sampled_from(["", "x"])))
def test_help_is_as_wide_as_shutil_would_make_it(columns: str | None) -> None:
    """The parser's formatter takes its width from `help_width`, not from `shutil` (which
    loads the compression modules): the same columns as `shutil.get_terminal_size`."""
    import shutil

    with pytest.MonkeyPatch.context() as patch:
        if columns is None:
            patch.delenv("COLUMNS", raising=False)
        else:
            patch.setenv("COLUMNS", columns)
        assert help_width() == shutil.get_terminal_size().columns


def test_help_wraps_at_the_columns_given() -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("COLUMNS", "50")
        text = build_parser().format_help()
    assert max(len(line) for line in text.splitlines()) <= 48
    assert "run on the simulated NAS" in " ".join(text.split())
