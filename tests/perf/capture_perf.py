"""`nastui capture` figures: bundle size and time, and the replay's time, on the fake box of the
tests (four drives, an enclosure, a degraded ZFS pool, md arrays) and on this machine.

    python -m tests.perf.capture_perf        (as root, for this machine's SMART)

Prints figures; asserts nothing.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tests.cli.test_pools_cli import MDSTAT, degraded_tank
from tests.fakepools import install, md_tree
from tests.smartbox import fake_box

ROUNDS = 3


def _timed(argv: list[str], env: dict[str, str]) -> float:
    started = time.monotonic()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)}: exit {done.returncode}: {done.stderr}")
    return time.monotonic() - started


def measure(label: str, where: list[str], env: dict[str, str], scratch: Path) -> None:
    """Capture ROUNDS times (median time, last size), then replay `drives --json`."""
    nastui = [sys.executable, "-m", "nastui"]
    times, sizes = [], []
    for i in range(ROUNDS):
        bundle = scratch / f"{label}-{i}.tar.gz"
        times.append(_timed([*nastui, *where, "capture", "-o", str(bundle)], env))
        sizes.append(bundle.stat().st_size)
    replay_env = {**env, "NASTUI_ROOT_TOOLS": ""}
    replay = statistics.median(
        _timed([*nastui, "--root", str(bundle), "drives", "--json"], replay_env) for _ in range(3)
    )
    poll = statistics.median(_timed([*nastui, *where, "drives", "--json"], env) for _ in range(3))
    took = statistics.median(times)
    print(
        f"  {label:<12} bundle {sizes[-1] / 1024:7.1f} KiB   capture {took:5.2f} s"
        f"   drives --json: live {poll:5.2f} s, replayed {replay:5.2f} s"
    )


def main() -> None:
    """Both boxes."""
    with tempfile.TemporaryDirectory(prefix="nastui-capture-perf-") as name:
        scratch = Path(name)
        box = fake_box(scratch / "box")
        monkeypatch = pytest.MonkeyPatch()
        try:
            (scratch / "tools").mkdir()
            degraded_tank(install(scratch / "tools", monkeypatch))
            md_tree(box.root, MDSTAT, {"md3": {"sync_action": "check"}})
            env = {**os.environ, **box.env}
            env["PATH"] = box.env["PATH"].split(os.pathsep)[0] + os.pathsep + os.environ["PATH"]
            print(f"nastui capture ({ROUNDS} rounds, median)")
            measure("fake box", box.where, env, scratch)
        finally:
            monkeypatch.undo()
        config = scratch / "empty.toml"
        config.write_text("")
        host = {**os.environ, "NASTUI_STATE_DIR": str(scratch / "state")}
        measure("this host", ["--config", str(config)], host, scratch)


if __name__ == "__main__":
    main()
