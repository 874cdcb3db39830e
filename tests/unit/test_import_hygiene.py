"""Headless code never loads Textual; the layering contracts hold.

Checked two ways: statically by import-linter (the contracts in pyproject.toml, also run by
`make lint`), and at run time here, by importing each headless module in a fresh interpreter and
looking at `sys.modules`, and by running headless commands and checking the same.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.conftest import REPO

HEADLESS = [
    "nastui.entry",
    "nastui.cli.main",
    "nastui.session",
    "nastui.core.store",
    "nastui.collectors.local",
    "nastui.sim",
    "nastui.config",
    "nastui.daemon.monitord",
    "nastui.notify",
    "nastui.history.db",
    "nastui.agent.loop",
    "nastui.collectors.fleet",
    "nastui.cli.cmd_snmp_agent",
    "nastui.swap.flow.steps",
    "nastui.fans.flow.fand",
    "nastui.selftest.flow.duty",
]


def loaded_after(code: str) -> set[str]:
    probe = code + "\nimport json, sys; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=REPO
    )
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


@pytest.mark.parametrize("module", HEADLESS)
def test_headless_module_does_not_load_textual(module: str) -> None:
    loaded = loaded_after(f"import {module}")
    assert not {m for m in loaded if m == "textual" or m.startswith(("textual.", "nastui.ui"))}


def test_model_needs_only_the_standard_library() -> None:
    loaded = loaded_after("import nastui.model")
    third_party = {"textual", "rich", "psutil", "pySMART", "pynetsnmp", "tomlkit"}
    assert not third_party & {m.split(".")[0] for m in loaded}


@pytest.mark.parametrize("argv", [["status", "--demo"], ["bays", "--demo", "--json"]])
def test_headless_commands_do_not_load_textual(argv: list[str]) -> None:
    code = (
        "import sys, runpy\n"
        f"sys.argv = ['nastui', *{argv!r}]\n"
        "from nastui.entry import main\n"
        "import io, contextlib\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    main()\n"
    )
    loaded = loaded_after(code)
    assert "textual" not in loaded
    assert "pySMART" not in loaded  # importing it sets LANG=C for the whole process


def test_import_linter_contracts_hold() -> None:
    lint_imports = Path(sys.executable).parent / "lint-imports"
    result = subprocess.run(
        [str(lint_imports)], capture_output=True, text=True, cwd=REPO, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "broken" not in result.stdout.lower().replace("0 broken", "")


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_every_optional_extra_is_imported_by_nastui() -> None:
    """An extra nothing imports is vestigial (the README audit: `prometheus` was kept for
    `--metrics-listen`, which serves with the standard library): each extra's packages give
    a module some code of nastui imports."""
    from importlib.metadata import packages_distributions

    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    imported = {
        name
        for path in (REPO / "nastui").rglob("*.py")
        for name in re.findall(r"(?m)^\s*(?:from|import)\s+(\w+)", path.read_text())
    }
    modules: dict[str, set[str]] = {}
    for module, dists in packages_distributions().items():
        for dist in dists:
            modules.setdefault(_canonical(dist), set()).add(module)
    for extra, requirements in extras["optional-dependencies"].items():
        for requirement in requirements:
            dist = _canonical(re.match(r"[\w.-]+", requirement)[0])  # type: ignore[index]
            named = modules.get(dist) or {dist.replace("-", "_"), dist.split("-")[0]}
            assert named & imported, f"extra {extra}: nastui imports nothing of {requirement}"
