"""The bench screen driven with the keyboard (Pilot), on recorded streams: run, stop (partial
result kept), options, targets, the serial confirmation for raw writes, SVG export, the compare
view; and the chart widget repainting only the cells that changed."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from textual.geometry import Region
from textual.pilot import Pilot

from nastui.bench.profiles import PROFILES
from nastui.bench.replay import ReplayHost, demo_recordings, demo_target
from nastui.model import RunState, TargetKind, UnseenProcess
from nastui.ui.app import NastuiApp
from nastui.ui.screens.bench import BenchScreen
from nastui.ui.screens.bench_compare import BenchCompareScreen
from nastui.ui.screens.bench_modals import OptionsForm, SerialConfirm, TargetPicker
from nastui.ui.screens.bench_source import source_for
from nastui.ui.widgets.benchchart import BenchChart
from nastui.ui.widgets.textpanel import TextPanel
from tests.ui.helpers import demo_app


def app_with(source_changes: dict[str, Any], *, pace: float = 0.0) -> NastuiApp:
    app = demo_app()
    base = source_for(app.session, lambda: app.snapshot, live=False)
    host = ReplayHost(demo_recordings(), pace=pace)
    app.bench_source = dataclasses.replace(base, host=host, **source_changes)
    return app


def found(directory: Path, pattern: str) -> list[Path]:
    return list(directory.glob(pattern))


async def open_bench(pilot: Pilot[int]) -> BenchScreen:
    await pilot.pause()
    await pilot.press("n")
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, BenchScreen)
    return screen


async def run_times(pilot: Pilot[int], times: int) -> None:
    """Run the chosen profile `times` times, each to its end."""
    for _ in range(times):
        await pilot.press("r")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()


async def open_compare(pilot: Pilot[int]) -> BenchCompareScreen:
    """The compare view, from the bench screen."""
    await pilot.press("c")
    await pilot.pause()
    compare = pilot.app.screen
    assert isinstance(compare, BenchCompareScreen)
    return compare


async def test_run_draws_graphs_and_saves(tmp_path: Path) -> None:
    app = app_with({"runs_dir": tmp_path})
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_bench(pilot)
        assert screen.target is not None and screen.target.path == "/tmp"
        await pilot.press("r")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert screen.status == (RunState.COMPLETE, "1 step complete")
        assert "randrw 4K 50/50 QD1" in screen.query_one("#bench-steps", TextPanel).plain
        iops = screen.query_one("#chart-iops", BenchChart).plain
        assert iops.startswith("IOPS  now 24k  mean 27k") and "█" in iops
        # The latest sample's latency, not the step's in the table below: said so, as for IOPS.
        assert screen.query_one("#chart-lat", BenchChart).plain.startswith("lat   now p50 ")
        assert "diskstats" in screen.query_one("#bench-now", TextPanel).plain
        assert len(found(tmp_path, "*.json")) == 1
        await pilot.press("x")
        await pilot.pause()
        assert len(found(tmp_path, "*-iops.svg")) == 1


async def test_stop_keeps_the_partial_result() -> None:
    app = app_with({}, pace=0.1)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_bench(pilot)
        await pilot.press("r")
        await pilot.pause(0.5)
        assert screen.running
        await pilot.press("s")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert screen.status is not None and screen.status[0] is RunState.INTERRUPTED
        assert screen.runs[-1].steps[0].iops > 0
        assert 0 < len(screen.samples) < 20


async def test_options_form_changes_the_profile() -> None:
    app = app_with({})
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_bench(pilot)
        await pilot.press("o")
        await pilot.pause()
        assert isinstance(app.screen, OptionsForm)
        # On the demo's directory the unset size is the 1G test file the settings line shows,
        # not "whole device" as the form said.
        form = app.screen.query_one("#options", TextPanel).plain
        assert "test size              < 1G (default) >" in form and "whole device" not in form
        await pilot.press("right", "down", "right", "enter")  # randrw -> wsc; size 1G -> 4G
        await pilot.pause()
        assert screen.settings.profile == "wsc"
        assert screen.settings.size_bytes == 4 << 30
        assert "wsc write-sync-close" in screen.query_one("#bench-setup", TextPanel).plain


async def test_a_pool_member_is_offered_and_refused() -> None:
    app = app_with({})
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_bench(pilot)
        await pilot.press("t")
        await pilot.pause()
        assert isinstance(app.screen, TargetPicker)
        await pilot.press("down", "enter")  # the first drive after the demo directory
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert screen.target is not None and screen.target.kind is TargetKind.DEVICE
        assert screen.target.in_use
        await pilot.press("r")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert screen.status is not None and screen.status[0] is RunState.REFUSED
        assert "in use, nothing written" in screen.status[1]


async def test_raw_device_writes_ask_for_the_serial() -> None:
    device = dataclasses.replace(demo_target(), kind=TargetKind.DEVICE, path="/dev/nastui-none")
    app = app_with({"target": device})
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_bench(pilot)
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, SerialConfirm)
        await pilot.press(*"sdc", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert screen.status is not None and "does not match" in screen.status[1]
        await pilot.press("r")
        await pilot.pause()
        await pilot.press(*"PN2334PBG6P4SK", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        # The serial is right; the kernel-level check then finds no such device to hold.
        assert screen.status is not None and "cannot be opened" in screen.status[1]


async def test_a_process_the_guard_could_not_look_into_is_shown_before_the_run() -> None:
    """The guard's line (`nastui.bench.guard.unseen_note`), as the screen shows the verdict's
    other notes: in the setup panel while the profile writes, and in the confirmation."""
    init = UnseenProcess(1, "init", "descriptors refused")
    device = dataclasses.replace(
        demo_target(), kind=TargetKind.DEVICE, path="/dev/nastui-none", unseen=(init,)
    )
    line = "could not look into 1 process: pid 1 (init), its descriptors refused by /proc"
    app = app_with({"target": device})
    async with app.run_test(size=(160, 30)) as pilot:
        screen = await open_bench(pilot)
        assert f"! {line}" in screen.query_one("#bench-setup", TextPanel).plain
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, SerialConfirm)
        shown = " ".join(app.screen.query_one("#serial-text", TextPanel).plain.split())
        assert f"{line}: a write it holds open would not be seen." in shown
        await pilot.press("escape")
        await pilot.pause()
        screen.settings = dataclasses.replace(PROFILES["sweep"].defaults, iodepths=(1,))
        screen.redraw()
        assert line not in screen.query_one("#bench-setup", TextPanel).plain  # reads only


async def test_compare_view_marks_and_metrics(tmp_path: Path) -> None:
    app = app_with({"runs_dir": tmp_path})
    async with app.run_test(size=(100, 30)) as pilot:
        await open_bench(pilot)
        await run_times(pilot, 2)
        compare = await open_compare(pilot)
        assert len(compare.chosen()) == 2
        table = compare.query_one("#compare-table", TextPanel).plain
        assert "#2 IOPS" in table and "+8%" in table
        await pilot.press("m", "m", "m")
        await pilot.pause()
        assert compare.metric == "p99"
        await pilot.press("x")
        await pilot.pause()
        assert found(tmp_path, "compare-*-p99.svg")
        await pilot.press("space")  # unmark #2
        await pilot.pause()
        assert len(compare.chosen()) == 1
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, BenchScreen)


async def test_chart_repaints_only_changed_cells() -> None:
    app = app_with({}, pace=0.0)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_bench(pilot)
        await pilot.press("r")
        await app.workers.wait_for_complete()
        await pilot.pause()
        chart = screen.query_one("#chart-iops", BenchChart)
        regions: list[Region] = []
        original = chart.refresh

        def spy(*regs: Region, **kwargs: object) -> BenchChart:
            regions.extend(regs)
            return original(*regs, **kwargs)  # type: ignore[arg-type]

        chart.refresh = spy  # type: ignore[method-assign]
        last = screen.samples[-1]
        screen.samples.append(dataclasses.replace(last, t=last.t + 1))
        screen.redraw()
        assert regions, "the new sample was not drawn"
        assert all(r.width <= 2 for r in regions[1:])  # one new column (the title line aside)
        assert sum(r.width * r.height for r in regions) < chart.size.width * 2


async def test_demo_runs_keep_their_numbers_and_svgs_go_to_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    app = demo_app()  # the demo's own source: a modelled disk, no runs directory
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_bench(pilot)
        assert screen.source.runs_dir is None
        await run_times(pilot, 3)
        assert screen.status == (RunState.COMPLETE, "1 step complete")
        await pilot.press("x")
        await pilot.pause()
        assert len(found(tmp_path, "*-iops.svg")) == 1
        compare = await open_compare(pilot)
        await pilot.press("up", "up", "space", "down", "space")  # mark #1, unmark #2
        await pilot.pause()
        assert compare.numbers() == [3, 1]
        table = compare.query_one("#compare-table", TextPanel).plain
        assert "#3 IOPS" in table and "#1 IOPS" in table and "#2 IOPS" not in table
        assert "\n#3 " in table and "\n#1 " in table


async def test_the_demo_offers_a_directory_on_each_other_drive_model() -> None:
    app = demo_app("mixed")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_bench(pilot)
        offered = [path for path, _ in screen.source.candidates(app.snapshot)]
        assert offered[0] == "/tmp" and {"sda", "sdi", "nvme0n1"} <= set(offered)
        await pilot.press("t")
        await pilot.pause()
        assert isinstance(app.screen, TargetPicker)
        await pilot.press("tab", *"nvme0n1", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        target = screen.target
        assert target is not None and target.kind is TargetKind.DIRECTORY
        assert target.path == "/tmp" and target.dev == "nvme0n1"
        await pilot.press("r")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert screen.status == (RunState.COMPLETE, "1 step complete")
        step = screen.runs[-1].steps[0]
        assert 5_000 < step.read_iops < 20_000  # NVMe random 4K at QD1: about 70 us a read


async def test_the_highlighted_choice_is_marked_in_text_not_only_by_colour() -> None:
    from textual.widgets import OptionList

    app = app_with({})
    async with app.run_test(size=(80, 24)) as pilot:
        await open_bench(pilot)
        await pilot.press("t")
        await pilot.pause()
        options = app.screen.query_one("#picker-list", OptionList)

        def marked() -> list[int]:
            prompts = [
                str(options.get_option_at_index(i).prompt) for i in range(options.option_count)
            ]
            return [i for i, p in enumerate(prompts) if p.startswith("> ")]

        assert marked() == [0]
        await pilot.press("down")
        await pilot.pause()
        assert marked() == [1]
        await pilot.press("escape", "o")
        await pilot.pause()
        form = app.screen.query_one("#options", TextPanel).plain.splitlines()
        assert form[0].startswith("> profile") and form[1].startswith("  ")


async def test_svg_exports_never_replace_an_earlier_one(tmp_path: Path) -> None:
    """Two comparisons led by the same run (#2 alone, then #2 against #1) are two files: the
    second export used to write over the first under the same name."""
    app = app_with({"runs_dir": tmp_path})
    async with app.run_test(size=(100, 30)) as pilot:
        await open_bench(pilot)
        await run_times(pilot, 2)
        await pilot.press("x", "x")  # the bench screen's export, twice
        await pilot.pause()
        assert len(found(tmp_path, "*-iops*.svg")) == 2
        compare = await open_compare(pilot)
        await pilot.press("up", "space")  # #2 alone
        await pilot.pause()
        assert compare.numbers() == [2]
        await pilot.press("x")
        await pilot.pause()
        await pilot.press("space", "x")  # #2 against #1
        await pilot.pause()
        assert compare.numbers() == [2, 1]
        svgs = sorted(found(tmp_path, "compare-*.svg"))
        assert len(svgs) == 2, svgs
        assert svgs[0].read_text(encoding="utf-8") != svgs[1].read_text(encoding="utf-8")


async def test_the_demo_page_cache_warning_is_whole_at_80_columns() -> None:
    """Every demo run on /tmp warns that the page cache may answer; at 80 columns the line was
    cut before it said so ("...: reads may come ..."), and "twice the RAM (64.0 GiB)" read
    as 64 GiB of RAM."""
    app = demo_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_bench(pilot)
        setup = screen.query_one("#bench-setup", TextPanel).plain
        assert "! test file 1.0 GiB < 2 x the 32.0 GiB of RAM: the page cache may answer reads" in (
            setup.splitlines()
        )


async def test_a_custom_job_does_not_show_settings_it_ignores() -> None:
    """A custom job sets its own size, time, direct and data: the settings line went on saying
    "size 1.0 GiB  time to the end  direct on" above a job with runtime=10."""
    app = demo_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_bench(pilot)
        await pilot.press("e")
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert screen.settings.profile == "custom"
        lines = screen.query_one("#bench-setup", TextPanel).plain.splitlines()
        assert lines[1] == "size, time, direct I/O and data: the job file's own (e shows it)"
        await pilot.press("o")  # nor does the options dialog offer them
        await pilot.pause()
        form = app.screen.query_one("#options", TextPanel).plain
        assert "profile" in form and "direct I/O" not in form and "incompressible" not in form


async def test_a_typed_target_is_checked_and_shown_as_typed() -> None:
    """The demo took any typed path as a directory ("/nope/[/]x" then ran and failed), and the
    failure's notice, read as markup, ended the interface on a MarkupError traceback."""
    app = demo_app()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        screen = await open_bench(pilot)
        await pilot.press("t", "tab")
        await pilot.press(*"/nope/[/]x", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert screen.target is not None and screen.target.path == "/tmp"  # kept
        note = app._notifications
        messages = [n.message for n in note]
        assert messages and messages[-1].startswith("/nope/[/]x: "), messages
        assert "the demo takes a directory or one of its drives" in messages[-1]
        await pilot.pause()
        toast = app.screen.query_one("Toast").render()  # as markup: MarkupError, the app ended
        assert "/nope/[/]x" in str(toast)


async def test_the_demos_runs_are_saved_where_bench_run_demo_saves_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The interface's demo keeps its runs in the demo's own state directory, as `bench run
    --demo` does (it kept them for the session only, so `bench list --demo` and the next
    session's compare view never saw them), and never among the machine's runs."""
    import io

    from nastui.cli.args import parse_args
    from nastui.cli.main import run_headless
    from nastui.session import Source, open_session
    from nastui.ui.app import make_app

    monkeypatch.delenv("NASTUI_BENCH_DIR", raising=False)
    monkeypatch.setenv("NASTUI_STATE_DIR", str(tmp_path))
    session = open_session(Source(demo=True), {"NASTUI_STATE_DIR": str(tmp_path)})
    app = make_app(session, live=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_bench(pilot)
        assert screen.source.runs_dir == tmp_path / "bench"
        await run_times(pilot, 1)
    assert len(found(tmp_path / "bench", "*.json")) == 1
    out = io.StringIO()
    assert run_headless(parse_args(["--demo", "bench", "list"]), out) == 0
    assert f"saved runs in {tmp_path / 'bench'}:" in out.getvalue()
    assert "#1" in out.getvalue()
