"""The swap's user actions, for the CLI and the interface alike: start, refresh (follow),
burn-in and replace after the serial is confirmed, abort. Each returns an `Outcome`: what was
run, one line on what went wrong (if anything) and how bad it is, so each front end words it
its way.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from enum import StrEnum

from nastui.swap.flow.box import Box, execute, follow, new_swap, replace_ops, switch_led
from nastui.swap.io.store import SwapBusy, SwapLock
from nastui.swap.logic.argv import Ran, command_line
from nastui.swap.logic.names import Op
from nastui.swap.logic.state import Swap, SwapPhase
from nastui.swap.logic.undo import abort_ops, needless, prepare_ops, undo_for

LOCK_WAIT_S = 3.0  # how long an action waits for a swap lock someone else holds


class Trouble(StrEnum):
    """Why an action did not happen."""

    USAGE = "usage"  # out of order, nothing to act on, a wrong serial
    REFUSED = "refused"  # it would lose data, or a wrong drive is out
    FAILED = "failed"  # a command failed


@dataclass
class Outcome:
    """What an action did.

    Attributes:
        swap: the swap after it (None when there is none).
        ran: "command: result" lines, in order.
        error: one line on what went wrong, or None.
        trouble: how bad, with `error`.
        notes: more lines to show (the rebuild continues after an abort...).
    """

    swap: Swap | None
    ran: list[str] = field(default_factory=list)
    error: str | None = None
    trouble: Trouble | None = None
    notes: list[str] = field(default_factory=list)


def _busy(exc: SwapBusy) -> Outcome:
    """The outcome of an action refused because another process is changing the swap."""
    return Outcome(None, error=str(exc), trouble=Trouble.USAGE)


@contextlib.asynccontextmanager
async def _holding(box: Box, what: str, wait: float = LOCK_WAIT_S) -> AsyncIterator[SwapLock]:
    """The swap lock, waited for up to `wait` seconds (a `nastui swap` or the interface
    following the swap holds it for a moment); the event loop keeps running meanwhile.

    Raises:
        SwapBusy: still held after `wait` seconds (the message names the holder).
    """
    deadline = time.monotonic() + wait
    while True:
        try:
            held = box.store.acquire(what)
            break
        except SwapBusy:
            if time.monotonic() >= deadline:
                raise
        await asyncio.sleep(0.1)
    try:
        yield held
    finally:
        held.release()


def _said(box: Box, swap: Swap, out: Outcome, ran: list[Ran], prefix: str = "") -> Swap:
    """`swap` with a "command: result" line for each command run among its events, the same
    lines in `out.ran`."""
    for step in ran:
        line = f"{prefix}{' '.join(step.argv)}: {step.line}"
        out.ran.append(line)
        swap = swap.note(box.now, line)
    return swap


async def start(box: Box, target: str, in_place: bool | None = None) -> Outcome:
    """Plan `target`, run the preparing writes, light the LED (pull first); keep the swap.
    Holds the swap lock throughout: a second start meanwhile is refused, naming this one."""
    try:
        async with _holding(box, f"starting a swap of {target}") as held:
            return await _start(box, target, in_place, held)
    except SwapBusy as exc:
        return _busy(exc)


async def _start(box: Box, target: str, in_place: bool | None, held: SwapLock) -> Outcome:
    current = box.store.load()
    if current is not None and current.active:
        return Outcome(current, error=_in_progress(current), trouble=Trouble.USAGE)
    plan = box.plan(target, in_place=in_place)
    if plan.drive is None or plan.refusal:
        trouble = Trouble.USAGE if plan.drive is None else Trouble.REFUSED
        return Outcome(None, error=f"refused: {plan.refusal}", trouble=trouble)
    swap = new_swap(box, plan)
    held.say(f"preparing a swap of {swap.old.label}")
    out = Outcome(swap)
    swap = await _prepare(box, swap, out)
    if swap.prep_done < len(prepare_ops(swap)):
        out.swap, out.error, out.trouble = (
            swap,
            "preparing failed: fix it, then `nastui swap abort` (it undoes what may have run) "
            "and start again",
            Trouble.FAILED,
        )
        return out
    if not swap.in_place:
        box.store.save(dataclasses.replace(swap, led=True))  # ahead: an abort puts it out
        swap = await switch_led(box, swap, True)
    swap = await follow(box, swap.to(SwapPhase.PREPARED, box.now, "prepared"))
    box.store.save(swap)
    out.swap = swap
    return out


def _in_progress(swap: Swap) -> str:
    """Why a swap cannot start while `swap` is kept, naming the way out."""
    if swap.phase is SwapPhase.PREPARING:
        return (
            f"the swap of {swap.old.label} stopped while preparing: `nastui swap` says what may "
            "have run, `nastui swap abort` undoes it"
        )
    return (
        f"a swap is in progress ({swap.old.label}, {swap.phase.value}): follow it "
        "(`nastui swap`), or abort it first (`nastui swap abort`)"
    )


async def _prepare(box: Box, swap: Swap, out: Outcome) -> Swap:
    """Run the preparing writes one by one, written ahead: the swap is kept *preparing* before
    the first, with each write counted begun before it runs and done once it answered, so a
    kill anywhere leaves a record of what may have run. Stops at the first that fails."""
    swap = swap.to(SwapPhase.PREPARING, box.now, "preparing")
    box.store.save(swap)
    for number, op in enumerate(prepare_ops(swap), 1):
        box.store.save(dataclasses.replace(swap, prep_started=number))
        ran = await execute(box, swap, (op,))
        done = bool(ran) and ran[-1].ok
        swap = dataclasses.replace(
            swap, prep_started=number, prep_done=number if done else swap.prep_done
        )
        swap = _said(box, swap, out, ran)
        box.store.save(swap)
        if not done:
            break
    return swap


async def refresh(box: Box) -> Swap | None:
    """The swap in progress followed on the box's snapshot and kept (logged when done). While
    another process changes the swap, the swap as last kept, unchanged, and `box.store.notice`
    says why."""
    try:
        async with _holding(box, "following the swap", wait=0.0):
            return await _refresh(box)
    except SwapBusy as exc:
        swap = box.store.load()
        busy = f"{exc}; shown as last kept"
        box.store.notice = f"{box.store.notice}; {busy}" if box.store.notice else busy
        return swap


async def _refresh(box: Box) -> Swap | None:
    swap = box.store.load()
    if swap is None:
        return None
    swap = await follow(box, swap)
    box.store.save(swap)
    if swap.phase is SwapPhase.DONE:
        box.store.finish(swap)
    return swap


def not_ready(swap: Swap, serial: str) -> tuple[str, Trouble] | None:
    """Why the replace cannot run with this confirmation, or None."""
    if swap.wrong_pulls:
        why = f"a wrong drive is out ({', '.join(swap.wrong_pulls)}): put it back first"
        return why, Trouble.REFUSED
    if swap.phase is not SwapPhase.INSERTED or swap.new is None:
        return f"the swap is {swap.phase.value}: no new drive to replace onto yet", Trouble.USAGE
    if serial != swap.new.serial:
        return f"{serial} is not the new drive's serial ({swap.new.label})", Trouble.USAGE
    if swap.blocked:
        burnt = (swap.burnin or "").startswith("!")
        blocks = [f for f in (*swap.findings, *([swap.burnin] if burnt else [])) if f]
        found = "; ".join(f.removeprefix("!") for f in blocks if f.startswith("!"))
        return f"the new drive cannot be used: {found}", Trouble.USAGE
    return None


async def _ready_for(box: Box, serial: str) -> Swap | Outcome:
    """The swap followed on the box's snapshot and kept, when the new drive `serial` confirms
    is ready for it; else the outcome saying why not."""
    swap = box.store.load()
    if swap is None:
        return Outcome(None, error="no swap in progress", trouble=Trouble.USAGE)
    swap = await follow(box, swap)
    box.store.save(swap)
    why = not_ready(swap, serial)
    if why is not None:
        return Outcome(swap, error=why[0], trouble=why[1])
    return swap


async def replace(box: Box, serial: str) -> Outcome:
    """Run the replace onto the checked new drive whose serial the operator typed."""
    try:
        async with _holding(box, f"replacing onto the new drive {serial}"):
            return await _replace(box, serial)
    except SwapBusy as exc:
        return _busy(exc)


async def _replace(box: Box, serial: str) -> Outcome:
    swap = await _ready_for(box, serial)
    if isinstance(swap, Outcome):
        return swap
    assert swap.new is not None
    out = Outcome(swap)
    ran = await execute(box, swap, replace_ops(swap, box.snapshot), swap.new.key)
    swap = _said(box, swap, out, ran)
    if not ran or not ran[-1].ok:
        box.store.save(swap)
        out.swap, out.error, out.trouble = swap, "the replace did not start", Trouble.FAILED
        return out
    swap = dataclasses.replace(swap, replaced_at=box.now)
    swap = swap.to(SwapPhase.REPLACING, box.now, "replace started")
    box.store.save(swap)
    out.swap = swap
    return out


async def burnin(box: Box, serial: str, tool: str, timeout: float) -> Outcome:
    """Burn the checked new drive in (its serial typed) before it joins: badblocks or fio
    write-and-verify behind the benchmark's guard (simulated on the demo); the verdict is kept
    on the swap (a failed one blocks the replace) and in its events. The swap lock is held for
    the whole burn-in: no replace or abort meanwhile."""
    try:
        async with _holding(box, f"burning in the new drive {serial}"):
            return await _burnin(box, serial, tool, timeout)
    except SwapBusy as exc:
        return _busy(exc)


async def _burnin(box: Box, serial: str, tool: str, timeout: float) -> Outcome:
    swap = await _ready_for(box, serial)
    if isinstance(swap, Outcome):
        return swap
    assert swap.new is not None
    device = swap.new.path or f"/dev/{swap.new.dev}"
    done = await box.hands.burn_in(device, tool, timeout)
    line = f"burn-in {' '.join(done.argv)}: {done.text}"
    out = Outcome(swap, ran=[line])
    if done.refused:
        out.error, out.trouble = f"burn-in refused: {done.text}", Trouble.REFUSED
        return out
    latest = box.store.load()  # it ran for hours: keep what others did to the swap meanwhile
    if latest is None or latest.new is None or latest.new.key != swap.new.key:
        out.error, out.trouble = "the swap moved on during the burn-in", Trouble.USAGE
        return out
    verdict = ("passed: " if done.passed else "!failed: ") + done.text
    latest = dataclasses.replace(latest, burnin=verdict).note(box.now, line)
    box.store.save(latest)
    out.swap = latest
    if not done.passed:
        out.error, out.trouble = f"burn-in failed: {done.text}", Trouble.FAILED
    return out


async def abort(box: Box) -> Outcome:
    """Stop following the swap: the LED it lit put out (or said to be left lit, and how to put
    it out), logged as aborted. Its preparing writes are undone first (`_undo`): what may have
    run of them for a swap stopped while preparing; all of them for a prepared swap whose old
    drive is still in (cancelled before the pull: the member goes back in service). From the
    pull on, the pool is left as it is."""
    try:
        async with _holding(box, "aborting the swap"):
            return await _abort(box)
    except SwapBusy as exc:
        return _busy(exc)


async def _abort(box: Box) -> Outcome:
    swap = box.store.load()
    if swap is None or not swap.active:
        return Outcome(None, notes=["no swap in progress"])
    out = Outcome(swap)
    undo = abort_ops(swap, box.snapshot)
    if undo:
        swap = await _undo(box, swap, out, undo)
        if out.error is not None:
            box.store.save(swap)
            out.swap = swap
            return out
    if swap.led:
        swap = await switch_led(box, swap, False)
        note = swap.events[-1][1]
    else:
        note = "no locate LED lit by the swap"
    running = swap.phase in (SwapPhase.REPLACING, SwapPhase.REBUILDING)
    left_out = _left_out(box, swap, undo)
    swap = swap.to(SwapPhase.ABORTED, box.now, "aborted")
    box.store.finish(swap)
    out.swap = swap
    out.notes.append(f"swap aborted: {note}")
    if running:
        out.notes.append(
            "the rebuild goes on in the pool (the pools screen and `nastui pools` show it)"
        )
    if left_out:
        out.notes.append(left_out)
    return out


def _left_out(box: Box, swap: Swap, undone: tuple[Op, ...]) -> str | None:
    """For an abort after the pull, before any new drive: the member stays out of service,
    and the writes that put it back once its drive is in again."""
    if swap.in_place or undone or swap.phase not in (SwapPhase.PREPARED, SwapPhase.PULLED):
        return None
    back = undo_for(prepare_ops(swap))
    if not back:
        return None
    lines = "`, then `".join(command_line(op) for op in back)
    return (
        f"{swap.old.label} is out: its member stays out of service; with that drive back in, "
        f"`{lines}` puts it back (or start a swap again with a new drive)"
    )


async def _undo(box: Box, swap: Swap, out: Outcome, undo: tuple[Op, ...]) -> Swap:
    """Run the undo writes `undo` (`nastui.swap.logic.undo`), each skipped with a line when
    the snapshot shows it pointless, every one tried even when one fails; a failure is
    `out.error`, and the swap stays as it is so the abort can be run again."""
    failed: list[str] = []
    for op in undo:
        skip = needless(op, swap, box.snapshot)
        if skip is not None:
            out.ran.append(f"undo skipped: {skip}")
            swap = swap.note(box.now, f"undo skipped: {skip}")
            continue
        ran = await execute(box, swap, (op,))
        swap = _said(box, swap, out, ran, "undo: ")
        failed += [" ".join(step.argv) for step in ran if not step.ok]
    if failed:
        out.error = (
            f"the undo of the preparing writes failed ({'; '.join(failed)}): check the pool "
            "(`nastui pools`), put the member back by hand if need be, then `nastui swap abort` "
            "again"
        )
        out.trouble = Trouble.FAILED
    return swap
