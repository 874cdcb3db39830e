"""A real `nastui daemon` process on a fake machine, for tests that attack it from outside.

`DaemonRig` builds a fake /sys tree (two SATA disks with drivetemp sensors, under `--root`), a
configuration whose exec hook appends one JSON line per notice it is given to `notices.log`
(wall time, host, kind, key, the notice's own time), and starts the daemon with a period of
half a second and temperatures read every cycle. A test then heats a disk (`set_temp`), holds
connections open, kills the process, and reads what the hook was given.
"""

from __future__ import annotations

import json
import os
import resource
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tests.fakesys import build, wd_red_disks

HOOK = """#!{python}
import json, os, signal, sys, time
doc = json.load(sys.stdin)
time.sleep(float(sys.argv[2]))
with open(sys.argv[1], "a") as log:
    for n in doc["notices"]:
        row = [time.time(), n["host"], n["kind"], n["key"], n["at"], n["health"], os.getpid()]
        log.write(json.dumps(row) + "\\n")
order = open(sys.argv[3]).read().split()
if order and order[0] == "fail":
    sys.exit(1)
if order and order[0] == "kill":  # "kill N": SIGKILL the daemon as the Nth delivery returns
    left = int(order[1]) - 1
    open(sys.argv[3], "w").write(f"kill {{left}}" if left else "ok")
    if not left:
        os.kill(os.getppid(), signal.SIGKILL)
"""
HOT_C = 75
TEMP_KEY = "drive:WD-WCC4E0000000:temp"


@dataclass(frozen=True, slots=True)
class Told:
    """One notice the hook was given."""

    wall: float
    host: str
    kind: str
    key: str
    at: float
    health: str
    batch: int  # the hook's process id: one per delivery


class DaemonRig:
    """A fake box, its configuration and hook, and the daemon run on them."""

    def __init__(
        self,
        base: Path,
        *,
        hook_delay: float = 0.0,
        extra_config: str = "",
        scenario: str | None = None,
    ) -> None:
        """`scenario`: run the simulator's (several hosts, one batch each) instead of the
        fake box."""
        self.base = base
        base.mkdir(parents=True, exist_ok=True)
        self.extra_env: dict[str, str] = {}  # on top of the test's environment
        self.scenario = scenario
        self.state = base / "state"
        self.log = base / "notices.log"
        self.switch = base / "hook-switch"  # "fail": exit 1 after logging; "kill N": see HOOK
        self.switch.write_text("ok")
        disks = wd_red_disks(2, step_millic=0)
        self.root = build(base / "root", disks)
        (self.root / "etc").mkdir()
        (self.root / "etc/hostname").write_text("fakebox\n")
        (self.root / "proc").mkdir()
        (self.root / "proc/diskstats").write_text(
            "   8       0 sda 1 2 3 4 5 6 7 8 0 10 11\n   8      16 sdb 1 2 3 4 5 6 7 8 0 10 11\n"
        )
        script = base / "hook.py"
        script.write_text(HOOK.format(python=sys.executable))
        script.chmod(0o755)
        argv = ", ".join(f'"{a}"' for a in (script, self.log, str(hook_delay), self.switch))
        self.config = base / "config.toml"
        self.config.write_text(
            "[poll]\ntemperature = 0.5\nsmart = 3600\npools = 0.5\n\n"
            f"[alerts]\nrepeat_interval = 86400\nexec = [{argv}]\n{extra_config}"
        )

    def set_temp(self, celsius: int, disk: int = 0) -> None:
        """The drivetemp reading of disk `disk` from now on."""
        hwmon = self.root / "sys/class/hwmon" / f"hwmon{disk}" / "temp1_input"
        hwmon.write_text(f"{celsius * 1000}\n")

    def env(self) -> dict[str, str]:
        state = {"NASTUI_STATE_DIR": str(self.state), "NO_COLOR": "1"}
        env = {**os.environ, **state, **self.extra_env}
        env.pop("NASTUI_CONFIG", None)
        return env

    def argv(self, *args: str) -> list[str]:
        source = ["--scenario", self.scenario] if self.scenario else ["--root", str(self.root)]
        return [
            sys.executable,
            "-m",
            "nastui",
            *source,
            "--config",
            str(self.config),
            "daemon",
            "--period",
            "0.5",
            *args,
        ]

    def start(
        self, *args: str, files: int | None = None, out: Path | None = None
    ) -> subprocess.Popen[str]:
        """The daemon, its output to `out` (default daemon.out in the base directory);
        `files`: its RLIMIT_NOFILE (soft and hard)."""
        with (out or self.base / "daemon.out").open("a") as target:
            proc = subprocess.Popen(
                self.argv(*args), stdout=target, stderr=subprocess.STDOUT, text=True, env=self.env()
            )
        if files:  # before Python has even imported nastui
            resource.prlimit(proc.pid, resource.RLIMIT_NOFILE, (files, files))
        return proc

    def run(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            self.argv(*args),
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )

    def output(self) -> str:
        path = self.base / "daemon.out"
        return path.read_text(errors="replace") if path.exists() else ""

    def told(self) -> list[Told]:
        if not self.log.exists():
            return []
        return [Told(*json.loads(line)) for line in self.log.read_text().splitlines() if line]

    def wait_for(self, check: Callable[[], bool], timeout: float) -> bool:
        """Poll `check` every 50 ms until it holds or `timeout` passes (a bound, not a
        measurement)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if check():
                return True
            time.sleep(0.05)
        return check()

    def metrics_url(self, timeout: float = 60) -> str:
        """The /metrics URL from the daemon's start line."""
        found: list[str] = []

        def named() -> bool:
            found[:] = [
                line.split()[2]
                for line in self.output().splitlines()
                if line.startswith("metrics: serving ")
            ]
            return bool(found)

        assert self.wait_for(named, timeout), self.output()
        return found[0]


def stop(proc: subprocess.Popen[str], timeout: float = 30) -> int:
    """SIGTERM, then SIGKILL if it does not go; its exit status."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return proc.returncode


def keys(told: Sequence[Told], kind: str | None = None) -> list[str]:
    return [t.key for t in told if kind is None or t.kind == kind]


def port_of(url: str) -> int:
    return int(url.rsplit(":", 1)[1].split("/", maxsplit=1)[0])


def hold(port: int, count: int) -> list[socket.socket]:
    """`count` connections that never send a byte (each connect waits at most 5 s)."""
    held = []
    for _ in range(count):
        sock = socket.socket()
        sock.settimeout(5)
        try:
            sock.connect(("127.0.0.1", port))
        except OSError:
            sock.close()
            continue
        held.append(sock)
    return held
