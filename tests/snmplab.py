"""Real SNMP agents on loopback for tests: net-snmp's snmpd and snmpsim serving recordings.

snmpd (Debian package snmpd), on a free UDP port, v2c community `COMMUNITY` and SNMPv3 user
`V3_USER` (authPriv: SHA `AUTH_PASSWORD`, AES `PRIV_PASSWORD`); add config lines, such as a
`pass_persist` handler, with `extra_lines`:

    port, stop = start_snmpd(tmp_path, extra_lines=["pass_persist .1.3.6.1.4.1.99999 /path/to/h"])
    try:
        ...  # poll 127.0.0.1:port
    finally:
        stop()

or the `snmpd_port` fixture (a plain snmpd, stopped after the test). Its log is
`tmp_path/snmpd.log`.

snmpsim (`make snmpsim` installs it; `$NASTUI_SNMPSIM` names another snmpsim-command-responder)
serves recordings: each `.snmprec` file is answered as the community named like the file, on
every one of `ports` UDP ports, by one process:

    ports, stop = start_snmpsim({"synology": FIXTURES / "snmp/synology.snmprec"}, ports=3)

`unused_udp_port()` gives a port nothing answers on (a dead host). Both starters wait until the
agent answers and fail the test, naming the log, if it never does.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

import pytest

from nastui.collectors.snmp_discovery import discovery_request, parse_discovery_report
from tests.conftest import STRICT, require_tool

COMMUNITY = "labro"
V3_USER = "labuser"
AUTH_PASSWORD = "authpass123"
PRIV_PASSWORD = "privpass123"
SNMPSIM_DEFAULT = "/opt/nastui-test/snmpsim/bin/snmpsim-command-responder"
Stop = Callable[[], None]


def unused_udp_port() -> int:
    """A loopback UDP port that was free a moment ago (nothing answers there)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def answers(port: int, timeout: float = 0.3) -> bool:
    """Whether an SNMP agent on 127.0.0.1:port answers an SNMPv3 discovery request."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.settimeout(timeout)
        try:
            sock.connect(("127.0.0.1", port))
            sock.send(discovery_request(4242))
            return parse_discovery_report(sock.recv(65535), 4242) is not None
        except OSError:
            return False


def _wait(ports: Sequence[int], proc: subprocess.Popen[bytes], log: Path, limit: float) -> None:
    deadline = time.monotonic() + limit
    waiting = list(ports)
    while waiting and time.monotonic() < deadline:
        if proc.poll() is not None:
            break
        waiting = [p for p in waiting if not answers(p)]
    if waiting:
        proc.kill()
        proc.wait()
        tail = log.read_text(errors="replace")[-600:] if log.exists() else "(no log)"
        pytest.fail(f"SNMP agent never answered on ports {waiting}; {log}:\n{tail}")


def _stopper(proc: subprocess.Popen[bytes], cleanup: Callable[[], None] | None = None) -> Stop:
    def stop() -> None:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if cleanup is not None:
            cleanup()

    return stop


def start_snmpd(state: Path, extra_lines: Sequence[str] = ()) -> tuple[int, Stop]:
    """A private snmpd on 127.0.0.1 (state, config and log in `state`): (port, stop)."""
    snmpd = require_tool("snmpd", "snmpd")
    state.mkdir(parents=True, exist_ok=True)
    port = unused_udp_port()
    conf = state / "snmpd.conf"
    lines = [
        f"agentAddress udp:127.0.0.1:{port}",
        f"rocommunity {COMMUNITY} 127.0.0.1",
        f"rouser {V3_USER} authpriv",
        f'createUser {V3_USER} SHA "{AUTH_PASSWORD}" AES "{PRIV_PASSWORD}"',
        "sysDescr Lab NAS test agent",
        "sysLocation rack-1",
        "sysContact root@localhost",
        *extra_lines,
    ]
    conf.write_text("\n".join(lines) + "\n", encoding="utf-8")
    log = state / "snmpd.log"
    env = {**os.environ, "MIBS": "", "SNMP_PERSISTENT_DIR": str(state)}
    argv = [snmpd, "-f", "-Lf", str(log), "-C", "-c", str(conf), "-p", str(state / "snmpd.pid")]
    argv += ["-I", "-smux"]  # smux wants TCP port 199, which another snmpd may hold
    proc = subprocess.Popen(
        argv,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _wait([port], proc, log, 10.0)
    return port, _stopper(proc)


def snmpsim_path() -> str:
    """snmpsim-command-responder, or skip (fail under NASTUI_REQUIRE_INTEGRATION=1)."""
    path = os.environ.get("NASTUI_SNMPSIM", SNMPSIM_DEFAULT)
    if not os.access(path, os.X_OK):
        message = f"snmpsim not installed at {path} (as root: make snmpsim; or set NASTUI_SNMPSIM)"
        if STRICT:
            pytest.fail(message)
        pytest.skip(message)
    return path


def start_snmpsim(
    recordings: Mapping[str, Path], ports: int | Sequence[int] = 1, startup_s: float = 60.0
) -> tuple[list[int], Stop]:
    """snmpsim serving `recordings` (community -> .snmprec file) on loopback: (ports, stop).

    Args:
        recordings: each file is answered as its community, on every port.
        ports: how many free ports to listen on, or the exact ports.
        startup_s: how long indexing the recordings may take.
    """
    responder = snmpsim_path()
    # As root snmpsim drops to nobody, who must read the data and write the index cache:
    # tmp_path (mode 0700) will not do.
    work = Path(tempfile.mkdtemp(prefix="nastui-snmpsim-"))
    data, cache = work / "data", work / "cache"
    data.mkdir()
    cache.mkdir()
    for community, path in recordings.items():
        shutil.copyfile(path, data / f"{community}.snmprec")
    for path in (work, data, *data.iterdir()):
        path.chmod(0o755 if path.is_dir() else 0o644)
    cache.chmod(0o777)
    chosen = [unused_udp_port() for _ in range(ports)] if isinstance(ports, int) else list(ports)
    log = work / "snmpsim.log"
    argv = [responder, f"--data-dir={data}", f"--cache-dir={cache}", "--log-level=error"]
    argv += [f"--logging-method=file:{log}"]
    argv += [f"--agent-udpv4-endpoint=127.0.0.1:{port}" for port in chosen]
    if os.geteuid() == 0:
        argv += ["--process-user=nobody", "--process-group=nogroup"]
        log.touch()
        log.chmod(0o666)
    proc = subprocess.Popen(
        argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _wait(chosen, proc, log, startup_s)
    return chosen, _stopper(proc, lambda: shutil.rmtree(work, ignore_errors=True))


@pytest.fixture
def snmpd_port(tmp_path: Path) -> Iterator[int]:
    """A plain lab snmpd for one test: its UDP port on 127.0.0.1."""
    port, stop = start_snmpd(tmp_path / "snmpd")
    try:
        yield port
    finally:
        stop()
