"""The write-cache matrix: hdparm/sdparm command lines, their output read, and the original
setting put back on every way out (end, failure, stop, cancellation), with a host that records
every command and replays fio."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from nastui.bench.cache import (
    CacheError,
    WriteCacheSwitch,
    cache_tool,
    parse_setting,
    read_argv,
    set_argv,
)
from nastui.bench.guard import Place
from nastui.bench.host import SimulatedOutcome
from nastui.bench.profiles import PROFILES
from nastui.bench.replay import Recording, ReplayHost
from nastui.bench.runner import BenchRunner, SampleReady
from nastui.model import BenchTarget, DriveIdentity, RunState, TargetKind, Transport
from tests.conftest import FIXTURES

SATA = BenchTarget(
    "/dev/sdc",
    TargetKind.DEVICE,
    dev="sdc",
    identity=DriveIdentity(serial="S1", transport=Transport.SATA),
)
SAS = dataclasses.replace(SATA, identity=DriveIdentity(serial="S2", transport=Transport.SAS))
# hdparm(8) and sdparm(8) output as the tools print it.
HDPARM_ON = "\n/dev/sdc:\n write-caching =  1 (on)\n"
SDPARM_OFF = (
    "    /dev/sdd: SEAGATE   ST4000NM0023      0004\nWCE           0  [cha: y, def:  1, sav:  1]\n"
)


@contextlib.contextmanager
def no_device(target: BenchTarget, run_id: str, *, writing: bool) -> Iterator[Place]:
    """The guarded workspace, minus the device (there is no /dev/sdc here)."""
    yield Place(target.path)


def bench(host: ReplayHost, **kwargs: Any) -> BenchRunner:
    return BenchRunner(host, host_name="t", runs_dir=None, guarded=no_device, **kwargs)


class DriveHost(ReplayHost):
    """Replays fio and plays a drive whose write cache hdparm reads and sets."""

    def __init__(self, *, cache: bool = True, fail_set: bool = False) -> None:
        super().__init__([Recording.load(FIXTURES / "fio" / "randread-4k-qd4-3s.jsonplus")])
        self.cache, self.fail_set = cache, fail_set
        self.commands: list[tuple[str, ...]] = []

    async def run(self, argv: Sequence[str], *, timeout: float) -> SimulatedOutcome:
        args = tuple(argv)
        self.commands.append(args)
        if args[1] == "-W":
            return SimulatedOutcome(0, stdout=f" write-caching =  {int(self.cache)} (x)\n")
        if self.fail_set:
            return SimulatedOutcome(5, error="hdparm exited 5: HDIO_SET_WCACHE failed")
        self.cache = args[1] == "-W1"
        return SimulatedOutcome(0)


def test_tools_and_argv() -> None:
    assert cache_tool(SATA) == "hdparm"
    assert cache_tool(SAS) == "sdparm"
    nvme = dataclasses.replace(SATA, identity=DriveIdentity(transport=Transport.NVME))
    assert cache_tool(nvme) is None
    assert cache_tool(dataclasses.replace(SATA, kind=TargetKind.DIRECTORY)) is None
    assert read_argv("hdparm", "/dev/sdc") == ("hdparm", "-W", "/dev/sdc")
    assert set_argv("hdparm", "/dev/sdc", False) == ("hdparm", "-W0", "/dev/sdc")
    assert read_argv("sdparm", "/dev/sdd") == ("sdparm", "--get=WCE", "/dev/sdd")
    assert set_argv("sdparm", "/dev/sdd", True) == ("sdparm", "--set=WCE=1", "/dev/sdd")
    assert parse_setting("hdparm", HDPARM_ON) is True
    assert parse_setting("sdparm", SDPARM_OFF) is False
    assert parse_setting("hdparm", "HDIO_GET_WCACHE failed") is None


async def test_matrix_switches_and_restores_the_original() -> None:
    host = DriveHost(cache=False)
    settings = dataclasses.replace(PROFILES["randrw"].defaults, cache_matrix=True)
    run = await bench(host).run(settings, SATA, confirm="S1")
    assert run.state is RunState.COMPLETE, run.message
    assert [s.cache for s in run.steps] == ["on", "off"]
    assert host.cache is False  # found off, left off
    sets = [c for c in host.commands if c[1] != "-W"]
    assert sets == [("hdparm", "-W1", "/dev/sdc"), ("hdparm", "-W0", "/dev/sdc")]
    assert "write cache restored to off" in run.message


async def test_restored_when_stopped_mid_run() -> None:
    host = DriveHost(cache=False)
    stop = asyncio.Event()

    def on_event(event: object) -> None:
        if isinstance(event, SampleReady):
            stop.set()

    settings = dataclasses.replace(PROFILES["randrw"].defaults, cache_matrix=True)
    run = await bench(host, on_event=on_event).run(settings, SATA, confirm="S1", stop=stop)
    assert run.state is RunState.INTERRUPTED
    assert host.cache is False
    assert host.commands[-3:] == [
        ("hdparm", "-W", "/dev/sdc"),
        ("hdparm", "-W0", "/dev/sdc"),
        ("hdparm", "-W", "/dev/sdc"),
    ]


async def test_restored_when_cancelled() -> None:
    host = DriveHost(cache=False)
    host.pace = 0.2
    settings = dataclasses.replace(PROFILES["randrw"].defaults, cache_matrix=True)
    task = asyncio.ensure_future(bench(host).run(settings, SATA, confirm="S1"))
    await asyncio.sleep(0.3)
    assert host.cache is True  # switched on for the first half
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert host.cache is False


async def test_failed_switch_fails_the_run_and_says_so() -> None:
    host = DriveHost(cache=True, fail_set=True)
    settings = dataclasses.replace(PROFILES["randrw"].defaults, cache_matrix=True)
    run = await bench(host).run(settings, SATA, confirm="S1")
    assert run.state is RunState.FAILED
    assert "not switched" in run.message


async def test_restore_failure_is_reported_with_the_command() -> None:
    host = DriveHost(cache=True)
    switch = WriteCacheSwitch(host, SATA)
    await switch.switch(False)
    host.fail_set = True
    note = await switch.restore()
    assert note is not None and "hdparm -W1 /dev/sdc" in note


def test_unswitchable_devices_are_refused() -> None:
    loop = BenchTarget("/dev/loop3", TargetKind.DEVICE, dev="loop3")
    with pytest.raises(CacheError, match="cannot be switched"):
        WriteCacheSwitch(DriveHost(), loop)
