"""The steps of a swap, shared by `nastui swap` and the interface (headless, so both can use
them): open the box and the swap's state directory, start, follow, check the new drive,
replace, finish, abort.

What the swap reads and writes beyond a snapshot goes through the box's own hands
(`Backend.swap`, a `nastui.swap.logic.hands.SwapHands`): on the real machine the commands run
through the session's runner (`nastui.swap.io.machine`); on the demo they become hands on the
simulator (`nastui.sim.swap`). The swap file is kept in the session's state directory: the
demo's own, so a demo never touches the real swap file.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from nastui.config import ConfigError
from nastui.config.baybind import rebind
from nastui.control.locate_ladder import LadderLocator
from nastui.core.statefiles import BLINK
from nastui.model import HostSnapshot, LocateResult
from nastui.session import Session
from nastui.swap.flow.status import swap_dir
from nastui.swap.io.store import SwapStore
from nastui.swap.logic.argv import Ran
from nastui.swap.logic.check import check_new_drive
from nastui.swap.logic.codec import failed_serials
from nastui.swap.logic.hands import SwapHands
from nastui.swap.logic.names import Op, OpKind, Stage, stable_disk
from nastui.swap.logic.plan import Needs, Sectors, SwapPlan, make_plan
from nastui.swap.logic.state import DriveRef, Swap, SwapPhase, advance, led_wanted


@dataclass
class Box:
    """An opened box for a swap: the session, a fresh snapshot, and the swap files."""

    session: Session
    snapshot: HostSnapshot
    store: SwapStore

    @property
    def hands(self) -> SwapHands:
        """What the swap reads and writes on this box (the machine's, or the simulator's)."""
        return self.session.backend.swap

    @property
    def now(self) -> float:
        """The snapshot's time."""
        return self.snapshot.taken_at

    def sectors(self) -> dict[str, Sectors]:
        """Sector sizes of every drive (sysfs; the simulator's own on the demo)."""
        return self.hands.sectors(self.snapshot)

    def plan(self, target: str, in_place: bool | None = None) -> SwapPlan:
        """The plan for `target` on this snapshot."""
        return make_plan(self.snapshot, target, self.sectors(), in_place=in_place)


def open_box(session: Session, snapshot: HostSnapshot) -> Box:
    """The box for this session and snapshot."""
    return Box(session, snapshot, SwapStore(swap_dir(session)))


async def _locate(box: Box, swap: Swap, on: bool) -> LocateResult | None:
    locator = box.session.locator
    drive = box.snapshot.drive(swap.old.key)
    if isinstance(locator, LadderLocator) and drive is not None:
        result = await locator.locate_drive(drive, swap.old.bay, on)
        if on and result.ok and result.method == BLINK:
            locator.blinker.stop()
            locator.forget(drive.key)
            where = swap.old.bay if swap.old.bay is not None else drive.dev
            return dataclasses.replace(
                result,
                ok=False,
                message=f"no locate LED answers for {drive.dev}: `nastui locate {where}` "
                "blinks its activity light while it runs",
            )
        return result
    if swap.old.bay is None:
        return None
    result = await locator.locate(swap.old.bay, on)
    if isinstance(locator, LadderLocator) and result.ok and not on:
        locator.forget(swap.old.key)  # put out through the drive now in the bay: the same LED
    return result


async def switch_led(box: Box, swap: Swap, on: bool, why: str = "") -> Swap:
    """The swap with the old drive's bay LED switched and the line saying what happened among
    its events (`why` first). Fails safe: a switch that fails is said, never raised, and the
    swap goes on; an LED that may be left lit says how to put it out."""
    result = await _locate(box, swap, on)
    if result is None:
        return dataclasses.replace(swap, led=False).note(box.now, why + "no bay to light")
    line = why + result.message
    if not on and not result.ok:
        line += "; the LED may be left lit: " + _put_out(swap.old)
    elif on and result.ok and swap.in_place:
        line += "; it stays lit when the swap is over: " + _put_out(swap.old)
    return dataclasses.replace(swap, led=on and result.ok).note(box.now, line)


def _put_out(old: DriveRef) -> str:
    """How the operator puts out the LED of the old drive's bay when the swap may leave it lit."""
    where = old.bay if old.bay is not None else old.serial or old.dev
    return f"`nastui locate {where} --off` puts it out (an empty bay's too)"


async def follow_led(box: Box, before: Swap, after: Swap) -> Swap:
    """`after` with its bay LED as `led_wanted` says, switched only when that changed since
    `before` (or a lit LED is no longer wanted), so each poll does not switch it again."""
    wanted = led_wanted(after)
    if wanted and not led_wanted(before):
        if after.in_place:
            return await switch_led(box, after, True, "now pull the old drive: ")
        return await switch_led(box, after, True, "the new drive is out again: ")
    if not wanted and after.led:
        why = "the new drive is in: " if after.phase is SwapPhase.INSERTED else ""
        return await switch_led(box, after, False, why)
    return after


def new_swap(box: Box, plan: SwapPlan) -> Swap:
    """A planned swap from a plan (the plan must name a drive)."""
    assert plan.drive is not None
    old = DriveRef.of(plan.drive, plan.bay, stable_disk(plan.drive))
    present = tuple((d.key, box.snapshot.bay_of(d.key)) for d in box.snapshot.drives)
    swap = Swap(
        host=box.snapshot.host,
        phase=SwapPhase.PLANNED,
        in_place=plan.in_place,
        old=old,
        pool=plan.pool.name if plan.pool else None,
        pool_kind=plan.pool.kind.value if plan.pool else None,
        group=plan.group.name if plan.group else None,
        member=plan.member.name if plan.member else None,
        ops=plan.ops,
        members=tuple((m.pool.name, m.op_target, m.member.name) for m in plan.memberships),
        present=present,
        started_at=box.now,
        rebuild_estimate_s=plan.rebuild_seconds,
    )
    return swap.note(box.now, f"planned: {old.label}")


async def execute(box: Box, swap: Swap, ops: tuple[Op, ...], new_key: str = "") -> list[Ran]:
    """Run the writes on the box (played as hands on the simulator)."""
    return await box.hands.write(ops, box.now, new_key=new_key, members=swap.members)


async def check(box: Box, swap: Swap) -> Swap:
    """The swap with the new drive checked (in use, failed before, size, sectors, SMART)."""
    if swap.new is None:
        return swap
    drive = box.snapshot.drive(swap.new.key)
    if drive is None:
        return swap
    path = stable_disk(drive)
    uses = await box.hands.in_use(drive)
    plan = box.plan(swap.old.key) if box.snapshot.drive(swap.old.key) else None
    needs = plan.needs if plan is not None else None
    if needs is None:
        needs = _needs_from(swap, box)
    failed = failed_serials(box.store.log()) | {swap.old.serial or ""}
    found = check_new_drive(
        drive,
        needs,
        in_use=uses,
        failed_serials=failed - {""},
        sectors=box.sectors().get(drive.key),
    )
    texts = tuple(("!" if f.blocks else "") + f.text for f in found)
    ref = dataclasses.replace(swap.new, path=path)
    return dataclasses.replace(swap, new=ref, findings=texts)


def _needs_from(swap: Swap, box: Box) -> Needs:
    others = [box.sectors().get(k) for k, _ in swap.present if k != swap.old.key]
    sector = next((s for s in others if s is not None), None)
    return Needs(swap.old.capacity_bytes, sector, swap.pool_kind == "zfs")


async def follow(box: Box, swap: Swap) -> Swap:
    """The swap advanced by the snapshot: new drive checked when it appears; the bay bound
    to it when it is done; the LED as `led_wanted` says."""
    moved = swap
    for _ in range(len(SwapPhase)):  # a pull and an insert can both show in one snapshot
        step = advance(moved, box.snapshot)
        if step == moved:
            break
        moved = step
    if moved.phase is SwapPhase.INSERTED and (moved.new != swap.new or not moved.findings):
        moved = await check(box, moved)
    if moved.phase is SwapPhase.DONE and swap.phase is not SwapPhase.DONE:
        moved = moved.note(box.now, rebind_bay(box, moved))
    return await follow_led(box, swap, moved)


def rebind_bay(box: Box, swap: Swap) -> str:
    """Bind the bay to the new drive in the configuration when it was bound by the old serial;
    one line saying what was done."""
    path = box.session.config.path
    old, new = swap.old.serial, swap.new.serial if swap.new else None
    if path is None or swap.old.bay is None or not old or not new:
        return "configuration: no bay bound by serial to update"
    try:
        done = rebind(path, swap.old.bay, old, new)
    except ConfigError as exc:
        return f"configuration not updated: {exc}"
    if done is None:
        return f"configuration: bay {swap.old.bay} is not bound by serial {old}; left as it is"
    return f"configuration: bay {swap.old.bay} now bound to serial {new} ({path})"


def replace_ops(swap: Swap, snapshot: HostSnapshot | None = None) -> tuple[Op, ...]:
    """The replace-stage writes with the new drive's stable path filled in. A btrfs device
    pulled first is named by the devid btrfs now reports missing (its path is gone)."""
    path = swap.new.path if swap.new else None
    if not path:
        return ()
    ops = [op.with_new(path) for op in swap.ops if op.stage is Stage.REPLACE]
    devid = _missing_devid(swap, snapshot) if snapshot is not None else None
    return tuple(
        dataclasses.replace(op, old=devid) if op.kind is OpKind.BTRFS_REPLACE and devid else op
        for op in ops
    )


def _missing_devid(swap: Swap, snapshot: HostSnapshot) -> str | None:
    """The one devid btrfs reports missing in the swap's pool, once the old drive is out."""
    if swap.pool_kind != "btrfs" or swap.in_place or snapshot.drive(swap.old.key) is not None:
        return None
    pool = next((p for p in snapshot.pools if p.name == swap.pool), None)
    ids = [
        v.name.removeprefix("devid ")
        for _, v in (pool.root.walk() if pool else ())
        if v.name.startswith("devid ") and v.drive is None
    ]
    return ids[0] if len(ids) == 1 else None
