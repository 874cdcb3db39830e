"""A real NUT server on loopback for tests: upsd with the `dummy-ups` driver reading a .dev file.

Debian's nut-server puts the binaries under /lib/nut (its /sbin/upsd is a wrapper that refuses
to start unless /etc/nut/nut.conf says so); everything here runs from a private directory
(NUT_CONFPATH, NUT_STATEPATH) on a free TCP port, so it never meets a system upsd:

    lab = start_upsd(tmp_path, {"ups.status": "OL", "battery.charge": "100"})
    try:
        ...  # read "dummy@127.0.0.1:<lab.port>"
        lab.set({"ups.status": "OB DISCHRG"})  # the driver re-reads the file when it changes
    finally:
        lab.stop()
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.conftest import STRICT

NUT_LIB = Path("/lib/nut")
UPS = "dummy"


def unused_tcp_port() -> int:
    """A loopback TCP port that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _binary(name: str) -> str:
    path = NUT_LIB / name
    if not os.access(path, os.X_OK):
        message = f"{path} not installed (Debian packages nut-server and nut-client)"
        if STRICT:
            pytest.fail(message)
        pytest.skip(message)
    return str(path)


@dataclass
class NutLab:
    """A running upsd + dummy-ups; `set` rewrites the UPS's variables."""

    port: int
    dev: Path
    work: Path
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def set(self, values: Mapping[str, str]) -> None:
        """Write the .dev file the driver reads (atomically, so it never reads half of it)."""
        tmp = self.dev.with_suffix(".tmp")
        tmp.write_text("".join(f"{k}: {v}\n" for k, v in values.items()), encoding="utf-8")
        tmp.chmod(0o644)
        tmp.replace(self.dev)

    def stop(self) -> None:
        """Stop upsd, then the driver."""
        for proc in reversed(self.procs):
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        self.procs.clear()

    def log(self) -> str:
        """The tail of both logs, for a failure message."""
        parts = [
            f"{p.name}:\n{p.read_text(errors='replace')[-600:]}"
            for p in (self.work / "driver.log", self.work / "upsd.log")
            if p.exists()
        ]
        return "\n".join(parts)


def _answers(port: int) -> bool:
    """Whether upsd serves the dummy UPS with data: not an ERR (DATA-STALE,
    DRIVER-NOT-CONNECTED) and not the "WAIT" status of a driver still starting."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as sock:
            sock.sendall(f"GET VAR {UPS} ups.status\n".encode())
            answer = sock.recv(4096)
            return answer.startswith(b"VAR ") and b'"WAIT"' not in answer
    except OSError:
        return False


def start_upsd(work: Path, values: Mapping[str, str]) -> NutLab:
    """upsd serving UPS "dummy" with `values` on 127.0.0.1, waiting until it answers."""
    driver, upsd = _binary("dummy-ups"), _binary("upsd")
    work.mkdir(parents=True, exist_ok=True)
    state = work / "state"
    state.mkdir(exist_ok=True)
    lab = NutLab(unused_tcp_port(), work / "dummy.dev", work)
    lab.set(values)
    (work / "ups.conf").write_text(
        f'[{UPS}]\n  driver = dummy-ups\n  port = {lab.dev}\n  pollinterval = 1\n  desc = "lab"\n'
    )
    (work / "upsd.conf").write_text(f"LISTEN 127.0.0.1 {lab.port}\n")
    (work / "upsd.users").write_text("")
    env = {**os.environ, "NUT_CONFPATH": str(work), "NUT_STATEPATH": str(state)}
    env["NUT_ALTPIDPATH"] = str(state)
    user = ["-u", "root"] if os.geteuid() == 0 else []
    deadline = time.monotonic() + 20
    _spawn(lab, [driver, "-a", UPS, "-F", *user], env, "driver.log")
    while not (state / f"dummy-ups-{UPS}").exists():  # upsd connects to the driver's socket
        _check(lab, deadline)
    _spawn(lab, [upsd, "-F", *user], env, "upsd.log")
    while not _answers(lab.port):
        _check(lab, deadline)
    return lab


def _spawn(lab: NutLab, argv: list[str], env: Mapping[str, str], log: str) -> None:
    with (lab.work / log).open("wb") as out:
        lab.procs.append(
            subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=out)
        )


def _check(lab: NutLab, deadline: float) -> None:
    """Fail (after stopping the lab) when it died or took too long; else wait a little."""
    if time.monotonic() > deadline or any(p.poll() is not None for p in lab.procs):
        lab.stop()
        pytest.fail(f"upsd never served the dummy UPS on port {lab.port}:\n{lab.log()}")
    time.sleep(0.1)
