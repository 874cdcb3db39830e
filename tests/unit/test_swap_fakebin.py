"""The swap's writes through the real runner against fake `zpool`, `mdadm` and `sgdisk` on PATH:
the exact calls, in order, and a failing call stops the rest."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from nastui.collectors import runner
from nastui.swap.io.machine import run_ops
from nastui.swap.logic.argv import argv_for
from nastui.swap.logic.names import Op, Stage
from nastui.swap.logic.plan import make_plan
from tests.fakepools import FakeTools, install
from tests.swapcorpus import md_snapshot, zpool_snapshot
from tests.unit.test_swap_plan import key_of

NEW_DISK = "/dev/disk/by-id/ata-NEW_4TB_N1"


@pytest.fixture
def tools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeTools:
    return install(tmp_path, monkeypatch)


def answer_all(tools: FakeTools, ops: list[Op]) -> list[str]:
    """Make every op's command succeed; the calls expected, "tool args"."""
    expected = []
    for op in ops:
        argv = argv_for(op)
        tools.answer(argv[0], " ".join(argv[1:]))
        expected.append(" ".join(argv))
    return expected


def run(ops: list[Op]) -> list[bool]:
    return [r.ok for r in asyncio.run(run_ops(ops, runner.run, timeout=30))]


def test_zfs_raidz2_pull_first_sequence(tools: FakeTools) -> None:
    snap = zpool_snapshot("zpool_mirror_raidz123.txt")
    plan = make_plan(snap, key_of(snap, "gptid/d3fccc31-d17d-11e4-9eed-10c37b9d936f", "raidz2-2"))
    ops = [o.with_new(NEW_DISK) for o in plan.ops]
    expected = answer_all(tools, ops)
    assert run(ops) == [True, True]
    assert (
        tools.calls
        == expected
        == [
            "zpool offline eden gptid/d3fccc31-d17d-11e4-9eed-10c37b9d936f",
            f"zpool replace eden gptid/d3fccc31-d17d-11e4-9eed-10c37b9d936f {NEW_DISK}",
        ]
    )


def test_md_raid6_on_partitions_sequence_over_four_arrays(tools: FakeTools) -> None:
    snap = md_snapshot("mdstat_raid6.txt")
    plan = make_plan(snap, key_of(snap, "sdc6"), in_place=False)
    prepare = [o for o in plan.ops if o.stage is Stage.PREPARE]
    replace = [o.with_new(NEW_DISK) for o in plan.ops if o.stage is Stage.REPLACE]
    expected = answer_all(tools, prepare + replace)
    assert all(run(prepare)) and all(run(replace))
    old = "/dev/disk/by-id/ata-TEST_4TB_S-sdc"
    assert tools.calls == expected
    assert tools.calls[:2] == [
        f"mdadm /dev/md3 --fail {old}-part6",
        f"mdadm /dev/md3 --remove {old}-part6",
    ]
    assert tools.calls[8:] == [
        f"sgdisk --replicate={NEW_DISK} /dev/disk/by-id/ata-TEST_4TB_S-sdh",
        f"sgdisk --randomize-guids {NEW_DISK}",
        f"mdadm /dev/md3 --add {NEW_DISK}-part6",
        f"mdadm /dev/md2 --add {NEW_DISK}-part5",
        f"mdadm /dev/md1 --add {NEW_DISK}-part2",
        f"mdadm /dev/md0 --add {NEW_DISK}-part1",
    ]


def test_a_failing_command_stops_the_sequence(tools: FakeTools) -> None:
    snap = md_snapshot("mdstat_raid1_raid10.txt")
    plan = make_plan(snap, key_of(snap, "sda1"), in_place=False)
    replace = [o.with_new(NEW_DISK) for o in plan.ops if o.stage is Stage.REPLACE]
    first = argv_for(replace[0])
    tools.answer(first[0], " ".join(first[1:]), err="Problem opening device\n", code=2)
    ran = asyncio.run(run_ops(replace, runner.run, timeout=30))
    assert [r.ok for r in ran] == [False]
    assert ran[0].line == "Problem opening device"
    assert len(tools.calls) == 1


def test_the_placeholder_never_reaches_a_program(tools: FakeTools) -> None:
    snap = zpool_snapshot("zpool_mirror.txt")
    plan = make_plan(snap, key_of(snap, "c0t1d0"))
    tools.answer("zpool", "offline pool c0t1d0")
    ran = asyncio.run(run_ops(list(plan.ops), runner.run, timeout=30))
    assert [r.ok for r in ran] == [True, False]
    assert "not known yet" in ran[-1].line
    assert tools.calls == ["zpool offline pool c0t1d0"]
