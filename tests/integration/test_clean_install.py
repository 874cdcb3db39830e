"""A fresh venv and `pip install .`: a working `nastui` without SNMP, Twisted or dev tools.

The base install carries no GPL pynetsnmp-2 and no Twisted (36 MB never imported); the fleet
says in one line how to add SNMP. Building the wheel and installing its dependencies from the
package index takes a while: marked slow.
"""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from nastui.collectors.fleet_source import SNMP_MISSING
from tests.conftest import REPO

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.timeout(600)]

NOT_IN_BASE = {"twisted", "pynetsnmp-2", "apprise", "pytest", "mypy", "ruff"}


def run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=540, check=False)


def test_pip_install_dot_gives_a_working_nastui_without_snmp(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    made = run([sys.executable, "-m", "venv", str(venv)], tmp_path)
    assert made.returncode == 0, made.stderr
    pip = [str(venv / "bin/python"), "-m", "pip"]
    wheels = tmp_path / "wheels"
    built = run([*pip, "wheel", "--no-deps", "-w", str(wheels), str(REPO)], tmp_path)
    assert built.returncode == 0, built.stderr[-2000:]
    (wheel,) = wheels.glob("nastui-*.whl")
    assert "nastui/data/config.example.toml" in zipfile.ZipFile(wheel).namelist()
    installed = run([*pip, "install", "--quiet", str(wheel)], tmp_path)
    assert installed.returncode == 0, installed.stderr[-2000:]

    listed = run([*pip, "list", "--format=json"], tmp_path)
    names = {p["name"].lower() for p in json.loads(listed.stdout)}
    assert {"nastui", "textual", "pysmart"} <= names
    assert not names & NOT_IN_BASE, names & NOT_IN_BASE

    status = run([str(venv / "bin/nastui"), "status"], tmp_path)
    assert status.returncode in (0, 1, 2, 3), status.stderr  # the Nagios health codes
    assert status.stdout.startswith("NASTUI "), status.stdout
    assert "Traceback" not in status.stderr

    config = tmp_path / "config.toml"
    init = run([str(venv / "bin/nastui"), "config", "init", str(config)], tmp_path)
    assert init.returncode == 0, init.stderr
    assert config.read_text().endswith((REPO / "config.example.toml").read_text())
    check = run([str(venv / "bin/nastui"), "config", "check", str(config)], tmp_path)
    assert check.returncode == 0, check.stderr

    probe = "from nastui.collectors.fleet_source import snmp_problem; print(snmp_problem())"
    note = run([str(venv / "bin/python"), "-c", probe], tmp_path)
    assert note.stdout.strip() == SNMP_MISSING
