"""Shell completions run in real bash, zsh and fish; the man page through groff and man."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from nastui.cli.clitree import full_parser, tree
from nastui.cli.completion import bash
from nastui.cli.manpage import escape
from tests.conftest import require_tool

pytestmark = pytest.mark.integration


def generated(tmp_path: Path, *argv: str) -> Path:
    done = subprocess.run(
        [sys.executable, "-m", "nastui", *argv],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    path = tmp_path / "-".join(argv)
    path.write_text(done.stdout, encoding="utf-8")
    return path


def shell(argv: list[str]) -> list[str]:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return sorted(done.stdout.split())


BASH_CASES = [
    (["nastui", "sc"], ["scrub"]),
    (["nastui", "scrub", "st"], ["start", "stop"]),
    (["nastui", "scrub", "start", "--w"], ["--wait"]),
    (["nastui", "--colors", "t"], ["truecolor"]),
    (["nastui", "config", "i"], ["init"]),
    (["nastui", "completion", "f"], ["fish"]),
    (["nastui", "bays", "--view", "te"], ["temp"]),
]


@pytest.mark.parametrize(("words", "expected"), BASH_CASES)
def test_bash(tmp_path: Path, words: list[str], expected: list[str]) -> None:
    bash_path = require_tool("bash", "bash")
    script = generated(tmp_path, "completion", "bash")
    line = " ".join(words)
    code = (
        f"source {script}; COMP_WORDS=({line}); COMP_CWORD={len(words) - 1}; "
        'COMP_LINE="nastui"; _nastui; printf "%s\\n" "${COMPREPLY[@]}"'
    )
    assert shell([bash_path, "-c", code]) == expected


@pytest.mark.parametrize(("words", "expected"), BASH_CASES[:4])
def test_zsh(tmp_path: Path, words: list[str], expected: list[str]) -> None:
    zsh = require_tool("zsh", "zsh")
    script = generated(tmp_path, "completion", "zsh")
    assert subprocess.run([zsh, "-n", str(script)], check=False).returncode == 0
    line = " ".join(words)
    code = (
        "autoload -U +X compinit && compinit -u -D; "
        f"source {script}; "
        "t() { emulate -L sh; setopt kshglob noshglob braceexpand; "
        f"COMP_WORDS=({line}); COMP_CWORD={len(words) - 1}; _nastui; "
        'print -r -l -- "${COMPREPLY[@]}"; }; t'
    )
    # zsh's compgen leaves matching the word being completed to zsh itself (its PREFIX).
    offered = shell([zsh, "-f", "-c", code])
    assert [w for w in offered if w.startswith(words[-1])] == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("nastui sc", ["scrub"]),
        ("nastui scrub st", ["start", "stop"]),
        ("nastui config i", ["init"]),
        ("nastui --colors t", ["truecolor"]),
        ("nastui scrub start --wa", ["--wait"]),
    ],
)
def test_fish(tmp_path: Path, line: str, expected: list[str]) -> None:
    fish = require_tool("fish", "fish")
    script = generated(tmp_path, "completion", "fish")
    done = subprocess.run(
        [fish, "--no-config", "-c", f"source {script}; complete -C '{line}'"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    words = sorted(row.split("\t")[0] for row in done.stdout.splitlines())
    assert words == expected


def test_every_command_is_in_the_completions() -> None:
    root = tree(full_parser())
    text = bash(root)
    for node in root.walk():
        assert f"'{node.name}')" in text or f"{node.name})" in text, node.name


def test_man_page_renders_cleanly(tmp_path: Path) -> None:
    groff = require_tool("groff", "groff-base")
    man = require_tool("man", "man-db")
    page = generated(tmp_path, "manpage")
    checked = subprocess.run(
        [groff, "-man", "-Tutf8", "-ww", "-z", str(page)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert checked.returncode == 0 and checked.stderr == "", checked.stderr
    shown = subprocess.run(
        [man, "-l", str(page)],
        capture_output=True,
        text=True,
        env={"MANWIDTH": "100", "PATH": "/usr/bin:/bin", "MAN_KEEP_FORMATTING": "0"},
        check=False,
    )
    assert shown.returncode == 0, shown.stderr
    col = require_tool("col", "bsdextrautils")
    plain = subprocess.run(
        [col, "-b"], input=shown.stdout, capture_output=True, text=True, check=True
    ).stdout
    for section in ("NAME", "SYNOPSIS", "GLOBAL OPTIONS", "COMMANDS", "EXIT STATUS", "FILES"):
        assert f"\n{section}\n" in plain
    assert "nastui scrub [options] start|pause|stop POOL" in plain
    assert "--wait" in plain and "config init" in plain


def test_roff_escapes() -> None:
    assert escape("--wait") == "\\-\\-wait"
    assert escape(".hidden") == "\\&.hidden"
    assert escape("a\\b") == "a\\eb"
