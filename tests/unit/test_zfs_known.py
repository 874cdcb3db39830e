"""What the box had decides what a ZFS that cannot be reached means: the pools in
/etc/zfs/zpool.cache (packed by OpenZFS's own libnvpair, both encodings), in the history, in
the configuration, or seen by this process. No pool ever known: ZFS is "off" in auto; pools
known: one CRITICAL line naming them, whatever the release's words."""

from __future__ import annotations

import asyncio
import gzip
import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nastui.collectors.pools import PoolCollector, PoolReport
from nastui.collectors.zfs import collector as zfs
from nastui.collectors.zfs.known import UNNAMED, KnownPools, cache_pools, packed_names
from nastui.collectors.zfs.nvlist import packed_string
from nastui.history.db import History
from nastui.model import (
    CollectorMode,
    CollectorsConfig,
    Health,
    HostSnapshot,
    Pool,
    PoolKind,
    PoolState,
    Vdev,
)
from nastui.model.errors import ParseError
from tests.fakepools import FIXTURES, FakeTools, install, md_tree
from tests.zfswords import capture

CACHE = FIXTURES / "zpool/cache"
NATIVE = (CACHE / "zpool.cache__tank_backup__native").read_bytes()
XDR = (CACHE / "zpool.cache__tank_backup__xdr").read_bytes()
# label 0 of a whole-disk vdev's partition, as OpenZFS 2.3.2 wrote it (tests/fixtures/zpool/
# PROVENANCE.md); its nvlist is 16 KiB in, XDR-encoded
LABEL = gzip.decompress((FIXTURES / "zpool/lab/vdev_label_0__2.3.2_labz.bin.gz").read_bytes())
LABEL_LIST = LABEL[16 * 1024 : 128 * 1024 - 40]
MDSTAT = (
    "Personalities : [raid1]\nmd0 : active raid1 sdb2[1] sdd3[0]\n"
    "      1046528 blocks super 1.2 [2/2] [UU]\n\nunused devices: <none>\n"
)


@pytest.fixture
def tools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeTools:
    return install(tmp_path, monkeypatch)


def zpool_says(tools: FakeTools, release: str, situation: str) -> None:
    run = capture(release, situation)
    for argv in (zfs.status_json_argv(), zfs.list_argv(), zfs.space_argv()):
        tools.answer(argv[0], " ".join(argv[1:]), run.stdout, run.text, run.returncode)


def poll(root: Path, known: KnownPools | None = None, **modes: CollectorMode) -> PoolReport:
    collector = PoolCollector(root, switches=CollectorsConfig(**modes), known_zfs=known)
    return asyncio.run(collector.collect(1000.0))


def zfs_state(report: PoolReport) -> tuple[str, str]:
    return next((s.state, s.detail) for s in report.states if s.name == "zfs")


def with_cache(root: Path, data: bytes = NATIVE) -> Path:
    (root / "etc/zfs").mkdir(parents=True, exist_ok=True)
    (root / "etc/zfs/zpool.cache").write_bytes(data)
    return root


# ---------------------------------------------------------------- zpool.cache


def test_packed_names_in_both_encodings() -> None:
    assert packed_names(NATIVE) == ("tank", "backup")
    assert packed_names(XDR) == ("tank", "backup")


@pytest.mark.parametrize("cut", [0, 3, 11, 12, 40, len(NATIVE) // 2, len(NATIVE) - 1])
def test_a_cut_cache_raises_parse_error(cut: int) -> None:
    with pytest.raises(ParseError):
        packed_names(NATIVE[:cut])


@given(st.binary(max_size=300))
def test_any_bytes_give_names_or_a_parse_error(data: bytes) -> None:
    try:
        names = packed_names(data)
    except ParseError:
        return
    assert all(isinstance(n, str) for n in names)


def test_a_labels_strings() -> None:
    assert packed_string(LABEL_LIST, "name", "label") == "labz"
    assert packed_string(LABEL_LIST, "hostname", "label") == "nastui-lab"
    assert packed_string(LABEL_LIST, "comment", "label") is None  # none in this pool
    assert packed_string(LABEL_LIST, "txg", "label") is None  # a number, not a string
    assert packed_string(XDR, "tank", "cache") is None  # an nvlist


def test_strings_are_read_from_xdr_lists_only() -> None:
    with pytest.raises(ParseError, match="not an XDR-encoded nvlist"):
        packed_string(NATIVE, "tank", "cache")


@pytest.mark.parametrize("cut", [0, 12, 40, 60, 75])
def test_a_cut_label_list_raises_parse_error(cut: int) -> None:
    with pytest.raises(ParseError):
        packed_string(LABEL_LIST[:cut], "name", "label")


@given(st.binary(max_size=300), st.integers(0, 60))
def test_any_bytes_give_a_string_none_or_a_parse_error(noise: bytes, keep: int) -> None:
    for data in (noise, LABEL_LIST[:keep] + noise):
        try:
            name = packed_string(data, "name", "label")
        except ParseError:
            continue
        assert name is None or isinstance(name, str)


def test_cache_file_readings(tmp_path: Path) -> None:
    root = tmp_path / "root"
    assert cache_pools(root) == ()
    assert cache_pools(with_cache(root, b"")) == ()  # what OpenZFS leaves when truncating
    assert cache_pools(with_cache(root)) == ("tank", "backup")
    assert cache_pools(with_cache(root, b"\x07garbage" * 4)) == (UNNAMED,)


def test_a_fifo_in_place_of_the_cache_is_not_read(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "etc/zfs").mkdir(parents=True)
    os.mkfifo(root / "etc/zfs/zpool.cache")
    assert cache_pools(root) == (UNNAMED,)  # never blocks; something is there


# ---------------------------------------------------------------- the history


def zfs_pool(name: str, kind: PoolKind = PoolKind.ZFS) -> Pool:
    return Pool(name, kind, PoolState.ONLINE, Vdev(name, "root", PoolState.ONLINE))


def test_the_history_keeps_every_zfs_pool_ever_seen(tmp_path: Path) -> None:
    history = History.open(tmp_path / "history.sqlite")
    history.record(
        HostSnapshot("nas", 1.0, pools=(zfs_pool("tank"), zfs_pool("md0", PoolKind.MDRAID)))
    )
    history.record(HostSnapshot("nas", 2.0, pools=(zfs_pool("backup"),)))
    history.record(HostSnapshot("nas", 3.0))  # the module gone: nothing is forgotten
    history.close()
    again = History.open(tmp_path / "history.sqlite", readonly=True)
    assert again.zfs_pools("nas") == ("backup", "tank")
    assert again.zfs_pools("other") == ()


def test_history_is_asked_once_per_ttl(tmp_path: Path) -> None:
    asked: list[int] = []

    def history() -> tuple[str, ...]:
        asked.append(1)
        return ("tank",)

    known = KnownPools(tmp_path, history=history, ttl=300.0)
    assert known.names(1000.0) == ("tank",)
    assert known.names(1200.0) == ("tank",)
    assert len(asked) == 1
    known.names(1400.0)
    assert len(asked) == 2


def test_configured_names_that_are_other_pools_do_not_count(tmp_path: Path) -> None:
    known = KnownPools(tmp_path, configured=("md0", "tank"))
    assert known.names(0.0, other_pools=("md0",)) == ("tank",)
    known.saw(["fast"])
    assert known.names(0.0, other_pools=("md0",)) == ("fast", "tank")


# ---------------------------------------------------------------- the decision


@pytest.mark.parametrize("release", ["2.1.11", "2.3.2"])
def test_no_module_and_nothing_known_is_off(tools: FakeTools, tmp_path: Path, release: str) -> None:
    zpool_says(tools, release, "no-module")
    report = poll(tmp_path / "root")
    assert report.errors == ()
    assert zfs_state(report)[0] == "off"


@pytest.mark.parametrize(
    ("release", "head"),
    [("2.1.11", "ZFS module not loaded"), ("2.3.2", "ZFS module cannot be loaded")],
)
def test_no_module_with_a_cache_is_critical(
    tools: FakeTools, tmp_path: Path, release: str, head: str
) -> None:
    zpool_says(tools, release, "no-module")
    report = poll(with_cache(tmp_path / "root"))
    (error,) = report.errors
    assert error.health is Health.CRITICAL
    assert error.message == (
        f"{head}: pools tank, backup not readable; a DKMS build after a kernel update?"
    )
    assert zfs_state(report) == ("on", "")


def test_switched_on_without_a_module_and_nothing_known_is_unknown(
    tools: FakeTools, tmp_path: Path
) -> None:
    zpool_says(tools, "2.3.2", "no-module")
    report = poll(tmp_path / "root", zfs=CollectorMode.ON)
    (error,) = report.errors
    assert error.health is Health.UNKNOWN
    assert error.message.startswith("ZFS kernel module cannot be loaded (zpool: ")


def test_a_container_without_dev_zfs(tools: FakeTools, tmp_path: Path) -> None:
    """The host's module shows in /sys/module, /dev/zfs is not passed through."""
    root = tmp_path / "root"
    (root / "sys/module/zfs").mkdir(parents=True)
    zpool_says(tools, "2.3.2", "no-dev-zfs")
    report = poll(root)
    assert report.errors == ()
    assert zfs_state(report)[1].startswith("/dev/zfs missing, no ZFS pool known (zpool: ")
    known = KnownPools(root, history=lambda: ("tank",))
    (error,) = poll(root, known).errors
    assert error.message == (
        "/dev/zfs missing: pools tank not readable; a container without /dev/zfs, or udev?"
    )


def test_no_permission_is_unknown_even_with_nothing_known(tools: FakeTools, tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "sys/module/zfs").mkdir(parents=True)
    zpool_says(tools, "2.3.2", "dev-zfs-0600-user")
    (error,) = poll(root).errors
    assert (error.health, error.message.split(" (")[0]) == (
        Health.UNKNOWN,
        "no permission on /dev/zfs",
    )
    assert error.message.endswith("run nastui as root")


def test_no_tools_and_no_module_with_pools_in_the_config(tmp_path: Path, tools: FakeTools) -> None:
    root = tmp_path / "root"
    md_tree(root, MDSTAT)
    known = KnownPools(root, configured=("md0", "tank"))
    report = poll(root, known)
    (error,) = report.errors
    assert error.health is Health.CRITICAL
    assert error.message == (
        "zpool and the ZFS module missing: pools tank not readable; "
        "zfsutils-linux or the zfs module removed?"
    )
    assert [p.name for p in report.pools] == ["md0"]  # the md array still shows
    assert tools.calls == []


def test_pools_seen_by_the_daemon_itself_count(tools: FakeTools, tmp_path: Path) -> None:
    """A daemon that read `tank` and then lost the module says so at once."""
    root = tmp_path / "root"
    zpool_says(tools, "2.3.2", "no-module")
    known = KnownPools(root)
    known.saw(["tank"])
    collector = PoolCollector(root, interval=0.0, known_zfs=known)
    (error,) = asyncio.run(collector.collect(1000.0)).errors
    assert error.health is Health.CRITICAL and "pools tank not readable" in error.message
