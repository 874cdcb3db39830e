"""Install figures per method, and the time to the first demo screen on a fresh clone.

    python -m tests.perf.installs [--only pip|pipx|pyz|demo ...]

Each method starts from nothing in a temporary directory (the package index's wheels may come
from pip's cache, as on any machine that installed before): a venv and `pip install PATH`;
pipx from the path; `make dist` and the size of nastui.pyz; a fresh `git clone` and `make demo`
in a tmux pane, timed until the dashboard is drawn. Figures go to stdout, never into a test.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def du(path: Path) -> float:
    """MB under `path` (files only, as `du --apparent-size` counts them)."""
    total = sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())
    return total / 1e6


def run(argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> float:
    """Seconds `argv` took; exits on failure."""
    started = time.monotonic()
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"perf: {argv} failed: {done.stdout[-2000:]} {done.stderr[-2000:]}")
    return time.monotonic() - started


def pip_venv(tmp: Path) -> str:
    venv = tmp / "venv"
    seconds = run([sys.executable, "-m", "venv", str(venv)], tmp)
    seconds += run([str(venv / "bin/python"), "-m", "pip", "install", "-q", str(REPO)], tmp)
    count = len(list((venv / "lib").glob("python3*/site-packages/*.dist-info")))
    return f"pip install PATH in a new venv: {seconds:.1f} s, {du(venv):.0f} MB, {count} packages"


def pipx(tmp: Path) -> str:
    tools = tmp / "pipx-tool"
    run([sys.executable, "-m", "venv", str(tools)], tmp)
    run([str(tools / "bin/python"), "-m", "pip", "install", "-q", "pipx"], tmp)
    env = {
        **os.environ,
        "PIPX_HOME": str(tmp / "pipx"),
        "PIPX_BIN_DIR": str(tmp / "bin"),
        "PIPX_DEFAULT_PYTHON": sys.executable,
    }
    seconds = run([str(tools / "bin/pipx"), "install", str(REPO)], tmp, env)
    return f"pipx install PATH: {seconds:.1f} s, {du(tmp / 'pipx' / 'venvs' / 'nastui'):.0f} MB"


def zipapp(tmp: Path) -> str:
    dist = tmp / "dist"
    argv = ["make", "-s", "dist", f"DIST_PYTHON={sys.executable}", f"DIST_DIR={dist}"]
    seconds = run([*argv, f"PYZ_BUILD={tmp / 'pyz'}"], REPO)
    pyz = dist / "nastui.pyz"
    started = time.monotonic()
    run(["/usr/bin/python3", str(pyz), "status", "--demo"], tmp)
    status = time.monotonic() - started
    return (
        f"make dist (wheel, sdist, pyz): {seconds:.1f} s; nastui.pyz {pyz.stat().st_size / 1e6:.1f}"
        f" MB, unpacks to nothing; `status --demo` with /usr/bin/python3: {status:.1f} s"
    )


def demo(tmp: Path) -> str:
    clone = tmp / "clone"
    run(["git", "clone", "-q", str(REPO), str(clone)], tmp)
    socket = f"perf-{os.getpid()}"
    env = "env -u PYTHONPATH -u VIRTUAL_ENV TERM=xterm-256color"
    started = time.monotonic()
    subprocess.run(
        [
            "tmux",
            "-L",
            socket,
            "new-session",
            "-d",
            "-x",
            "100",
            "-y",
            "30",
            "-c",
            str(clone),
            f"{env} make demo; sleep 30",
        ],
        check=True,
    )
    try:
        while time.monotonic() - started < 300:
            screen = subprocess.run(
                ["tmux", "-L", socket, "capture-pane", "-p"],
                capture_output=True,
                text=True,
                check=False,
            ).stdout
            if "dashboard" in screen and "bays" in screen:
                break
            time.sleep(0.2)
        seconds = time.monotonic() - started
    finally:
        subprocess.run(["tmux", "-L", socket, "kill-server"], check=False)
    venv = clone / ".venv"
    return f"fresh clone, make demo to the first screen: {seconds:.1f} s; .venv {du(venv):.0f} MB"


def main() -> None:
    parser = argparse.ArgumentParser()
    methods = {"pip": pip_venv, "pipx": pipx, "pyz": zipapp, "demo": demo}
    parser.add_argument("--only", choices=sorted(methods), action="append")
    args = parser.parse_args()
    for name, method in methods.items():
        if args.only and name not in args.only:
            continue
        tmp = Path(tempfile.mkdtemp(prefix="nastui-perf-"))
        try:
            print(method(tmp), flush=True)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
