"""Every environment variable nastui reads is in the man page's ENVIRONMENT section (the README
audit: NASTUI_ROOT_TOOLS and XDG_STATE_HOME were read but not listed). The reads are found by
grepping the package, so a new one fails here until it is documented."""

from __future__ import annotations

import re

from nastui.cli.clitree import full_parser, tree
from nastui.cli.manpage import ENVIRONMENT, manpage
from tests.conftest import REPO

NAME = r"[A-Z_][A-Z0-9_]*"
# env.get("X"), os.environ["X"] (not an assignment), environ.setdefault("X"), (env or {}).get(
READ = re.compile(
    rf"\benv(?:iron)?\b(?: or \{{\}}\))?\s*(?:\.(?:get|setdefault|pop)\(\s*|\[)\"({NAME})\""
    r"(?!\]\s*=[^=])"
)
CONSTANT = re.compile(rf"\b{NAME}ENV\s*=\s*\"({NAME})\"")  # ROOT_TOOLS_ENV = "NASTUI_ROOT_TOOLS"
NAMES = re.compile(rf"\b{NAME}_ENV\s*=\s*\(([^)]*)\)")  # PASSED_ENV = ("PATH", "TZ", "TMPDIR")


def read_by_nastui() -> set[str]:
    """The names of the environment variables the package reads."""
    found: set[str] = set()
    for path in sorted((REPO / "nastui").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        found.update(READ.findall(text), CONSTANT.findall(text))
        for names in NAMES.findall(text):
            found.update(re.findall(rf"\"({NAME})\"", names))
    return found


def test_the_grep_finds_the_reads_it_is_meant_to() -> None:
    found = read_by_nastui()
    for name in ("NASTUI_ROOT_TOOLS", "XDG_STATE_HOME", "JOURNAL_STREAM", "PATH", "MIBS"):
        assert name in found
    assert "TEXTUAL_COLOR_SYSTEM" not in found  # only ever written, for Textual


def test_every_variable_nastui_reads_is_in_the_man_page() -> None:
    documented = {name for names, _ in ENVIRONMENT for name in re.findall(NAME, names)}
    assert sorted(read_by_nastui() - documented) == []
    section = manpage(tree(full_parser())).split(".SH ENVIRONMENT", 1)[1].split(".SH FILES", 1)[0]
    for names, _ in ENVIRONMENT:
        assert f"\\fB{names}\\fR" in section
