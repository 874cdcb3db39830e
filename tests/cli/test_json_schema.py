"""Every `--json` output: one object starting with "schema", each top-level key in docs/json.md."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nastui.cli.command import JSON_SCHEMA
from tests.cli.test_export_cli import nastui
from tests.conftest import FIXTURES, REPO

DOC = (REPO / "docs" / "json.md").read_text(encoding="utf-8")
SMART = FIXTURES / "smartctl/smartctl_exporter/SEAGATE_ST373453LC_26.json"


@pytest.mark.parametrize(
    "argv",
    [
        ["status"],
        ["bays"],
        ["drives"],
        ["pools"],
        ["fans"],
        ["alert", "list"],
        ["selftest", "status"],
        ["selftest", "schedule"],
        ["smart", "explain", str(SMART)],
        ["swap", "plan", "10"],
        ["swap"],
        ["swap", "log"],
    ],
    ids=lambda argv: " ".join(argv[:2]).replace(str(SMART), "FILE"),
)
def test_one_shape_documented(argv: list[str], tmp_path: Path) -> None:
    env = {"NASTUI_STATE_DIR": str(tmp_path), "NASTUI_BENCH_DIR": str(tmp_path / "runs")}
    done = nastui("--scenario", "failing-drive", *argv, "--json", env=env)
    assert done.returncode in (0, 1, 2, 3), done.stderr
    data = json.loads(done.stdout)
    assert isinstance(data, dict)
    assert next(iter(data)) == "schema" and data["schema"] == JSON_SCHEMA == 1
    missing = [key for key in data if f"`{key}" not in DOC]
    assert not missing, f"not in docs/json.md: {missing}"
    for key, value in data.items():
        if isinstance(value, list) and value and isinstance(value[0], dict):
            undocumented = [k for k in value[0] if f"`{k}`" not in DOC and f"`{k}[]`" not in DOC]
            assert not undocumented, f"{key}[]: not in docs/json.md: {undocumented}"


def test_bench_list(tmp_path: Path) -> None:
    done = nastui("bench", "list", "--runs", str(tmp_path), "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert list(data)[:1] == ["schema"] and {"profiles", "runs"} <= set(data)


def test_swap_in_progress(tmp_path: Path) -> None:
    env = {"NASTUI_STATE_DIR": str(tmp_path)}
    assert nastui("--scenario", "failing-drive", "swap", "start", "10", env=env).returncode == 0
    done = nastui("--scenario", "failing-drive", "swap", "--json", env=env)
    swap = json.loads(done.stdout)["swap"]
    undocumented = [k for k in swap if f"`{k}" not in DOC]
    assert swap["phase"] == "prepared" and not undocumented, undocumented


def test_swap_log(tmp_path: Path) -> None:
    """`swap log --json` (refused before): the finished swaps as the text lists them, each
    record's keys documented."""
    env = {"NASTUI_STATE_DIR": str(tmp_path)}

    def run(*argv: str) -> str:
        done = nastui("--scenario", "failing-drive", "swap", *argv, env=env)
        assert done.returncode == 0, done.stderr
        return done.stdout

    for bay in ("10", "11"):
        run("start", bay)
        run("abort")
    data = json.loads(run("log", "--json"))
    assert list(data) == ["schema", "swaps"]
    swaps = data["swaps"]
    lines = run("log").splitlines()
    assert [s["bay"] for s in swaps] == [10, 11]
    assert [line.split("  ")[1] for line in lines] == ["bay 10", "bay 11"]
    assert all(s["phase"] == "aborted" and s["new"] is None for s in swaps)
    undocumented = [k for k in swaps[0] if f"`{k}`" not in DOC]
    assert not undocumented, undocumented
