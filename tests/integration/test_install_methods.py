"""The README's Install section, command by command: `make dist` (wheel, sdist and the one-file
nastui.pyz, run by the system's python3 with no venv), and pipx from a path and from a git URL.

Each builds or installs from the package index's wheels (the build backend, the dependencies):
marked slow. Figures (sizes, times) are measured by `python -m tests.perf.installs`, not here.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import REPO, require_tool
from tests.integration.test_terminal import Tmux

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.timeout(900)]

SYSTEM_PYTHON = "/usr/bin/python3"  # Debian's: what an appliance has, with no pip allowed


def run(
    argv: list[str], *, env: dict[str, str] | None = None, cwd: Path = REPO
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=600, check=False
    )


def bare_env(home: Path) -> dict[str, str]:
    """What a login shell on an appliance has: no PYTHONPATH, no venv, no checkout."""
    return {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "HOME": str(home), "LANG": "C.UTF-8"}


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    out = tmp_path_factory.mktemp("dist")
    made = run(
        [
            "make",
            "--no-print-directory",
            "dist",
            f"DIST_PYTHON={sys.executable}",
            f"DIST_DIR={out / 'dist'}",
            f"PYZ_BUILD={out / 'pyz'}",
        ]
    )
    assert made.returncode == 0, made.stdout[-3000:] + made.stderr[-3000:]
    yield out / "dist"


@pytest.fixture
def system_python() -> str:
    python = require_tool(SYSTEM_PYTHON, "python3")
    version = run([python, "-c", "import sys; print(sys.version_info >= (3, 11))"])
    if version.stdout.strip() != "True":
        pytest.fail(f"{python} is older than 3.11: the pyz test needs Debian 12 or newer")
    return python


def test_dist_makes_a_wheel_an_sdist_and_a_pure_python_pyz(dist: Path) -> None:
    names = sorted(p.name for p in dist.iterdir())
    assert names == ["nastui-0.1.0-py3-none-any.whl", "nastui-0.1.0.tar.gz", "nastui.pyz"]
    with tarfile.open(dist / "nastui-0.1.0.tar.gz") as sdist:
        members = set(sdist.getnames())
    assert "nastui-0.1.0/contrib/zipapp/__main__.py" in members
    assert "nastui-0.1.0/config.example.toml" in members

    pyz = zipfile.ZipFile(dist / "nastui.pyz")
    inside = pyz.namelist()
    assert "__main__.py" in inside
    assert "nastui/ui/app.tcss" in inside
    assert "nastui/data/config.example.toml" in inside
    assert "nastui/bench/data/demo-disk.jsonplus.gz" in inside
    # The vendored dependencies, and nothing compiled (zipimport cannot load an extension).
    tops = {name.split("/")[0] for name in inside}
    assert {"textual", "rich", "pySMART", "tomlkit", "nastui"} <= tops
    assert not [n for n in inside if n.endswith((".so", ".pyd"))]
    assert not {"psutil", "pip", "bin", "twisted", "pytest"} & tops


def test_the_pyz_runs_on_the_system_python_with_nothing_installed(
    dist: Path, system_python: str, tmp_path: Path
) -> None:
    pyz = str(dist / "nastui.pyz")
    env = bare_env(tmp_path)
    version = run([system_python, pyz, "--version"], env=env, cwd=tmp_path)
    assert version.returncode == 0, version.stderr
    assert version.stdout.startswith("nastui 0.1.0")

    status = run([system_python, pyz, "status", "--demo"], env=env, cwd=tmp_path)
    assert status.returncode == 0, status.stderr
    assert status.stdout.startswith("NASTUI OK - nano: 24 drives")

    bays = run([system_python, pyz, "bays", "--demo", "--json"], env=env, cwd=tmp_path)
    assert len(json.loads(bays.stdout)["bays"]) == 24

    # Executable by itself through its #! line.
    Path(pyz).chmod(0o755)
    direct = run([pyz, "drives", "--demo", "--json"], env=env, cwd=tmp_path)
    assert direct.returncode == 0, direct.stderr
    assert "Traceback" not in direct.stderr

    # The example configuration is read from inside the archive.
    config = tmp_path / "config.toml"
    init = run([system_python, pyz, "config", "init", str(config)], env=env, cwd=tmp_path)
    assert init.returncode == 0, init.stderr
    assert "[chassis]" in config.read_text()
    # Nothing was unpacked or written but the file asked for and the demo's own state.
    written = {str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if not p.is_dir()}
    assert {w for w in written if not w.startswith(".local/state/nastui/demo/")} == {"config.toml"}


def test_the_pyz_draws_the_interface_on_the_system_python(dist: Path, system_python: str) -> None:
    tmux = Tmux(
        f"env -u PYTHONPATH -u VIRTUAL_ENV {system_python} {dist / 'nastui.pyz'} --demo",
        "xterm-256color",
    )
    try:
        screen = tmux.wait_for("dashboard", timeout=60)
        assert "sdr" in screen and "storage" in screen
        tmux.keys("q")
    finally:
        tmux.close()


def test_pipx_installs_from_a_path_and_from_a_git_url(tmp_path: Path) -> None:
    venv = tmp_path / "pipx-venv"
    assert run([sys.executable, "-m", "venv", str(venv)]).returncode == 0
    got = run([str(venv / "bin/python"), "-m", "pip", "install", "--quiet", "pipx"])
    assert got.returncode == 0, got.stderr[-2000:]
    env = bare_env(tmp_path)
    env.update(
        PIPX_HOME=str(tmp_path / "pipx"),
        PIPX_BIN_DIR=str(tmp_path / "bin"),
        PIPX_MAN_DIR=str(tmp_path / "man"),
        PIPX_DEFAULT_PYTHON=sys.executable,
    )
    pipx = str(venv / "bin/pipx")
    nastui = str(tmp_path / "bin/nastui")

    from_path = run([pipx, "install", str(REPO)], env=env, cwd=tmp_path)
    assert from_path.returncode == 0, from_path.stdout + from_path.stderr
    status = run([nastui, "status", "--demo"], env=env, cwd=tmp_path)
    assert status.returncode == 0 and status.stdout.startswith("NASTUI OK"), status.stderr

    from_git = run([pipx, "install", "--force", f"git+file://{REPO}"], env=env, cwd=tmp_path)
    assert from_git.returncode == 0, from_git.stdout + from_git.stderr
    version = run([nastui, "--version"], env=env, cwd=tmp_path)
    assert version.stdout.startswith("nastui 0.1.0"), version.stderr

    # The extras install the way the README says; snmp only below Python 3.14.
    inject = run([pipx, "inject", "nastui", "apprise"], env=env, cwd=tmp_path)
    assert inject.returncode == 0, inject.stdout + inject.stderr
