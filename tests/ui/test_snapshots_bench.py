"""Pictures of the bench screen and the compare view, from the demo's recorded fio streams
replayed at once (no live fio): the same picture every run. Review each SVG against its
docstring before accepting an update (`--snapshot-update`)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual.pilot import Pilot

from tests.ui.helpers import demo_app

Compare = Callable[..., bool]
SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]
GLYPHS = [pytest.param(False, id="unicode"), pytest.param(True, id="ascii")]


async def run_once(pilot: Pilot[object], *, runs: int = 1, then: tuple[str, ...] = ()) -> None:
    await pilot.pause()
    await pilot.press("n")
    await pilot.pause()
    for _ in range(runs):
        await pilot.press("r")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
    await pilot.press(*then)
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("ascii_only", GLYPHS)
def test_bench_after_a_run(snap_compare: Compare, size: tuple[int, int], ascii_only: bool) -> None:
    """Bench screen after the demo's randrw 4k QD1 replay on /tmp (HGST ... PN2334PBG6P4SK):
    profile line marked "[demo: replayed recording]", settings (size 1.0 GiB, direct on,
    incompressible on), COMPLETE, the page-cache warning; IOPS and B/s bar charts (eighth blocks,
    or `_ = #` in ASCII) with now/mean/max, latency marks p50 and p99 on a log scale; the "now"
    panel with read/write IOPS and the sdc diskstats figures; one row in the steps table with
    about 27k IOPS, 111 MB/s, p50 9.7us, p99 92us."""

    async def before(pilot: Pilot[object]) -> None:
        await run_once(pilot)

    app = demo_app(ascii_only=ascii_only)
    assert snap_compare(app, run_before=before, terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("ascii_only", GLYPHS)
def test_bench_compare(snap_compare: Compare, size: tuple[int, int], ascii_only: bool) -> None:
    """Compare view of two demo runs (the loop device over a disk file, then over /dev/shm):
    both marked [x], the second selected; the IOPS table with #2's change against #1; each
    run's IOPS bars on one scale below."""

    async def before(pilot: Pilot[object]) -> None:
        await run_once(pilot, runs=2, then=("c",))

    app = demo_app(ascii_only=ascii_only)
    assert snap_compare(app, run_before=before, terminal_size=size)
