"""`btrfs scrub status` of btrfs-progs 4.0 and 5.4, captured on loop devices here (see the
fixtures' PROVENANCE.md), through the parser and through the collector with a 5.4 `btrfs` that
has no `--raw`: every format keeps the filesystem, its scrub state, sizes and error counts."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from nastui.collectors.btrfs import collector as btrfs
from nastui.collectors.btrfs.collector import BtrfsCollector
from nastui.collectors.btrfs.scrub import BtrfsScrub, parse_scrub_status
from nastui.model import ScanState
from tests.fakepools import FIXTURES, FakeTools, install, write

PROGS = FIXTURES / "btrfs/progs"
MIB = 1 << 20


def scrub(name: str) -> BtrfsScrub:
    found = parse_scrub_status((PROGS / f"btrfs_scrub_{name}.txt").read_text())
    assert found.notes == []
    return found


# (capture, state, duration, bytes done, errors)
CASES = [
    ("v4.0_status__running", "running", 5, round(408.16 * MIB), 4096),
    ("v4.0_status__canceled", "canceled", 7, round(573.16 * MIB), 4096),
    ("v4.0_status__finished", "finished", 0, round(801.16 * MIB), 0),
    ("v4.0_start_-B__finished", "finished", 0, round(801.16 * MIB), 0),
    ("v4.0_status_-R__running", "running", 5, 426770432 + 1212416, 4096),
    ("v4.0_status_-d__running", "running", 5, 2 * round(204.08 * MIB), 4096),
    ("v4.0_status_-d__finished", "finished", 0, 2 * round(400.58 * MIB), 0),
    ("v5.4_status__running", "running", 5, round(408.03 * MIB), 4096),
    ("v5.4_status__canceled", "canceled", 8, None, 4096),
    ("v5.4_status__finished", "finished", 0, None, 0),
    ("v5.4_start_-B__finished", "finished", 0, None, 0),
    ("v5.4_status_-R__running", "running", 5, 426770432 + 1081344, 4096),
    ("v5.4_status_-d__running", "running", 5, 2 * round(204.02 * MIB), 4096),
    ("v5.4_status_-d__finished", "finished", 0, None, 0),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c[0])
def test_capture(case: tuple[str, str, int, int | None, int]) -> None:
    name, state, duration, done, errors = case
    found = scrub(name)
    assert (found.state, found.duration_s, found.bytes_done, found.errors) == (
        state,
        duration,
        done,
        errors,
    )


def test_54_running_percent_from_total_and_time_left() -> None:
    found = scrub("v5.4_status__running")  # "Bytes scrubbed:   408.03MiB", no (NN%)
    assert found.bytes_total == round(801.16 * MIB) and found.time_left_s == 4
    assert found.percent is not None and round(found.percent, 1) == 50.9


def test_4_0_per_device_counters_add_up() -> None:
    found = scrub("v4.0_status_-d__running")
    assert found.counters["corrected_errors"] == 4096 and found.total_errors == 4096


@pytest.fixture
def tools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeTools:
    return install(tmp_path, monkeypatch)


def test_collector_falls_back_to_plain_status_without_raw(tools: FakeTools, tmp_path: Path) -> None:
    uuid = "662bc71a-621b-4190-985d-d8b22d829d90"
    mnt = "/mnt/lab"
    show = (
        f"Label: 'old'  uuid: {uuid}\n\tTotal devices 2 FS bytes used 839073792\n"
        "\tdevid    1 size 1073741824 used 1052770304 path /dev/loop0\n"
        "\tdevid    2 size 1073741824 used 1052770304 path /dev/loop1\n"
    )
    tools.answer("btrfs", " ".join(btrfs.show_argv()[1:]), show)
    tools.answer("btrfs", " ".join(btrfs.stats_argv(mnt)[1:]), "")
    tools.answer("btrfs", " ".join(btrfs.replace_argv(mnt)[1:]), "Never started\n")
    unsupported = (PROGS / "btrfs_scrub_v5.4_status_--raw__unsupported_stderr.txt").read_text()
    tools.answer(
        "btrfs", " ".join(btrfs.scrub_argv(mnt, raw_counters=False)[1:]), "", unsupported, 1
    )
    for argv, name in (
        (btrfs.scrub_argv(mnt, raw_counters=True), "v5.4_status_-R__running"),
        (btrfs.plain_scrub_argv(mnt), "v5.4_status__running"),
    ):
        tools.answer_file("btrfs", " ".join(argv[1:]), PROGS / f"btrfs_scrub_{name}.txt")
    root = tmp_path / "root"
    write(root / "proc/self/mountinfo", f"43 27 0:39 / {mnt} rw - btrfs /dev/loop0 rw,subvol=/\n")
    pools, errors = asyncio.run(BtrfsCollector(root).collect(1795250400.0))
    assert errors == ()
    (pool,) = pools
    assert pool.scan is not None and pool.scan.state is ScanState.RUNNING
    assert pool.scan.bytes_total == round(801.16 * MIB)  # from the plain status
    assert pool.scan.bytes_done == 426770432 + 1081344  # exact, from -R
    assert pool.scan.eta_seconds == 4 and pool.scan.errors == 4096
