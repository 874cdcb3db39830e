"""The ZFS collector through the real runner, against a fake `zpool`/`zfs` on PATH replaying
captures: JSON where `zpool status -j` works, the text otherwise, one clear line when the tool or
the kernel module is missing."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from nastui.collectors.zfs import collector as zfs
from nastui.collectors.zfs.collector import ZfsCollector
from nastui.model import CollectorError, PoolState, ScanKind
from tests.fakepools import FIXTURES, FakeTools, install, transcript

JSON = " ".join(zfs.status_json_argv()[1:])
TEXT = " ".join(zfs.status_text_argv()[1:])
LIST = " ".join(zfs.list_argv()[1:])
SPACE = " ".join(zfs.space_argv()[1:])
NO_MODULE = "The ZFS modules are not loaded.\nTry running 'modprobe zfs' as root to load them.\n"


@pytest.fixture
def tools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeTools:
    return install(tmp_path, monkeypatch)


def collect(collector: ZfsCollector) -> zfs.ZfsReport:
    return asyncio.run(collector.collect(1661844000.0))


def test_argv() -> None:
    assert zfs.status_json_argv() == ("zpool", "status", "-j", "--json-int", "-v")
    assert zfs.status_text_argv() == ("zpool", "status", "-p", "-v")
    assert zfs.list_argv() == (
        "zpool",
        "list",
        "-Hp",
        "-o",
        "name,size,allocated,fragmentation,health",
    )
    assert zfs.space_argv() == ("zfs", "list", "-Hp", "-o", "name,used,available", "-d", "0")


def test_json_where_zpool_speaks_it(tools: FakeTools) -> None:
    man = transcript((FIXTURES / "zpool/openzfs_man/zpool-status.8_L196.txt").read_text())
    tools.answer("zpool", JSON, man)
    tools.answer("zpool", LIST, "tank\t16492674416640\t67216849305\t3\tONLINE\n")
    tools.answer("zfs", SPACE, "tank\t67216849305\t12356529815552\n")
    collector = ZfsCollector()
    report = collect(collector)
    assert report.errors == ()
    (pool,) = report.pools
    assert collector.uses_json is True
    assert (pool.size_bytes, pool.allocated_bytes) == (67216849305 + 12356529815552, 67216849305)
    assert pool.fragmentation_percent == 3
    assert sorted(tools.calls) == sorted([f"zpool {JSON}", f"zpool {LIST}", f"zfs {SPACE}"])


def test_text_when_json_is_unknown_and_remembered(tools: FakeTools) -> None:
    tools.answer("zpool", JSON, "", "invalid option 'j'\nusage:\n", 2)
    tools.answer_file("zpool", TEXT, FIXTURES / "zpool/status/riemann_resilvering.txt")
    tools.answer("zpool", LIST, "tank\t10000\t5000\t-\tONLINE\n")
    tools.answer("zfs", SPACE, "tank\t4000\t3000\n")
    collector = ZfsCollector()
    (pool,) = collect(collector).pools
    assert collector.uses_json is False
    assert pool.scan is not None and pool.scan.kind is ScanKind.RESILVER
    assert (pool.size_bytes, pool.fragmentation_percent) == (7000, None)
    collect(collector)
    assert [c for c in tools.calls if c.startswith("zpool status")] == [
        f"zpool {JSON}",
        f"zpool {TEXT}",
        f"zpool {TEXT}",
    ]


# What OpenZFS 2.3.2 printed in the lab, with zfsutils installed and no module built
# (libzfs tries `modprobe zfs` itself and says so when that fails).
CANNOT_AUTOLOAD = (
    "The ZFS modules cannot be auto-loaded.\n"
    "Try running 'modprobe zfs' as root to manually load them.\n"
)


@pytest.mark.parametrize("stderr", [NO_MODULE, CANNOT_AUTOLOAD])
def test_no_kernel_module_is_one_line(tools: FakeTools, stderr: str) -> None:
    for tool, args in (("zpool", JSON), ("zpool", LIST), ("zfs", SPACE)):
        tools.answer(tool, args, "", stderr, 1)
    report = collect(ZfsCollector())
    assert report.pools == ()
    assert report.errors == (CollectorError("zfs", zfs.NO_MODULE),)


def test_not_installed_is_one_line(tools: FakeTools) -> None:
    report = collect(ZfsCollector())
    assert report.errors == (CollectorError("zfs", zfs.NOT_INSTALLED),)


def test_no_pools(tools: FakeTools) -> None:
    tools.answer("zpool", JSON, "", "no pools available\n", 0)
    tools.answer("zpool", LIST, "", "no pools available\n", 0)
    tools.answer("zfs", SPACE, "", "no datasets available\n", 0)
    assert collect(ZfsCollector()) == zfs.ZfsReport()


def test_unreadable_text_keeps_the_pool_and_names_the_line(tools: FakeTools) -> None:
    tools.answer("zpool", JSON, "", "invalid option 'j'\n", 2)
    tools.answer_file("zpool", TEXT, FIXTURES / "zpool/status/libzetta/mod.rs_L543_stdout.txt")
    tools.answer("zpool", LIST, "")
    tools.answer("zfs", SPACE, "")
    report = collect(ZfsCollector())
    (pool,) = report.pools
    assert (pool.name, pool.state.value) == ("P01", "DEGRADED")
    assert any("line 17" in n for n in pool.notes)


def test_text_before_any_pool_is_one_error_line(tools: FakeTools) -> None:
    tools.answer("zpool", JSON, "", "invalid option 'j'\n", 2)
    text = (FIXTURES / "zpool/status/riemann_degraded.txt").read_text()
    tools.answer("zpool", TEXT, "garbage first\n" + text)
    tools.answer("zpool", LIST, "")
    tools.answer("zfs", SPACE, "")
    report = collect(ZfsCollector())
    assert [p.name for p in report.pools] == ["tank"]
    assert report.errors[0] == CollectorError(
        "zfs", "zpool status line 1: unexpected line outside a pool: 'garbage first'"
    )


def test_degraded_text_pool_keeps_its_tree(tools: FakeTools) -> None:
    tools.answer("zpool", JSON, "", "unrecognized option '--json-int'\n", 2)
    tools.answer_file("zpool", TEXT, FIXTURES / "zpool/status/libzetta/mod.rs_L495_stdout.txt")
    tools.answer("zpool", LIST, "sparepool\t1\t1\t1\tDEGRADED\n")
    tools.answer("zfs", SPACE, "sparepool\t1\t1\n")
    (pool,) = collect(ZfsCollector()).pools
    assert pool.state is PoolState.DEGRADED
    assert pool.status_text is not None and "faulted in response to persistent errors" in (
        pool.status_text
    )
