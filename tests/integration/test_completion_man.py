"""Shell completions run in real bash, zsh and fish; the man page through groff and man."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from nastui.cli.clitree import full_parser, tree
from nastui.cli.completion import bash
from nastui.cli.manpage import escape
from nastui.sim import SCENARIOS
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
    assert fish_offers(generated(tmp_path, "completion", "fish"), line) == expected


def fish_offers(script: Path, line: str, env: dict[str, str] | None = None) -> list[str]:
    """What fish offers at the end of `line`, sorted."""
    fish = require_tool("fish", "fish")
    done = subprocess.run(
        [fish, "--no-config", "-c", f"source {script}; complete -C '{line}'"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return sorted(row.split("\t")[0] for row in done.stdout.splitlines())


@pytest.fixture
def on_path(tmp_path: Path) -> dict[str, str]:
    """An environment whose PATH has a `nastui` running this tree (the scripts call it back
    for the values read while typing)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    program = bin_dir / "nastui"
    program.write_text(f'#!/bin/sh\nexec {sys.executable} -m nastui "$@"\n')
    program.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ.get('PATH', '/usr/bin:/bin')}"}
    env.pop("NASTUI_CONFIG", None)
    return env


DYNAMIC_CASES = [
    # A positional in its place: pools after `scrub start`, never the actions again.
    (["nastui", "--scenario", "mixed", "scrub", "start", ""], ["fast", "md0", "tank"]),
    (["nastui", "--scenario", "mixed", "scrub", "st"], ["start", "stop"]),
    (["nastui", "--demo", "selftest", "start", "PK2331PB9"], ["PK2331PB95FOVP"]),
    (["nastui", "--demo", "locate", "2"], ["2", "20", "21", "22", "23"]),
    (["nastui", "--demo", "swap", "plan", "sdr"], ["sdr"]),
    (["nastui", "bench", "run", "c"], ["cdm", "custom"]),
]


def bash_offers(script: Path, words: list[str], env: dict[str, str]) -> list[str]:
    bash_path = require_tool("bash", "bash")
    line = " ".join(shlex.quote(w) for w in words)
    code = (
        f"source {script}; COMP_WORDS=({line}); COMP_CWORD={len(words) - 1}; "
        'COMP_LINE="nastui"; _nastui; printf "%s\\n" "${COMPREPLY[@]}"'
    )
    done = subprocess.run(
        [bash_path, "-c", code], capture_output=True, text=True, timeout=60, env=env, check=False
    )
    assert done.returncode == 0, done.stderr
    return sorted(done.stdout.split())


@pytest.mark.parametrize(("words", "expected"), DYNAMIC_CASES)
def test_bash_reads_values_while_typing(
    tmp_path: Path, on_path: dict[str, str], words: list[str], expected: list[str]
) -> None:
    script = generated(tmp_path, "completion", "bash")
    offered = bash_offers(script, words, on_path)
    assert [w for w in offered if not w.startswith("-")] == expected


def test_zsh_reads_values_while_typing(tmp_path: Path, on_path: dict[str, str]) -> None:
    # zsh runs the bash script: its `path` is $PATH there, which the script must not shadow.
    zsh = require_tool("zsh", "zsh")
    script = generated(tmp_path, "completion", "zsh")
    code = (
        "autoload -U +X compinit && compinit -u -D; "
        f"source {script}; "
        "t() { emulate -L sh; setopt kshglob noshglob braceexpand; "
        'COMP_WORDS=(nastui --scenario mixed scrub start ""); COMP_CWORD=5; _nastui; '
        'print -r -l -- "${COMPREPLY[@]}"; }; t'
    )
    done = subprocess.run(
        [zsh, "-f", "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        env=on_path,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert sorted(w for w in done.stdout.split() if not w.startswith("-")) == [
        "fast",
        "md0",
        "tank",
    ]


def test_bash_scenario_completes_scenarios_not_files(
    tmp_path: Path, on_path: dict[str, str]
) -> None:
    script = generated(tmp_path, "completion", "bash")
    (tmp_path / "hot-file").write_text("")
    offered = bash_offers(script, ["nastui", "--scenario", ""], on_path)
    assert offered == sorted(SCENARIOS)
    assert bash_offers(script, ["nastui", "--scenario", "hot"], on_path) == ["hot-bay"]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("nastui --scenario mixed scrub start ", ["fast", "md0", "tank"]),
        ("nastui --scenario ho", ["hot-bay"]),
        ("nastui --demo selftest start PK2331PB9", ["PK2331PB95FOVP"]),
    ],
)
def test_fish_reads_values_while_typing(
    tmp_path: Path, on_path: dict[str, str], line: str, expected: list[str]
) -> None:
    words = fish_offers(generated(tmp_path, "completion", "fish"), line, on_path)
    assert [w for w in words if not w.startswith("-")] == expected


def test_every_command_is_in_the_completions() -> None:
    root = tree(full_parser())
    text = bash(root)
    for node in root.walk():
        assert f"'{node.name}|'" in text, node.name


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
