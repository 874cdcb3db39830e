"""Pictures of the bench screen and the compare view, from the demo's modelled drive run at
once (no live fio): the same picture every run. Review each SVG against its
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
    """Bench screen after the demo's randrw 4k QD1 on /tmp on the modelled 7200 rpm HGST disk
    (PN2334PBG6P4SK): profile line marked "[demo: modelled drive]", settings (size 1.0 GiB,
    direct on, incompressible on), COMPLETE, the page-cache warning whole at 80 columns; IOPS
    and B/s bar charts (eighth blocks, or `_ = #` in ASCII) over the 60 s shown, now/mean/max
    about 77 IOPS and 316 kB/s (77 x 4 KiB), latency marks p50 and p99 on a log scale ("lat
    now p50 ..."); the "now" panel with read and write 38 IOPS 156 kB each, mean 13 ms, and
    the same sdc diskstats figures; one row in the steps table: 77 IOPS, 0.3 MB/s, p50 12 ms,
    p99 28 ms (seek + half a turn)."""

    async def before(pilot: Pilot[object]) -> None:
        await run_once(pilot)

    app = demo_app(ascii_only=ascii_only)
    assert snap_compare(app, run_before=before, terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("ascii_only", GLYPHS)
def test_bench_compare(snap_compare: Compare, size: tuple[int, int], ascii_only: bool) -> None:
    """Compare view of two demo runs of randrw on the modelled disk: both marked [x], the
    second selected; the IOPS table, 77 and 77 (+0%: the same disk twice); each run's IOPS bars
    on one scale below."""

    async def before(pilot: Pilot[object]) -> None:
        await run_once(pilot, runs=2, then=("c",))

    app = demo_app(ascii_only=ascii_only)
    assert snap_compare(app, run_before=before, terminal_size=size)
