"""Every command line README.md writes parses with the real parser, so a documented form that
argparse refuses fails here, not in an operator's terminal (`nastui swap --json`, documented as
`swap [status] [--json]`, was refused).

The forms of the command tables (the first cell of each row that starts with `nastui`: the
Commands table and the Benchmarks one) must parse whole: every optional part present or absent,
every alternative (`start|pause|stop`, `[--json|--csv]`), with a placeholder value for each
upper-case word (FILE, TARGET, ...). A form that ends in `...` names its command only (the rest
is in its own section): its words must reach an existing (sub)command. Every other `nastui ...`
(and `swap ...`, `status -v`, ...) written in backquotes, and each `$ nastui` line of an example,
may leave out a required argument (the prose names a command, `nastui swap start`) but may not
write an option, an action or a choice the parser does not know.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import re
from collections.abc import Iterator
from typing import NamedTuple

import pytest

from nastui.cli.args import parse_args
from nastui.cli.registry import COMMANDS
from tests.conftest import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")
NAMES = frozenset(entry.name for entry in COMMANDS)

# The value written for each upper-case word of a form; (option before it, word) first.
VALUES = {
    ("--method", "M"): "ledctl",
    ("--metric", "M"): "iops",
    "FILE": "/tmp/nastui-readme-file",
    "DIR": "/tmp",
    "F": "/tmp/latest.json",
    "TARGET": "10",
    "BAY": "10",
    "DRIVE": "10",
    "DEV": "sdc",
    "SERIAL": "PK1331PLPX28B6",
    "KEY": "drive:PK1331PLPX28B6:temp",
    "POOL": "tank",
    "PROFILE": "cdm",
    "RUN": "last",
    "NAME": "mixed",
    "T": "a note",
    "S": "5",
    "N": "3",
    "SECONDS": "60",
    "OID": ".1.3.6.1.4.1.8072.9999.9999.6278",
    "PORT": "19633",
    "ADDR:PORT": "127.0.0.1:19633",
}
PLACEHOLDER = re.compile(r"^[A-Z][A-Z:_]*(?:\.\.\.)?$")
# What the prose may leave out: a required argument, an option's value (`swap replace --confirm`).
LEFT_OUT = ("the following arguments are required", "expected one argument")


class Form(NamedTuple):
    """A command line as README writes it; `whole`: from a command table, so it must parse
    without leaving out anything the parser requires."""

    text: str
    whole: bool


def _cells(row: str) -> list[str]:
    return [c.strip() for c in re.split(r"(?<!\\)\|", row)]


def table_forms() -> Iterator[Form]:
    """The forms in the first cell of each command table row (`| \\`nastui ...\\` | ...`); a
    form after the first that does not start with `nastui` continues its command
    (`swap [status] [--json]`, `ack KEY [--for 7d]` after `nastui alert ...`)."""
    for line in README.splitlines():
        first = _cells(line)[1] if re.match(r"\| `nastui[ `]", line) else ""
        if not first or re.sub(r"`[^`]+`", "", first).strip(" ,"):  # a figure's row, not forms
            continue
        spans = [s.replace("\\|", "|") for s in re.findall(r"`([^`]+)`", first)]
        command = spans[0].split()[1] if len(spans[0].split()) > 1 else None
        for span in spans:
            words = span.split()
            if words[0] != "nastui":
                words = ["nastui", *([] if words[0] == command else [str(command)]), *words]
            yield Form(" ".join(words), whole=True)


def prose_forms() -> Iterator[Form]:
    """Every other command line: backquoted `nastui ...` (or a command's name and its words),
    and `$ nastui ...` in the examples; a shell redirection ends it."""
    fenced = re.compile(r"^```.*?^```", flags=re.MULTILINE | re.DOTALL)
    spans = re.findall(r"`([^`]+)`", fenced.sub("", README))  # a span may wrap a line
    spans += re.findall(r"^\$ (nastui\b.*)$", README, flags=re.MULTILINE)
    for span in spans:
        words = span.replace("\\|", "|").split(" > ")[0].split()
        if not words:
            continue
        if words[0] == "nastui":
            yield Form(" ".join(words), whole=False)
        elif words[0] in NAMES:
            yield Form(" ".join(["nastui", *words]), whole=False)


def _tokens(form: str) -> list[str]:
    """Words, with each `[` and `]` a token of its own; `[ADDR:]PORT` is two alternatives."""
    form = re.sub(r"\[(\w+):\](\w+)", r"\1:\2|\2", form.replace("\\|", "|"))
    out: list[str] = []
    for word in form.split():
        lead = len(word) - len(word.lstrip("["))
        trail = len(word) - len(word.rstrip("]"))
        core = word[lead : len(word) - trail]
        out += ["["] * lead + ([core] if core else []) + ["]"] * trail
    return out


Seq = list["str | Seq"]


def _tree(tokens: list[str], at: int = 0) -> tuple[Seq, int]:
    """The tokens from `at` as a sequence of words and optional groups (nested lists)."""
    seq: Seq = []
    while at < len(tokens):
        token = tokens[at]
        if token == "[":
            group, at = _tree(tokens, at + 1)
            seq.append(group)
        elif token == "]":
            return seq, at + 1
        else:
            seq.append(token)
            at += 1
    return seq, at


def _expand(seq: Seq) -> list[list[str]]:
    """Every command line a sequence stands for: each group present or not, each alternative
    of a word (`a|b`); `[options]` (the section lists them) stands for nothing."""
    lines: list[list[str]] = [[]]
    for item in seq:
        if isinstance(item, list):
            choices = [[]] if item == ["options"] else [[], *_expand(item)]
        else:
            choices = [[alt] for alt in item.split("|")]
        lines = [line + choice for line, choice in itertools.product(lines, choices)]
    return lines


def _valued(words: list[str]) -> list[str]:
    out = []
    for before, word in zip(["", *words], words, strict=False):
        if PLACEHOLDER.match(word) and word != "...":
            name = word.removesuffix("...")
            value = VALUES.get((before, name), VALUES.get(name))
            assert value is not None, f"README writes {word!r}: give it a value in VALUES"
            out.append(value)
        else:
            out.append(word)
    return out


def command_lines(form: str) -> list[list[str]]:
    """The argument lists (after `nastui`) a documented form stands for."""
    seq, _ = _tree(_tokens(form))
    assert seq and seq[0] == "nastui", form
    return [_valued(line[1:]) for line in _expand(seq)]


def _parsed(words: list[str]) -> str | None:
    """None when the real parser takes `words`, else what it said."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            parse_args(words)
        except SystemExit as exc:
            if exc.code not in (0, None):
                return (err.getvalue().strip().splitlines() or [f"exit {exc.code}"])[-1]
    return None


def _refusals(form: Form) -> list[str]:
    refused = []
    for words in command_lines(form.text):
        named_only = bool(words) and words[-1] == "..."  # its section has the rest
        said = _parsed([*words[:-1], "--help"] if named_only else words)
        if said is not None and (form.whole or not any(gap in said for gap in LEFT_OUT)):
            refused.append(f"nastui {' '.join(words)}: {said}")
    return refused


TABLE = sorted(set(table_forms()))
PROSE = sorted(set(prose_forms()) - {Form(f.text, whole=False) for f in TABLE})


def test_the_tables_and_the_prose_are_found() -> None:
    texts = {f.text for f in TABLE}
    assert "nastui swap [status] [--json]" in texts
    assert "nastui alert ack KEY [--for 7d] [--note T]" in texts
    assert any(f.text.startswith("nastui bench show RUN") for f in TABLE)  # the Benchmarks table
    assert {f.text.split()[1] for f in TABLE if len(f.text.split()) > 1} >= NAMES
    prose = {f.text for f in PROSE}
    assert {"nastui status --scenario failing-drive", "nastui scrub pause tank"} <= prose


@pytest.mark.parametrize("form", TABLE, ids=[f.text for f in TABLE])
def test_every_form_of_the_command_tables_parses(form: Form) -> None:
    assert not _refusals(form)


@pytest.mark.parametrize("form", PROSE, ids=[f.text for f in PROSE])
def test_every_command_line_in_the_prose_uses_only_what_the_parser_knows(form: Form) -> None:
    assert not _refusals(form)


@pytest.mark.parametrize(
    ("form", "lines"),
    [
        (
            "nastui swap [status] [--json]",
            [["swap"], ["swap", "--json"], ["swap", "status"], ["swap", "status", "--json"]],
        ),
        (
            "nastui scrub start\\|stop POOL [--wait [--interval S]]",
            [
                ["scrub", "start", "tank"],
                ["scrub", "start", "tank", "--wait"],
                ["scrub", "start", "tank", "--wait", "--interval", "5"],
                ["scrub", "stop", "tank"],
                ["scrub", "stop", "tank", "--wait"],
                ["scrub", "stop", "tank", "--wait", "--interval", "5"],
            ],
        ),
        (
            "nastui daemon [--metrics-listen [ADDR:]PORT]",
            [
                ["daemon"],
                ["daemon", "--metrics-listen", "127.0.0.1:19633"],
                ["daemon", "--metrics-listen", "19633"],
            ],
        ),
        ("nastui bench run PROFILE TARGET [options]", [["bench", "run", "cdm", "10"]]),
        (
            "nastui locate BAY [--method M]",
            [["locate", "10"], ["locate", "10", "--method", "ledctl"]],
        ),
        ("nastui bench list|show ...", [["bench", "list", "..."], ["bench", "show", "..."]]),
    ],
)
def test_a_form_stands_for_these_command_lines(form: str, lines: list[list[str]]) -> None:
    assert command_lines(form) == lines


def test_a_refused_form_is_caught() -> None:
    assert _refusals(Form("nastui swap abort [--json]", whole=True))
    assert _refusals(Form("nastui bench run|shw ...", whole=True))
    assert not _refusals(Form("nastui bench run|show ...", whole=True))
    assert _refusals(Form("nastui locate BAY --blink", whole=False))
    assert not _refusals(Form("nastui locate", whole=False))
    assert _refusals(Form("nastui locate", whole=True))


def test_the_metrics_endpoint_is_said_to_need_no_extra() -> None:
    """README: the /metrics server is nastui's own, standard library only; `daemon --help`
    sent operators to install the prometheus extra for it."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        parse_args(["daemon", "--help"])
    assert "--metrics-listen" in out.getvalue() and "extra" not in out.getvalue()


def test_every_exit_code_nastui_uses_is_explained() -> None:
    """README's "Exit codes:" paragraph names each code of `nastui.exits`, and no other."""
    from nastui import exits

    codes = {v for k, v in vars(exits).items() if k.isupper() and isinstance(v, int)}
    paragraph = README.split("\nExit codes: ")[1].split("\n\n")[0]
    words = re.findall(r"(?<![\w.:-])(\d{1,3}) (?!MiB|s\b|zeros)(?=[A-Za-z(])", paragraph)
    assert codes == {int(n) for n in words}
