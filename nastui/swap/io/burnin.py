"""Running the new drive's burn-in (`nastui swap burnin`) behind the benchmark's guard.

    inspect (its footprint: nothing stacked, mounted, open or signed: `inspect_target`) ->
    hold it O_EXCL as the device number inspected, with any device a loop device under it
    writes to (`held_device`) -> inspect again, at the held descriptor -> badblocks or fio
    write-and-verify (`nastui.swap.logic.burnin`) on
    /proc/PID/fd/N of that descriptor, a path nobody else can point elsewhere, with the
    benchmark's watch looking at the footprint every `WATCH_S` seconds -> passed / failed /
    stopped, one line

Anything in use refuses, nothing written; a use that begins during the burn-in (a loop device
over the drive, mounted) stops the tool at once and says so. The swap's own checks (the serial
typed, the drive checked and not blocked) come first, in `nastui.swap.flow.steps.burnin`.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import Callable
from pathlib import Path

from nastui.bench.guard import GuardRefused, held_device, unseen_line
from nastui.bench.runner import watch_footprint
from nastui.collectors import runner
from nastui.collectors.fio_host import LocalBenchHost
from nastui.collectors.fio_target import RunFn, TargetError, inspect_target
from nastui.model import BenchTarget, UnseenProcess
from nastui.swap.logic.burnin import BADBLOCKS, BurnIn, burnin_argv, parse_badblocks, parse_fio

__all__ = ["burn_in"]


async def burn_in(
    device: str, tool: str, *, root: Path, timeout: float, run: RunFn = runner.run
) -> BurnIn:
    """Burn `device` in with `tool` (`nastui.swap.logic.burnin.TOOLS`), guarded (see above)."""
    argv = burnin_argv(tool, device)
    try:
        target = await inspect_target(device, root=root, run=run)
    except TargetError as exc:
        return BurnIn(False, True, f"{device}: {exc}, nothing written", argv)
    if target.in_use:
        uses = "; ".join(target.in_use)
        return BurnIn(False, True, f"{device} is in use, nothing written: {uses}", argv)
    host = LocalBenchHost(root)
    try:
        with held_device(target, writing=True) as hold:
            place = hold.place
            uses_now = await host.in_use(dataclasses.replace(target, path=place.path))
            if uses_now:
                why = "; ".join(uses_now)
                return BurnIn(False, True, f"{device} came into use, nothing written: {why}", argv)
            unseen = list(target.unseen)
            result, stopped = await _watched(
                burnin_argv(tool, place.path), target, host, timeout, unseen.append
            )
            place.recheck()
    except GuardRefused as exc:
        return BurnIn(False, True, str(exc), argv)
    if stopped:
        burnin = BurnIn(False, True, f"{device} came into use, {tool} stopped: {stopped}", argv)
    else:
        burnin = _verdict(tool, argv, result, timeout)
    return _with_unseen(burnin, unseen)


def _with_unseen(burnin: BurnIn, unseen: list[UnseenProcess]) -> BurnIn:
    """The result, saying which processes the guard could not look into (`unseen_line`): a
    write one of them held open would not have been seen. They never stop a burn-in."""
    if not unseen:
        return burnin
    return dataclasses.replace(burnin, text=f"{burnin.text}; {unseen_line(unseen)}")


async def _watched(
    argv: tuple[str, ...],
    target: BenchTarget,
    host: LocalBenchHost,
    timeout: float,
    on_unseen: Callable[[UnseenProcess], None],
) -> tuple[runner.CommandResult, str]:
    """Run `argv` while the watch looks at the target's footprint; (result, why it was
    stopped, "" when it was not). `on_unseen` hears of each process the watch could not look
    into that the inspection had not named."""
    stop = asyncio.Event()
    why: list[str] = []

    async def watch() -> None:
        found = await watch_footprint(host, target, stop, on_unseen)
        if found:
            why.append(found)
            stop.set()

    watcher = asyncio.ensure_future(watch())
    try:
        result = await runner.stream(argv, timeout=timeout, stop=stop)
    finally:
        watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watcher
    return result, "; ".join(why)


def _verdict(
    tool: str, argv: tuple[str, ...], result: runner.CommandResult, timeout: float
) -> BurnIn:
    if result.error is not None:
        return BurnIn(False, True, f"{tool}: {result.error}", argv)
    if result.timed_out or result.returncode is None:
        return BurnIn(False, False, f"{tool} did not finish within {timeout:.0f} s", argv)
    code = result.returncode
    if tool == BADBLOCKS:
        passed, text = parse_badblocks(result.stdout + "\n" + result.stderr, code)
    else:
        passed, text = parse_fio(result.stdout, code)
    return BurnIn(passed, False, text, argv)
