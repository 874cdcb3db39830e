"""The IPMI collector against a real BMC emulator: OpenIPMI's `ipmi_sim` serving a temperature
sensor (polled from a file) and a fan (set from its console), read with ipmitool over lanplus on
127.0.0.1, the values changing while the test runs. Configuration in tests/fixtures/ipmi/lab.
(Vendor OEM fan commands are not emulated: the drivers' argv is asserted in unit tests.)"""

from __future__ import annotations

import socket
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from nastui.collectors import runner
from nastui.collectors.fans import FanCollector
from nastui.collectors.ipmi import IpmiTarget
from nastui.config import Config, PollConfig
from nastui.control.locate import NoLocator
from nastui.model import Fan, HostSnapshot, Sensor
from nastui.selftest.io.tester import SmartctlTester
from nastui.session import Session
from nastui.sim.clock import FakeClock
from nastui.swap.io.machine import MachineSwap
from tests.conftest import REPO, require_tool
from tests.waiting import wait_for

pytestmark = pytest.mark.integration

LAB = REPO / "tests" / "fixtures" / "ipmi" / "lab"


def free_port(kind: int) -> int:
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass
class Bmc:
    """A running ipmi_sim: its LAN port, console port and state directory."""

    lan: int
    console: int
    state: Path

    @property
    def target(self) -> IpmiTarget:
        return IpmiTarget("127.0.0.1", self.lan, "admin", "secret")

    def set_temperature(self, celsius: int) -> None:
        (self.state / "baytemp.val").write_text(f"{celsius}\n")

    def command(self, line: str) -> str:
        """One line to the emulator console (prompt "> "); returns what it answered."""
        with socket.create_connection(("127.0.0.1", self.console), timeout=5) as conn:
            conn.settimeout(5)
            self._until_prompt(conn)
            conn.sendall(line.encode() + b"\n")
            return self._until_prompt(conn)

    @staticmethod
    def _until_prompt(conn: socket.socket) -> str:
        seen = b""
        while not seen.endswith(b"> "):
            chunk = conn.recv(4096)
            if not chunk:
                break
            seen += chunk
        return seen.decode("latin-1")


@pytest.fixture
def bmc(tmp_path: Path) -> Iterator[Bmc]:
    ipmi_sim = require_tool("ipmi_sim", "openipmi")
    sdrcomp = require_tool("sdrcomp", "openipmi")
    require_tool("ipmitool", "ipmitool")
    state = tmp_path / "state"
    sdr_dir = state / "ipmi_sim" / "labbmc"
    sdr_dir.mkdir(parents=True)
    subprocess.run(
        [sdrcomp, "-o", str(sdr_dir / "sdr.20.main"), str(LAB / "nas.sdrs")], check=True, timeout=30
    )
    lan, console = free_port(socket.SOCK_DGRAM), free_port(socket.SOCK_STREAM)
    conf = (LAB / "lan.conf").read_text()
    conf = conf.replace("127.0.0.1 19623", f"127.0.0.1 {lan}")
    conf = conf.replace("127.0.0.1 19624", f"127.0.0.1 {console}")
    (tmp_path / "lan.conf").write_text(conf)
    (tmp_path / "nas.emu").write_text((LAB / "nas.emu").read_text().replace("@STATE@", str(state)))
    bmc = Bmc(lan, console, state)
    bmc.set_temperature(41)
    with (tmp_path / "ipmi_sim.log").open("wb") as log:
        proc = subprocess.Popen(
            [ipmi_sim, "-c", str(tmp_path / "lan.conf"), "-f", str(tmp_path / "nas.emu"),
             "-s", str(state), "-n"],
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        )  # fmt: skip
    try:
        _wait_until_up(bmc, proc)
        wait_for_reading(bmc, "41 degrees C")  # the file is first polled a second after start
        yield bmc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


def _sdr_list(bmc: Bmc) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*bmc.target.base(), "sdr", "list"], capture_output=True, text=True,
        env={"IPMI_PASSWORD": "secret"}, timeout=20, check=False,
    )  # fmt: skip


def _wait_until_up(bmc: Bmc, proc: subprocess.Popen[bytes]) -> None:
    def up() -> bool:
        assert proc.poll() is None, "ipmi_sim exited at start"
        result = _sdr_list(bmc)
        return result.returncode == 0 and "Bay Temp" in result.stdout

    wait_for(up, step=0.3, what="ipmi_sim answering over lanplus")


def wait_for_reading(bmc: Bmc, what: str) -> None:
    """Until `ipmitool sdr list` shows `what` (ipmi_sim polls the file once a second)."""
    wait_for(lambda: what in _sdr_list(bmc).stdout, step=0.2, what=f"the BMC showing {what!r}")


class FansOnly:
    """A backend of nothing but the fan collector (as LocalBackend adds it)."""

    def __init__(self, fans: FanCollector, clock: FakeClock) -> None:
        self._fans = fans
        self._clock = clock
        self.swap = MachineSwap(Path("/"), runner.run)  # the Backend's capabilities, unused
        self.tester = SmartctlTester(runner.run)

    @property
    def host(self) -> str:
        return "lab"

    def collect_at_once(self) -> None:
        return None  # collected on the event loop, as the machine's

    async def collect(self) -> HostSnapshot:
        return await self._fans.add_to(HostSnapshot("lab", self._clock.now()))


async def test_changing_bmc_readings_reach_the_snapshot_and_the_store(
    bmc: Bmc, tmp_path: Path
) -> None:
    config = Config(poll=PollConfig(fans_s=5.0, command_timeout_s=20.0))
    clock = FakeClock()
    collector = FanCollector(config, tmp_path, ipmi=bmc.target)
    session = Session(config, FansOnly(collector, clock), clock, lambda: NoLocator(""))

    first = await session.poll()
    assert first.errors == ()
    assert first.fans == (Fan("Fan1", 1200, None, driver="ipmi"),)
    assert first.sensors == (Sensor("Bay Temp", 41.0, "C", "ipmi", "ok"),)

    bmc.set_temperature(55)
    assert "sensor_set_value" in bmc.command("sensor_set_value 0x20 0 2 70 0")
    wait_for_reading(bmc, "55 degrees C")
    clock.advance(2.0)
    cached = await session.poll()  # within poll.fans: the last BMC reading, no ipmitool run
    assert cached.fans == first.fans
    clock.advance(5.0)
    second = await session.poll()
    assert second.fans == (Fan("Fan1", 3500, None, driver="ipmi"),)
    assert second.sensors == (Sensor("Bay Temp", 55.0, "C", "ipmi", "ucr"),)  # upper critical

    history = session.store.history("lab", "fan:Fan1")
    assert [rpm for _, rpm in history] == [1200.0, 1200.0, 3500.0]
    assert [c for _, c in session.store.history("lab", "sensor:Bay Temp")][-1] == 55.0


async def test_wrong_password_is_an_error_not_a_crash(bmc: Bmc, tmp_path: Path) -> None:
    target = IpmiTarget("127.0.0.1", bmc.lan, "admin", "wrong")
    config = Config(poll=PollConfig(command_timeout_s=20.0))
    report = await FanCollector(config, tmp_path, ipmi=target).collect(1.0)
    assert report.fans == () and report.sensors == ()
    assert report.errors[0].source == "ipmi"
    assert report.errors[0].message.startswith("IPMI: ipmitool exited 1")
