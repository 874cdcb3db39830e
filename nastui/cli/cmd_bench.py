"""`nastui bench list|run|show|compare`: disk benchmarks from the command line.

The same runner as the TUI (`nastui.bench.runner.BenchRunner`), with rich progress bars while
it runs and a table at the end. Ctrl-C (and SIGTERM, SIGHUP) stops fio, keeps what was measured
and saves it. Exit codes: 0 complete, 130 stopped, 77 refused by the guard (nothing written),
69 a tool failed or is missing, 64 bad options, 65 a saved run that cannot be read.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import platform
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from rich.console import Console

from nastui import exits
from nastui.bench import store
from nastui.bench.bounds import bound_refusal
from nastui.bench.compare import METRICS, describe
from nastui.bench.fiojob import JOB_LIMIT, check_custom_job
from nastui.bench.guard import plan_writes, unseen_note
from nastui.bench.profiles import PROFILES
from nastui.bench.replay import demo_target
from nastui.bench.runner import CLI_SIGNALS, BenchRunner, stop_on_signals
from nastui.bench.simhost import ModelHost, directory_on
from nastui.bench.sizes import parse_size
from nastui.cli.benchview import (
    LiveProgress,
    chart_text,
    compare_table,
    console_for,
    header_lines,
    steps_table,
)
from nastui.cli.command import glyphs_of, poll_once, use_color, write_json
from nastui.collectors.fio_host import LocalBenchHost
from nastui.collectors.fio_target import TargetError, check_directory, inspect_target
from nastui.core.drivename import DRIVE_NAMES, find_drive
from nastui.core.statefiles import demo_state_dir
from nastui.model import BenchRun, BenchSettings, BenchTarget, Drive, RunState, TargetKind
from nastui.model.errors import ParseError
from nastui.safeio import read_text_bounded

EXIT = {
    RunState.COMPLETE: exits.OK,
    RunState.INTERRUPTED: exits.INTERRUPTED,
    RunState.REFUSED: exits.EX_NOPERM,
    RunState.FAILED: exits.EX_UNAVAILABLE,
}


def _number(option: str, text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"{option}: not a number: {text!r}") from None


def _ints(option: str, text: str) -> tuple[int, ...]:
    try:
        values = tuple(int(v) for v in text.split(","))
    except ValueError:
        raise ValueError(f"{option}: not a list of whole numbers: {text!r}") from None
    return values


def _size(option: str, text: str) -> int:
    try:
        return parse_size(text)
    except ValueError as exc:
        if _ZERO.fullmatch(text):
            return 0  # out of bounds: refused as such
        raise ValueError(f"{option}: {exc}") from None


def _sizes(option: str, text: str) -> tuple[int, ...]:
    return tuple(_size(option, v) for v in text.split(","))


_ZERO = re.compile(r"\s*0*(?:\.0*)?\s*[kKmMgGtTpP]?(?:i?[bB])?\s*")
# (option's dest, BenchSettings field, how its text is read)
_NUMERIC: tuple[tuple[str, str, Callable[[str, str], Any]], ...] = (
    ("size", "size_bytes", _size),
    ("runtime", "runtime_s", _number),
    ("ramp", "ramp_s", _number),
    ("iodepth", "iodepths", _ints),
    ("numjobs", "numjobs", _ints),
    ("bs", "bs_bytes", _size),
    ("file_size", "file_bytes", _size),
    ("records", "record_sizes", _sizes),
)


def _run_options(run: argparse.ArgumentParser) -> None:
    run.add_argument("profile", choices=sorted(PROFILES), help="what to run (`bench list`)")
    run.add_argument(
        "target",
        nargs="?",
        help="a directory, or a whole block device (demo: a directory, or a demo drive)",
    )
    run.add_argument("--size", help="test file size (default 1G; devices: whole)")
    run.add_argument("--runtime", metavar="S", help="seconds per job (1..86400)")
    run.add_argument("--ramp", metavar="S", help="fio ramp_time before measuring (0..3600)")
    run.add_argument("--no-direct", action="store_true", help="buffered I/O (not honest)")
    run.add_argument(
        "--compressible", action="store_true", help="reuse buffers (no refill_buffers)"
    )
    run.add_argument("--iodepth", metavar="N,N", help="sweep queue depths (1..4096)")
    run.add_argument("--numjobs", metavar="N,N", help="sweep job counts (1..256)")
    run.add_argument("--rw", choices=("randread", "randwrite", "randrw", "read", "write"))
    run.add_argument("--bs", help="block size (sweep, randrw; 512..64M)")
    run.add_argument("--file-size", help="fill: size of each file (default 1G)")
    run.add_argument("--records", metavar="SIZES", help="wsc record sizes (512..1G)")
    run.add_argument(
        "--cache-matrix", action="store_true", help="run with the write cache on, then off"
    )
    run.add_argument("--job", type=Path, metavar="FILE", help="custom: the fio job file")
    run.add_argument("--confirm", metavar="SERIAL", help="the device's serial (raw writes)")
    run.add_argument("--no-save", action="store_true", help="do not save the run")
    run.add_argument("--quiet", action="store_true", help="no progress bars")
    run.add_argument("--json", action="store_true", help="print the run as JSON")


def add_arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    """The four actions and their options."""
    actions = parser.add_subparsers(dest="bench_command", metavar="ACTION", required=True)
    runs = argparse.ArgumentParser(add_help=False)
    runs.add_argument("--runs", type=Path, metavar="DIR", help="saved runs (env NASTUI_BENCH_DIR)")
    lst = actions.add_parser("list", parents=[common, runs], help="profiles and saved runs")
    lst.add_argument("--json", action="store_true", help="as JSON")
    _run_options(actions.add_parser("run", parents=[common, runs], help="run a profile"))
    show = actions.add_parser("show", parents=[common, runs], help="a saved run")
    show.add_argument("run", help="run id, id prefix, file, or last")
    compare = actions.add_parser("compare", parents=[common, runs], help="runs side by side")
    compare.add_argument("runs_", nargs="+", metavar="RUN", help="two or more runs")
    for sub in (show, compare):
        sub.add_argument("--metric", choices=sorted(METRICS), default="iops")
        sub.add_argument("--svg", type=Path, metavar="FILE", help="write the graph as SVG")
        sub.add_argument("--json", action="store_true", help="as JSON")
    show.add_argument("--csv", action="store_true", help="steps and samples as CSV")


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Dispatch the action."""
    action = {"list": _list, "run": _run, "show": _show, "compare": _compare}
    return action[args.bench_command](args, out)


def _runs_dir(args: argparse.Namespace) -> Path | None:
    """Where runs are saved and looked up: --runs, else the machine's runs directory, or on the
    demo its own (`store.demo_runs_dir`: None where it keeps none)."""
    if args.runs or not args.demo:
        return args.runs or store.runs_dir(os.environ, os.geteuid())
    from nastui.sim.scenarios import DEFAULT_SCENARIO, get_scenario

    scenario = get_scenario(args.scenario or DEFAULT_SCENARIO).name
    return store.demo_runs_dir(os.environ, demo_state_dir(os.environ, scenario))


def _saved(args: argparse.Namespace) -> tuple[Path | None, list[BenchRun]]:
    """The runs directory and the runs saved in it, oldest first."""
    directory = _runs_dir(args)
    return directory, store.list_runs(directory) if directory and directory.is_dir() else []


def _fail(message: str, code: int) -> int:
    print(f"nastui: {message}", file=sys.stderr)
    return code


def _list(args: argparse.Namespace, out: TextIO) -> int:
    directory, saved = _saved(args)
    if args.json:
        profiles = [
            {"name": p.name, "title": p.title, "summary": p.summary} for p in PROFILES.values()
        ]
        write_json({"profiles": profiles, "runs": [describe(r) for r in saved]}, out)
        return exits.OK
    out.write("profiles:\n")
    for p in PROFILES.values():
        out.write(f"  {p.name:<7} {p.summary}\n")
    out.write(f"\nsaved runs in {directory}:\n" if saved else "\nno saved runs yet\n")
    for number, saved_run in enumerate(saved, 1):
        out.write(f"  #{number:<3} {describe(saved_run)}\n")
    return exits.OK


# The run options that set one setting each, and the setting (`bench.options.profiles_taking`).
_SETTING_OF = {
    "size": "size_bytes",
    "runtime": "runtime_s",
    "ramp": "ramp_s",
    "no_direct": "direct",
    "compressible": "refill",
    "iodepth": "iodepths",
    "numjobs": "numjobs",
    "rw": "rw",
    "bs": "bs_bytes",
    "file_size": "file_bytes",
    "records": "record_sizes",
    "job": "job_text",
}


def _refuse_what_the_profile_ignores(args: argparse.Namespace) -> None:
    """An option the profile does not use is refused by name, not dropped: `custom --no-direct`
    ran buffered-or-not as its job file said, and the run record said nothing of it.

    Raises:
        ValueError: one line naming the option and the profiles it is for.
    """
    from nastui.bench.options import profiles_taking

    for option, field in _SETTING_OF.items():
        taking = profiles_taking(field)
        if getattr(args, option) in (None, False) or taking is None or args.profile in taking:
            continue
        name = f"--{option.replace('_', '-')}"
        if args.profile == "custom":
            raise ValueError(f"{name} does not apply to a custom job: its job file sets that")
        raise ValueError(
            f"{name} does not apply to the {args.profile} profile "
            f"(it is for {', '.join(sorted(taking))})"
        )


def settings_from(args: argparse.Namespace) -> BenchSettings:
    """The profile's defaults with the options given on top.

    Raises:
        ValueError: one line: an option the profile does not use, a numeric option out of its
            bounds (`nastui.bench.bounds`) or not a number, a custom profile without --job, a
            job file that cannot be read or that the allowlist refuses.
    """
    _refuse_what_the_profile_ignores(args)
    settings = PROFILES[args.profile].defaults
    changes: dict[str, object] = {}
    for option, field, read in _NUMERIC:
        text = getattr(args, option)
        if text is not None:
            value = read(f"--{option.replace('_', '-')}", text)
            why = bound_refusal(field, value)
            if why is not None:
                raise ValueError(why)
            changes[field] = value
    if args.rw is not None:
        changes["rw"] = args.rw
    changes.update(direct=not args.no_direct, refill=not args.compressible)
    changes["cache_matrix"] = args.cache_matrix
    if args.profile == "custom":
        if args.job is None:
            raise ValueError("the custom profile needs --job FILE (a fio job file)")
        try:
            changes["job_text"] = text = read_text_bounded(args.job, JOB_LIMIT)
        except OSError as exc:
            raise ValueError(f"{args.job}: {exc.strerror or exc}") from exc
        try:  # refused here in one line, before a header and a run record that says "refused"
            check_custom_job(text)
        except ValueError as exc:
            raise ValueError(f"{args.job}: {exc}") from exc
    return dataclasses.replace(settings, **changes)  # type: ignore[arg-type]


def _confirm(args: argparse.Namespace, settings: BenchSettings, target: BenchTarget) -> str | None:
    """--confirm, or the serial typed at a prompt when raw writes need it and stdin is a tty."""
    if args.confirm is not None or target.kind is not TargetKind.DEVICE:
        return args.confirm  # type: ignore[no-any-return]
    if not plan_writes(settings, target) or target.in_use or not sys.stdin.isatty():
        return None
    print(f"{args.profile} WRITES to {target.path}: everything on it is lost.", file=sys.stderr)
    try:
        return input(f"type its serial number ({target.confirm_token}) to go on: ")
    except EOFError:
        return None


def _demo_target(args: argparse.Namespace) -> BenchTarget:
    """The demo's target: a directory on the demo drive named (`DRIVE_NAMES`: its class and
    rpm decide the figures), else the directory named (on the demo's 7200 rpm disk).

    Raises:
        TargetError: one line: neither a demo drive nor a directory, and what is accepted.
    """
    name = args.target
    if name is None:
        return demo_target()
    if name.startswith("/dev/") or not name.startswith(("/", ".")):
        drive = _demo_drive(args, name)
        if drive is not None:
            return directory_on(demo_target(), drive.identity, drive.dev)
    check_directory(name, f"the demo takes a directory or a demo drive: {DRIVE_NAMES}")
    return demo_target(name)


def _demo_drive(args: argparse.Namespace, name: str) -> Drive | None:
    """The demo drive `name` names, if any."""
    try:
        _, snapshot = poll_once(args)
    except exits.CommandExit as exc:  # the demo's own target still serves: say why, go on
        print(exc.message, file=sys.stderr)
        return None
    return find_drive(snapshot, name)[0]


def _target(args: argparse.Namespace) -> tuple[ModelHost | LocalBenchHost, BenchTarget]:
    if args.demo:
        return ModelHost(seed=int(getattr(args, "seed", None) or 0)), _demo_target(args)
    if args.target is None:
        raise TargetError("name a target: a directory, or a whole block device")
    root = args.root or Path("/")
    host = LocalBenchHost(root)
    return host, asyncio.run(inspect_target(args.target, root=root))


def _run(args: argparse.Namespace, out: TextIO) -> int:
    try:
        settings = settings_from(args)
        host, target = _target(args)
    except (ValueError, TargetError) as exc:
        return _fail(str(exc), exits.EX_USAGE)
    console = console_for(out, ascii_only=_ascii(args), color=use_color(args, out))
    # With --json, stdout carries the JSON document only: the step lines go to stderr.
    shown = console_for(sys.stderr, ascii_only=_ascii(args), color=False) if args.json else console
    note = unseen_note(settings, target)
    if note is not None:  # before the confirmation: the operator decides knowing it
        shown.print(note, style="yellow", markup=False)
    confirm = _confirm(args, settings, target)
    live = LiveProgress(shown, quiet=args.quiet or args.json or not out.isatty())
    runner = BenchRunner(
        host,
        host_name="demo" if args.demo else platform.node(),
        runs_dir=None if args.no_save else _runs_dir(args),
        on_event=live.event,
        tool_note="demo: modelled drive" if args.demo else "",
    )

    async def go() -> BenchRun:
        stop = asyncio.Event()
        with stop_on_signals(stop, CLI_SIGNALS):
            return await runner.run(settings, target, confirm=confirm, stop=stop)

    with live:
        result = asyncio.run(go())
    if args.json:
        write_json(store.to_dict(result), out)
    else:
        _report(result, console, ascii_only=_ascii(args))
    if result.state is RunState.FAILED and "not found" in result.message:
        print(f"nastui: {result.message}", file=sys.stderr)
    return EXIT.get(result.state, exits.EX_SOFTWARE)


def _ascii(args: argparse.Namespace) -> bool:
    return glyphs_of(args).ascii


def _report(result: BenchRun, console: Console, *, ascii_only: bool) -> None:
    for line in header_lines(result):
        console.print(line, markup=False)
    if result.steps:
        console.print(steps_table(result, ascii_only=ascii_only))


def _load(args: argparse.Namespace, ref: str) -> BenchRun:
    directory = _runs_dir(args)
    if directory is None:  # the demo without a state directory: it saves nothing
        raise LookupError(f"no saved runs: the demo keeps none here, so there is no {ref}")
    return store.find(directory, ref)


def _show(args: argparse.Namespace, out: TextIO) -> int:
    try:
        saved = _load(args, args.run)
    except LookupError as exc:
        return _fail(str(exc), exits.EX_USAGE)
    except ParseError as exc:
        return _fail(str(exc), exits.EX_DATAERR)
    if args.json:
        write_json(store.to_dict(saved), out)
        return exits.OK
    if args.csv:
        out.write(store.csv_text(saved))
        return exits.OK
    console = console_for(out, ascii_only=_ascii(args), color=use_color(args, out))
    _report(saved, console, ascii_only=_ascii(args))
    if saved.samples:
        for line in chart_text(saved, METRICS[args.metric], console.width, ascii_only=_ascii(args)):
            console.print(line, markup=False, highlight=False)
    return _svg(args, [saved])


def _svg(args: argparse.Namespace, runs: list[BenchRun]) -> int:
    if args.svg is None:
        return exits.OK
    from nastui.bench.svg import runs_svg

    args.svg.write_text(runs_svg(runs, METRICS[args.metric]), encoding="utf-8")
    print(f"graph written to {args.svg}", file=sys.stderr)
    return exits.OK


def _numbers(args: argparse.Namespace, runs: list[BenchRun]) -> list[int]:
    """Each run's own number, as `bench list` shows it (a run from elsewhere, named by its
    file, numbered after the saved ones)."""
    saved = _saved(args)[1]
    own = {r.run_id: n for n, r in enumerate(saved, 1)}
    extra = iter(range(len(saved) + 1, len(saved) + len(runs) + 1))
    return [own[r.run_id] if r.run_id in own else next(extra) for r in runs]


def _compare(args: argparse.Namespace, out: TextIO) -> int:
    if len(args.runs_) < 2:
        return _fail("compare needs two or more runs", exits.EX_USAGE)
    try:
        runs = [_load(args, ref) for ref in args.runs_]
    except LookupError as exc:
        return _fail(str(exc), exits.EX_USAGE)
    except ParseError as exc:
        return _fail(str(exc), exits.EX_DATAERR)
    metric = METRICS[args.metric]
    numbers = _numbers(args, runs)
    if args.json:
        from nastui.bench.compare import table

        rows = table(runs, metric, numbers)
        write_json({"runs": [describe(r) for r in runs], "numbers": numbers, "table": rows}, out)
        return exits.OK
    console = console_for(out, ascii_only=_ascii(args), color=use_color(args, out))
    for number, saved in zip(numbers, runs, strict=True):
        console.print(f"#{number} {describe(saved)}", markup=False)
    console.print(compare_table(runs, metric, ascii_only=_ascii(args), numbers=numbers))
    console.print("(first run is the baseline; ! marks a change for the worse)", style="dim")
    return _svg(args, runs)
