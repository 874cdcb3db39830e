"""Processes the guard cannot look into, on the real /proc (root): named before a run that
writes, said once by the watch when one becomes so, never a refusal.

Two ways to get a process whose descriptors /proc refuses to root:
- this machine's own: in a sandbox, process 1 lives in a parent user namespace and /proc
  refuses its descriptors, directories and maps even to root. That cannot be had on a fresh
  machine, so the test of it asserts both ways: pid 1 is named exactly when /proc refuses its
  descriptors to the test (here it does; on a machine where it does not, pid 1 must not be
  named). It never skips;
- made on any machine: nastui run without CAP_SYS_PTRACE (`setpriv`), and a helper process
  that changed its uid to nobody: the kernel's ptrace check then refuses root one descriptor
  at a time, as for a sandbox's process 1 (the helper is named, among every other process
  that now refuses: root processes whose capabilities nastui no longer has). These need root,
  setpriv (util-linux), losetup and fio, and fail rather than skip in CI without them.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from nastui.collectors.blockstack import inspect
from nastui.collectors.procuse import devno
from tests.blocklab import attached, image, need_root, refused_to_us
from tests.conftest import require_tool

pytestmark = pytest.mark.integration

NO_PTRACE = ("setpriv", "--inh-caps=-sys_ptrace", "--bounding-set=-sys_ptrace", "--")
NOBODY = 65534
# A helper that opens HOLD (if named) as root, then becomes nobody at once ("now") or on
# SIGUSR1 ("later"), saying "dropped" when it has.
HELPER = """
import os, signal, sys, time
held = os.open(sys.argv[1], os.O_RDONLY) if sys.argv[1] else None
def drop(*_):
    os.setgroups([])
    os.setresgid(NOBODY, NOBODY, NOBODY)
    os.setresuid(NOBODY, NOBODY, NOBODY)
    print("dropped", flush=True)
if sys.argv[2] == "now":
    drop()
else:
    signal.signal(signal.SIGUSR1, drop)
    print("ready", flush=True)
while True:
    time.sleep(1)
""".replace("NOBODY", str(NOBODY))


def nastui(*args: str, no_ptrace: bool = False) -> list[str]:
    return [*(NO_PTRACE if no_ptrace else ()), sys.executable, "-m", "nastui", *args]


def bench_args(device: str, runtime: int) -> tuple[str, ...]:
    return ("bench", "run", "randrw", device, "--runtime", str(runtime), "--confirm", device)


@contextlib.contextmanager
def helper(hold: str = "", *, when: str = "now", no_ptrace: bool = False) -> Iterator[int]:
    """The helper process (see `HELPER`) once it said it is ready; its pid."""
    argv = [*(NO_PTRACE if no_ptrace else ()), sys.executable, "-c", HELPER, hold, when]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == ("dropped" if when == "now" else "ready")
        yield proc.pid
        if when != "now":
            assert proc.stdout.readline().strip() == "dropped"
    finally:
        proc.kill()
        proc.wait()


@pytest.fixture
def device(tmp_path: Path) -> Iterator[str]:
    need_root()
    require_tool("fio", "fio")
    with attached(str(image(tmp_path / "t.img", 64))) as dev:
        yield dev


def no_ptrace_tools() -> None:
    need_root()
    require_tool("setpriv", "util-linux")


def named(document: dict[str, Any], pid: int) -> list[dict[str, Any]]:
    return [p for p in document["run"]["target"]["unseen"] if p["pid"] == pid]


def test_the_real_look_names_pid_1_exactly_when_proc_refuses_its_descriptors() -> None:
    need_root()
    refused = refused_to_us(1)
    verdict = inspect(Path("/"), devno(Path("/").stat().st_dev), real=True)
    ones = [p for p in verdict.unseen if p.pid == 1]
    assert bool(ones) == refused, f"/proc refuses pid 1's descriptors: {refused}"
    if refused:
        (one,) = ones
        assert one.comm == Path("/proc/1/comm").read_text().strip()
        assert one.why.startswith("descriptors")


def test_the_cli_names_pid_1_before_the_run_when_proc_refuses_it(device: str) -> None:
    """This machine's pid 1, through `nastui bench run --json`: the line on stderr before
    the run, the process in the JSON, and the run goes on (never a refusal)."""
    done = subprocess.run(
        nastui(*bench_args(device, 1), "--json", "--no-save"),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    document = json.loads(done.stdout)
    assert done.returncode == 0 and document["run"]["state"] == "complete", done.stderr
    ones = named(document, 1)
    if not refused_to_us(1):
        assert not ones
        return
    comm = Path("/proc/1/comm").read_text().strip()
    assert [p["comm"] for p in ones] == [comm] and ones[0]["why"].startswith("descriptors")
    lines = done.stderr.splitlines()
    assert any(f"pid 1 ({comm}), its descriptors" in line for line in lines), done.stderr
    (line,) = [line for line in lines if line.startswith("could not look into")]
    assert line.endswith("would not be seen")


def test_a_process_refusing_root_is_named_and_its_open_target_is_not_seen(device: str) -> None:
    """The helper holds the target open and refuses nastui: the guard cannot see that use,
    so the run goes on; it names the helper, in the JSON and in the line before the run."""
    no_ptrace_tools()
    with helper(device) as pid:
        done = subprocess.run(
            nastui(*bench_args(device, 1), "--json", "--no-save", no_ptrace=True),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        comm = Path(f"/proc/{pid}/comm").read_text().strip()
    document = json.loads(done.stdout)
    assert done.returncode == 0 and document["run"]["state"] == "complete", done.stderr
    assert [p["comm"] for p in named(document, pid)] == [comm]
    assert document_why(document, pid).startswith("descriptors")
    first = done.stderr.splitlines()[0]
    assert first.startswith("could not look into ") and first.endswith("would not be seen")


class Lines:
    """A pipe's lines as they arrive, read by a thread."""

    def __init__(self, pipe: Any) -> None:
        self.lines: list[str] = []
        self._thread = threading.Thread(target=self._read, args=(pipe,), daemon=True)
        self._thread.start()

    def _read(self, pipe: Any) -> None:
        for line in pipe:
            self.lines.append(line.rstrip("\n"))

    def wait_for(self, text: str, timeout: float) -> None:
        end = time.monotonic() + timeout
        while not any(text in line for line in self.lines):
            assert time.monotonic() < end, f"no line with {text!r} in {timeout} s: {self.lines}"
            time.sleep(0.05)


def fio_child(parent: int, timeout: float = 60.0) -> None:
    """Wait until `parent` runs fio."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        for stat in Path("/proc").glob("[0-9]*/stat"):
            with contextlib.suppress(OSError, IndexError):
                text = stat.read_text()
                comm, fields = text.split("(", 1)[1].rsplit(")", 1)
                if comm == "fio" and int(fields.split()[1]) == parent:
                    return
        time.sleep(0.1)
    raise AssertionError(f"pid {parent} ran no fio in {timeout} s")


def test_the_watch_says_a_process_that_becomes_unseen_once(device: str) -> None:
    """The helper is seen when the run is inspected (its capabilities are nastui's) and
    becomes nobody while fio writes: the watch says so in one line, once, however many looks
    follow, and the run goes on until stopped; the saved record names the helper once."""
    no_ptrace_tools()
    with helper(when="later", no_ptrace=True) as pid:
        comm = Path(f"/proc/{pid}/comm").read_text().strip()
        argv = nastui(*bench_args(device, 60), "--json", "--no-save", no_ptrace=True)
        run = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            errors = Lines(run.stderr)
            fio_child(run.pid)
            os.kill(pid, signal.SIGUSR1)
            said = f"the watch could not look into 1 process: pid {pid} ("
            errors.wait_for(said, 20.0)
            time.sleep(2.0)  # four looks more
            run.send_signal(signal.SIGINT)
            assert run.stdout is not None
            document = json.loads(run.stdout.read())
            assert run.wait(60) == 130
        finally:
            run.kill()
            run.wait()
    assert document["run"]["state"] == "interrupted"
    assert [line for line in errors.lines if said in line] == [
        f"{said}{comm}), its {document_why(document, pid)} by /proc: a write it holds open "
        "would not be seen"
    ]


def document_why(document: dict[str, Any], pid: int) -> str:
    """What /proc refused of `pid`, as the JSON names it (once); its descriptors first."""
    (why,) = [p["why"] for p in named(document, pid)]
    assert why.startswith("descriptors")
    return str(why)
