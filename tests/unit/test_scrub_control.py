"""Scrub actions: the argv each tool gets, the results they turn into, md's sysfs write, the
libzfs_core path through pyzfs (a stand-in module here: no ZFS on this machine), and the
simulator's scrubs."""

from __future__ import annotations

import asyncio
import errno
import importlib.abc
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from nastui.collectors.runner import run
from nastui.control import scrub_zfs
from nastui.control.scrub import (
    LocalScrubber,
    NoScrubber,
    btrfs_argv,
    md_sync_action,
    scrubber_for,
    zfs_argv,
)
from nastui.model import Pool, PoolKind, PoolState, ScanState, ScrubAction, ScrubResult, Vdev
from nastui.sim import SimBackend
from nastui.sim.backend import SimScrubber
from tests.fakepools import FakeTools, install

NO_PYZFS = "pyzfs (python3-pyzfs) is not installed"


def pool(name: str, kind: PoolKind, mountpoint: str | None = None) -> Pool:
    root = Vdev(name, "root", PoolState.ONLINE)
    return Pool(name, kind, PoolState.ONLINE, root, mountpoint=mountpoint)


TANK = pool("tank", PoolKind.ZFS)
FAST = pool("fast", PoolKind.BTRFS, "/srv/fast")
MD0 = pool("md0", PoolKind.MDRAID)


@pytest.fixture
def tools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeTools:
    return install(tmp_path, monkeypatch)


def act(scrubber: Any, target: Pool, action: ScrubAction) -> ScrubResult:
    result = asyncio.run(scrubber.scrub(target, action))
    assert isinstance(result, ScrubResult)
    return result


def test_argv() -> None:
    assert zfs_argv("tank", ScrubAction.START) == ("zpool", "scrub", "tank")
    assert zfs_argv("tank", ScrubAction.PAUSE) == ("zpool", "scrub", "-p", "tank")
    assert zfs_argv("tank", ScrubAction.STOP) == ("zpool", "scrub", "-s", "tank")
    assert btrfs_argv("/m", ScrubAction.START) == ("btrfs", "scrub", "start", "/m")
    assert btrfs_argv("/m", ScrubAction.STOP) == ("btrfs", "scrub", "cancel", "/m")
    assert btrfs_argv("/m", ScrubAction.PAUSE) is None
    assert [md_sync_action(a) for a in ScrubAction] == ["check", None, "idle"]
    assert scrub_zfs.lzc_scrub_args(ScrubAction.START) == {"scan_type": 1, "scan_command": 0}
    assert scrub_zfs.lzc_scrub_args(ScrubAction.PAUSE) == {"scan_type": 1, "scan_command": 1}
    assert scrub_zfs.lzc_scrub_args(ScrubAction.STOP) == {"scan_type": 0, "scan_command": 0}


def test_zpool_scrub_when_pyzfs_is_missing(tools: FakeTools) -> None:
    tools.answer("zpool", "scrub -p tank")
    result = act(LocalScrubber(run, lzc=NO_PYZFS), TANK, ScrubAction.PAUSE)
    assert result == ScrubResult(
        "tank", ScrubAction.PAUSE, True, "zpool scrub",
        f"tank: scrub paused ({NO_PYZFS}; used zpool scrub)",
    )  # fmt: skip
    assert tools.calls == ["zpool scrub -p tank"]


def test_zpool_refusals(tools: FakeTools) -> None:
    busy = "cannot scrub tank: currently scrubbing; use 'zpool scrub -s' to cancel current scrub\n"
    tools.answer("zpool", "scrub tank", "", busy, 1)
    result = act(LocalScrubber(run, lzc=NO_PYZFS), TANK, ScrubAction.START)
    assert (result.ok, result.permission, result.supported) == (False, True, True)
    assert result.message == (
        "tank: scrub not started: cannot scrub tank: currently scrubbing; use 'zpool scrub -s' "
        "to cancel current scrub"
    )
    tools.answer(
        "zpool", "scrub -s tank", "", "cannot cancel scrubbing tank: permission denied\n", 1
    )
    denied = act(LocalScrubber(run, lzc=NO_PYZFS), TANK, ScrubAction.STOP)
    assert (denied.ok, denied.permission) == (False, False)
    assert denied.message.endswith("(run as root)")


def test_zpool_missing(tools: FakeTools) -> None:
    result = act(LocalScrubber(run, lzc=NO_PYZFS), TANK, ScrubAction.START)
    assert (result.ok, result.message) == (False, "tank: zpool not found, nothing done")


def test_btrfs_start_and_cancel(tools: FakeTools) -> None:
    started = "scrub started on /srv/fast, fsid 2d4437b9-11a5-4e65-9031-e57637c90167 (pid=1)\n"
    tools.answer("btrfs", "scrub start /srv/fast", started)
    tools.answer(
        "btrfs",
        "scrub cancel /srv/fast",
        "",
        "ERROR: scrub cancel failed on /srv/fast: not running\n",
        2,
    )
    scrubber = LocalScrubber(run)
    assert act(scrubber, FAST, ScrubAction.START).message == "fast: scrub started (btrfs scrub)"
    stopped = act(scrubber, FAST, ScrubAction.STOP)
    assert not stopped.ok
    assert (
        stopped.message
        == "fast: scrub not stopped: ERROR: scrub cancel failed on /srv/fast: not running"
    )
    assert tools.calls == ["btrfs scrub start /srv/fast", "btrfs scrub cancel /srv/fast"]


def test_pause_where_there_is_none_and_unmounted_btrfs() -> None:
    for target in (FAST, MD0):
        result = act(LocalScrubber(run), target, ScrubAction.PAUSE)
        assert (result.ok, result.supported, result.method) == (False, False, "none")
    unmounted = act(LocalScrubber(run), pool("x", PoolKind.BTRFS), ScrubAction.START)
    assert unmounted.message == "x is not mounted: btrfs scrubs a mounted filesystem"


def test_md_check_through_sysfs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    action = tmp_path / "sys/block/md0/md/sync_action"
    action.parent.mkdir(parents=True)
    action.write_text("idle\n")
    scrubber = LocalScrubber(run, tmp_path)
    started = act(scrubber, MD0, ScrubAction.START)
    assert (started.ok, started.method, action.read_text()) == (True, "md sysfs", "check\n")
    assert started.message == "md0: check started (sync_action=check)"
    assert act(scrubber, MD0, ScrubAction.STOP).ok and action.read_text() == "idle\n"

    def refuse(self: Path, *args: object, **kwargs: object) -> int:
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(Path, "write_text", refuse)
    denied = act(scrubber, MD0, ScrubAction.START)
    assert (denied.ok, denied.permission) == (False, False)
    assert "needs root" in denied.message


def test_md_busy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def busy(self: Path, *args: object, **kwargs: object) -> int:
        raise OSError(errno.EBUSY, "Device or resource busy")

    monkeypatch.setattr(Path, "write_text", busy)
    result = act(LocalScrubber(run, tmp_path), MD0, ScrubAction.START)
    assert result.message == "md0: check refused: another resync or check is running"


class _Lib:
    """pyzfs's raw `lib` as libzfs_core behaves: an lzc_* call before libzfs_core_init()
    aborts the process (`ASSERT ... g_fd != -1`, seen in the lab); here it raises."""

    def __init__(self, codes: list[int], missing: bool = False, init_code: int = 0) -> None:
        self.codes = codes
        self.calls: list[tuple[Any, ...]] = []
        self.missing = missing
        self.init_code = init_code
        self.inited = 0

    def __getattr__(self, name: str) -> Any:
        if name == "libzfs_core_init":
            return self.init
        if name != "lzc_scrub" or self.missing:
            raise AttributeError(name)
        return self.lzc_scrub_call

    def init(self) -> int:
        self.inited += self.init_code == 0
        return self.init_code

    def lzc_scrub_call(self, *args: Any) -> int:
        if not self.inited:
            raise AssertionError("lzc_ioctl(): g_fd != -1: libzfs_core_init() was not called")
        self.calls.append(args)
        return self.codes.pop(0)


def stand_in_pyzfs(monkeypatch: pytest.MonkeyPatch, lib: _Lib) -> list[str]:
    """A stand-in for pyzfs shaped like contrib/pyzfs (libzfs_core._nvlist.nvlist_in and
    libzfs_core.bindings.libzfs_core.{ffi, lib}), recording what nastui declares and calls."""
    declared: list[str] = []
    ffi = types.SimpleNamespace(cdef=declared.append, NULL="NULL")
    package = types.ModuleType("libzfs_core")
    nvlist = types.ModuleType("libzfs_core._nvlist")
    nvlist.nvlist_in = lambda props: ("nvlist", dict(props))  # type: ignore[attr-defined]
    bindings = types.ModuleType("libzfs_core.bindings")
    binding = types.ModuleType("libzfs_core.bindings.libzfs_core")
    binding.ffi, binding.lib = ffi, lib  # type: ignore[attr-defined]
    bindings.libzfs_core = binding  # type: ignore[attr-defined]
    for name, module in (
        ("libzfs_core", package),
        ("libzfs_core._nvlist", nvlist),
        ("libzfs_core.bindings", bindings),
        ("libzfs_core.bindings.libzfs_core", binding),
    ):
        monkeypatch.setitem(sys.modules, name, module)
    return declared


def test_libzfs_core_through_pyzfs(monkeypatch: pytest.MonkeyPatch) -> None:
    lib = _Lib([0, errno.ENOENT])
    declared = stand_in_pyzfs(monkeypatch, lib)
    scrubber = LocalScrubber(run)
    started = act(scrubber, TANK, ScrubAction.START)
    assert (started.ok, started.method) == (True, "libzfs_core")
    assert declared == [scrub_zfs.LZC_SCRUB_CDEF]
    assert lib.calls[0] == (
        0x5A57,
        b"tank",
        ("nvlist", {b"scan_type": 1, b"scan_command": 0}),
        "NULL",
    )
    stopped = act(scrubber, TANK, ScrubAction.STOP)
    assert not stopped.ok and stopped.message == (
        "tank: scrub not stopped: there is no scrub running (libzfs_core)"
    )


def test_old_kernel_module_falls_back_to_zpool(
    tools: FakeTools, monkeypatch: pytest.MonkeyPatch
) -> None:
    stand_in_pyzfs(monkeypatch, _Lib([scrub_zfs.ZFS_ERR_IOC_CMD_UNAVAIL]))
    tools.answer("zpool", "scrub tank")
    result = act(LocalScrubber(run), TANK, ScrubAction.START)
    assert (result.ok, result.method) == (True, "zpool scrub")
    assert "no scrub ioctl for libzfs_core" in result.message


def test_pyzfs_without_lzc_scrub_and_without_pyzfs(monkeypatch: pytest.MonkeyPatch) -> None:
    stand_in_pyzfs(monkeypatch, _Lib([], missing=True))
    why = scrub_zfs.load_lzc_scrub()
    assert isinstance(why, str) and why.startswith("libzfs_core has no lzc_scrub")
    for name in ("libzfs_core", "libzfs_core._nvlist", "libzfs_core.bindings"):
        monkeypatch.setitem(sys.modules, name, None)
    assert scrub_zfs.load_lzc_scrub() == NO_PYZFS


def test_libzfs_core_is_initialised_once_or_zpool_is_used(
    tools: FakeTools, monkeypatch: pytest.MonkeyPatch
) -> None:
    lib = _Lib([0, 0])
    stand_in_pyzfs(monkeypatch, lib)
    for action in (ScrubAction.START, ScrubAction.PAUSE):
        assert act(LocalScrubber(run), TANK, action).method == "libzfs_core"
    assert lib.inited == 1 and len(lib.calls) == 2
    stand_in_pyzfs(monkeypatch, _Lib([], init_code=errno.EACCES))
    tools.answer("zpool", "scrub tank")
    result = act(LocalScrubber(run), TANK, ScrubAction.START)
    assert (result.ok, result.method) == (True, "zpool scrub")
    assert "libzfs_core_init failed: Permission denied" in result.message


def test_pyzfs_whose_dependency_is_missing_says_which(monkeypatch: pytest.MonkeyPatch) -> None:
    """Debian's python3-pyzfs seen by another interpreter: pycparser without ply (found in the
    lab). The message names the missing module instead of calling pyzfs not installed."""

    class Broken(importlib.abc.MetaPathFinder):
        def find_spec(self, fullname: str, path: object, target: object = None) -> None:
            if fullname.startswith("libzfs_core"):
                raise ModuleNotFoundError("No module named 'ply'", name="ply")

    for name in ("libzfs_core", "libzfs_core._nvlist", "libzfs_core.bindings"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    monkeypatch.setattr(sys, "meta_path", [Broken(), *sys.meta_path])
    assert scrub_zfs.load_lzc_scrub() == "pyzfs unusable: No module named 'ply'"


@pytest.mark.parametrize(
    ("code", "action", "expected"),
    [(0, ScrubAction.START, (True, "ok")),
     (errno.ECANCELED, ScrubAction.START, (True, "resumed the paused scrub")),
     (errno.ENOENT, ScrubAction.PAUSE, (True, "no scrub was running")),
     (errno.EBUSY, ScrubAction.START, (False, "busy: a scrub or resilver is already running")),
     (1030, ScrubAction.START, (False, "ZFS error 1030"))],
)  # fmt: skip
def test_lzc_outcomes(code: int, action: ScrubAction, expected: tuple[bool, str]) -> None:
    assert scrub_zfs.outcome(code, action) == expected


def test_scrubber_for() -> None:
    sim = SimBackend("scrubbing")
    assert isinstance(scrubber_for(sim, run), SimScrubber)

    class Local:
        root = Path("/")

    assert isinstance(scrubber_for(Local(), run), LocalScrubber)
    assert isinstance(scrubber_for(object(), run), NoScrubber)
    result = act(NoScrubber("nope"), TANK, ScrubAction.START)
    assert (result.ok, result.message, result.supported) == (False, "nope", False)


def scan_state(sim: SimBackend, name: str) -> ScanState | None:
    found = next(p for p in sim.snapshot().pools if p.name == name)
    return found.scan.state if found.scan else None


def test_sim_pause_resume_stop_start() -> None:
    sim = SimBackend("scrubbing")
    scrubber = sim.scrubber()
    storage = sim.snapshot().pools[0]
    before = storage.scan
    assert before is not None and before.state is ScanState.RUNNING
    assert act(scrubber, storage, ScrubAction.PAUSE).message == "storage: scrub paused (simulated)"
    sim.clock.advance(3600)  # type: ignore[attr-defined]
    paused = sim.snapshot().pools[0].scan
    assert paused is not None and paused.state is ScanState.PAUSED
    assert paused.percent == pytest.approx(before.percent or 0)
    assert act(scrubber, storage, ScrubAction.START).message == "storage: scrub resumed (simulated)"
    sim.clock.advance(60)  # type: ignore[attr-defined]
    resumed = sim.snapshot().pools[0].scan
    assert resumed is not None and resumed.state is ScanState.RUNNING
    assert (resumed.percent or 0) > (before.percent or 0)
    again = act(scrubber, storage, ScrubAction.START)
    assert (again.ok, again.message) == (False, "storage: a scrub is already running")
    assert act(scrubber, storage, ScrubAction.STOP).ok
    assert scan_state(sim, "storage") is ScanState.CANCELED
    assert act(scrubber, storage, ScrubAction.START).message == "storage: scrub started (simulated)"
    fresh = sim.snapshot().pools[0].scan
    assert fresh is not None and fresh.state is ScanState.RUNNING and (fresh.percent or 0) < 1


def test_sim_md_check_and_refusals() -> None:
    sim = SimBackend("mixed")
    scrubber = sim.scrubber()
    md0 = next(p for p in sim.snapshot().pools if p.name == "md0")
    paused = act(scrubber, md0, ScrubAction.PAUSE)
    assert (paused.ok, paused.supported) == (False, False)
    assert act(scrubber, md0, ScrubAction.STOP).message == "md0: there is no check running"
    assert act(scrubber, md0, ScrubAction.START).message == "md0: check started (simulated)"
    resilvering = SimBackend("resilvering")
    storage = resilvering.snapshot().pools[0]
    refused = act(resilvering.scrubber(), storage, ScrubAction.START)
    assert (refused.ok, refused.message) == (
        False,
        "storage: a resilver is running; scrubs wait for it",
    )
    unknown = act(sim.scrubber(), pool("nope", PoolKind.ZFS), ScrubAction.START)
    assert (unknown.ok, unknown.message) == (False, f"no pool nope on {sim.host}")


def _stand_in_ffi() -> Any:
    binding: Any = sys.modules["libzfs_core.bindings.libzfs_core"]
    return binding.ffi


def test_lzc_scrub_declared_once_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """The TUI makes a scrubber per action: the second one must not declare lzc_scrub again
    (cffi refuses a second cdef) nor fall back to zpool with a false reason."""
    lib = _Lib([0, 0])
    declared = stand_in_pyzfs(monkeypatch, lib)
    ffi = _stand_in_ffi()

    def cdef_once(text: str) -> None:
        if declared:
            raise RuntimeError("multiple declarations of function lzc_scrub")
        declared.append(text)

    ffi.cdef = cdef_once
    first = act(LocalScrubber(run), TANK, ScrubAction.START)
    second = act(LocalScrubber(run), TANK, ScrubAction.PAUSE)
    assert (first.method, second.method) == ("libzfs_core", "libzfs_core")
    assert declared == [scrub_zfs.LZC_SCRUB_CDEF] and len(lib.calls) == 2


def test_a_failed_declaration_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    stand_in_pyzfs(monkeypatch, _Lib([]))
    ffi = _stand_in_ffi()

    def clash(text: str) -> None:
        raise RuntimeError("clash")

    ffi.cdef = clash
    assert scrub_zfs.load_lzc_scrub() == "cannot declare lzc_scrub on pyzfs's FFI: clash"
