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
import resource
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


CPU: list[float] = [0.0]  # CPU seconds (user + system) of every command `run` ran


def run(argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> float:
    """Seconds `argv` took (its CPU seconds are added to CPU); exits on failure."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"perf: {argv} failed: {done.stdout[-2000:]} {done.stderr[-2000:]}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU[0] += (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
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
    """`make demo`'s two halves on a fresh clone: its install, then the first full frame."""
    from tests.perf.harness import time_to_full_frame

    clone = tmp / "clone"
    run(["git", "clone", "-q", str(REPO), str(clone)], tmp)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    CPU[0] = 0.0
    install = run(["make", "-s", ".venv/.nastui-demo"], clone, env)
    cpu = CPU[0]
    frame = time_to_full_frame([str(clone / ".venv/bin/nastui"), "--demo"], timeout=60)
    return (
        f"fresh clone, make demo: install {install:.1f} s ({cpu:.1f} s CPU), first full frame "
        f"{frame:.1f} s later: {install + frame:.1f} s to the first screen; .venv "
        f"{du(clone / '.venv'):.0f} MB"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    methods = {"pip": pip_venv, "pipx": pipx, "pyz": zipapp, "demo": demo}
    parser.add_argument("--only", choices=sorted(methods), action="append")
    args = parser.parse_args()
    for name, method in methods.items():
        if args.only and name not in args.only:
            continue
        tmp = Path(tempfile.mkdtemp(prefix="nastui-perf-"))
        CPU[0] = 0.0
        try:
            line = method(tmp)
            print(f"{line} [{CPU[0]:.1f} s CPU in all]" if name != "demo" else line, flush=True)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
