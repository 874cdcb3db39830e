"""Running the new drive's burn-in (`nastui swap burnin`) behind the benchmark's guard.

    inspect (nothing stacked, mounted, open or signed: `inspect_target`) -> hold it O_EXCL
    (`ExclusiveHold`: nobody mounts or assembles it meanwhile) -> inspect again -> badblocks or
    fio write-and-verify (`nastui.core.swapburnin`) -> passed / failed, one line

Anything in use refuses, nothing written. The swap's own checks (the serial typed, the drive
checked and not blocked) come first, in `nastui.daemon.swapsteps.burnin`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from nastui.bench.guard import ExclusiveHold, GuardRefused
from nastui.collectors import runner
from nastui.collectors.fio_target import RunFn, TargetError, inspect_target
from nastui.core.swapburnin import BADBLOCKS, burnin_argv, parse_badblocks, parse_fio

__all__ = ["BurnIn", "burn_in"]


@dataclass(frozen=True, slots=True)
class BurnIn:
    """How a burn-in went.

    Attributes:
        passed: it ran to the end and found nothing.
        refused: it did not run (the device is in use, or cannot be opened); nothing written.
        text: one line: the finding, or why it was refused.
        argv: the command (run or not).
    """

    passed: bool
    refused: bool
    text: str
    argv: tuple[str, ...]


async def _uses(device: str, root: Path, run: RunFn) -> tuple[str, ...]:
    try:
        return (await inspect_target(device, root=root, run=run)).in_use
    except TargetError as exc:
        return (str(exc),)


async def burn_in(
    device: str, tool: str, *, root: Path, timeout: float, run: RunFn = runner.run
) -> BurnIn:
    """Burn `device` in with `tool` (`nastui.core.swapburnin.TOOLS`), guarded (see above)."""
    argv = burnin_argv(tool, device)
    uses = await _uses(device, root, run)
    if uses:
        return BurnIn(False, True, f"{device} is in use, nothing written: {'; '.join(uses)}", argv)
    try:
        with ExclusiveHold(device):
            uses = await _uses(device, root, run)
            if uses:
                why = "; ".join(uses)
                return BurnIn(False, True, f"{device} came into use, nothing written: {why}", argv)
            result = await run(argv, timeout=timeout)
    except GuardRefused as exc:
        return BurnIn(False, True, str(exc), argv)
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
