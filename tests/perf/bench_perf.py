"""Benchmark overhead and latency: `python -m tests.perf` runs `bench()` (or run this module).

1. The same fio job alone and under nastui, alternated, on the same target: IOPS ratio (fio's
   own final figure each time). "Under nastui" is the bench screen of a headless app, running
   the job through the real path (runner.stream, splitter, differ, live charts). The target is a
   loop device over a file in /dev/shm (root), so the job is CPU-bound and any overhead shows.
2. From fio printing a status dump (its timestamp_ms) to the sample being on the graph (the
   chart's update), over every sample of those runs.
3. Bytes written to an 80x24 terminal by the bench screen while a run streams (the demo's
   replay, one dump a second): what a 115200-baud serial console has to carry.

PERF_SECONDS sets the length of each fio run (half of it; default 60, so 30 s runs).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import os
import pty
import select
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from collections.abc import Iterator
from fcntl import ioctl
from pathlib import Path

from nastui.bench.profiles import PROFILES
from nastui.collectors.fio_target import inspect_target
from nastui.model import RunState
from nastui.session import Source, open_session
from nastui.ui.app import make_app
from nastui.ui.screens.bench import BenchScreen
from nastui.ui.screens.bench_source import source_for
from tests.perf.harness import quit_pty

WINDOW = float(os.environ.get("PERF_SECONDS", "60"))
RUN_S = max(4.0, WINDOW / 2)
PAIRS = 3
JOB = ("--rw=randread", "--bs=4k", "--iodepth=4", "--ioengine=libaio", "--direct=1")


def _row(label: str, value: str, target: str = "", note: str = "") -> None:
    print(f"  {label:<44} {value:>14}  {target:<14} {note}")


@contextlib.contextmanager
def shm_loop(size_mib: int = 512) -> Iterator[str]:
    """A loop device over a file in /dev/shm (root), or a file in a temporary directory."""
    if os.geteuid() != 0:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "perf.dat"
            subprocess.run(
                ["fio", "--name=lay", f"--filename={path}", "--size=256M", "--rw=write", "--bs=1M"],
                capture_output=True,
                check=True,
            )
            yield str(path)
        return
    backing = Path("/dev/shm") / f"nastui-perf-{os.getpid()}.img"
    with backing.open("wb") as f:
        f.truncate(size_mib << 20)
    device = subprocess.run(
        ["losetup", "-f", "--show", str(backing)], capture_output=True, text=True, check=True
    ).stdout.strip()
    try:
        subprocess.run(
            ["dd", "if=/dev/urandom", f"of={device}", "bs=1M", f"count={size_mib}"],
            capture_output=True,
            check=True,
        )
        yield device
    finally:
        subprocess.run(["losetup", "-d", device], capture_output=True, check=False)
        backing.unlink(missing_ok=True)


def alone(target: str) -> float:
    """fio by itself, no status dumps: its final read IOPS."""
    argv = [
        "fio",
        "--name=alone",
        f"--filename={target}",
        *JOB,
        "--time_based",
        f"--runtime={RUN_S:g}",
        "--thread",
        "--output-format=json",
    ]
    out = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
    return float(json.loads(out)["jobs"][0]["read"]["iops"])


def job_text() -> str:
    """The same job as a custom fio job file for nastui."""
    lines = ["[global]", *(a.lstrip("-") for a in JOB), "time_based=1", f"runtime={RUN_S:g}"]
    return "\n".join([*lines, "[under-nastui]", ""])


async def under_nastui(target: str) -> tuple[float, list[float]]:
    """The job run from the bench screen of a headless app: fio's IOPS and the graph lags."""
    session = open_session(Source(), {})
    app = make_app(session, live=True)
    source = source_for(session, lambda: None, live=True)
    app.bench_source = dataclasses.replace(source, runs_dir=None)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("n")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, BenchScreen)
        screen.target = await inspect_target(target)
        screen.settings = dataclasses.replace(PROFILES["custom"].defaults, job_text=job_text())
        screen.start(screen.target.confirm_token)
        assert screen.worker is not None
        await screen.worker.wait()  # (not every worker: the app's poll worker never ends)
        run = screen.runs[-1]
        assert run.state is RunState.COMPLETE, run.message
        return run.steps[0].iops, list(screen.lags)


def pty_bytes(
    cmd: list[str], keys: list[tuple[float, bytes]], seconds: float, term: str
) -> tuple[int, float]:
    """Bytes `cmd` writes to an 80x24 pty: before the last key, and per second after it."""
    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover - the child
        os.execvpe(cmd[0], cmd, {**os.environ, "TERM": term, "LANG": "C.UTF-8"})
    ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    started, total, before, pending = time.monotonic(), 0, 0, list(keys)
    try:
        while (now := time.monotonic()) - started < keys[-1][0] + seconds:
            if pending and now - started >= pending[0][0]:
                os.write(fd, pending.pop(0)[1])
                if not pending:
                    before = total
            ready, _, _ = select.select([fd], [], [], 0.05)
            if ready:
                try:
                    total += len(os.read(fd, 65536))
                except OSError:
                    break
    finally:
        quit_pty(pid, fd)
    return before, (total - before) / seconds


def _terminate(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)  # so the loop device is detached on the way out


def bench() -> None:
    """Print the figures."""
    signal.signal(signal.SIGTERM, _terminate)
    if subprocess.run(["which", "fio"], capture_output=True, check=False).returncode:
        print("bench: fio not installed (Debian package fio): skipped")
        return
    print(
        f"Benchmarks: fio alone against fio under nastui, alternated ({PAIRS} pairs of {RUN_S:g} s)"
    )
    with shm_loop() as target:
        bare, ours, lags = [], [], []
        for _ in range(PAIRS):
            bare.append(alone(target))
            iops, lag = asyncio.run(under_nastui(target))
            ours.append(iops)
            lags += lag
    # Each pair ran back to back: its ratio cancels the machine's drift better than medians.
    ratios = sorted(o / b for o, b in zip(ours, bare, strict=True))
    ratio = statistics.median(ratios)
    _row(
        "fio alone, randread 4k QD4 (median IOPS)",
        f"{statistics.median(bare):,.0f}",
        "",
        " ".join(f"{v:,.0f}" for v in bare),
    )
    _row(
        "the same job under nastui's bench screen",
        f"{statistics.median(ours):,.0f}",
        "",
        " ".join(f"{v:,.0f}" for v in ours),
    )
    _row(
        "IOPS ratio, under nastui / alone (median pair)",
        f"{ratio:.3f}",
        ">= 0.97",
        "pairs " + " ".join(f"{r:.3f}" for r in ratios),
    )
    lags.sort()
    _row(
        "fio prints a sample -> it is on the graph, max",
        f"{max(lags):.2f} s",
        "<= 1.5 s",
        f"median {statistics.median(lags):.2f} s, p95 {lags[int(len(lags) * 0.95)]:.2f} s, "
        f"{len(lags)} samples",
    )
    keys = [(1.5, b"n"), (4.0, b"r")]  # the bench screen has settled before the run
    demo = [sys.executable, "-m", "nastui", "--demo"]
    for term in ("xterm-256color", "vt100"):
        first, steady = pty_bytes(demo, keys, min(18.0, WINDOW), term)
        _row(
            f"bench screen while a run streams ({term})",
            f"{steady:,.0f} B/s",
            "<= 11,500 B/s",
            f"{first:,} B before the run (start-up, first frames)",
        )


if __name__ == "__main__":
    bench()
