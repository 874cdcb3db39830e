"""What `nastui swap abort` undoes of a swap stopped while preparing (pure).

A swap found *preparing* (killed between or during its writes, or one of them failed) says
how many of its preparing writes were begun (`Swap.prep_started`: each may have run) and how
many answered success (`Swap.prep_done`). `undo_ops` gives the writes that put the begun ones
back, the latest first, each once:

    zpool offline POOL M    ->  zpool online POOL M
    mdadm ARR --fail M      ->  mdadm ARR --remove M, then mdadm ARR --add M
    mdadm ARR --remove M    ->  the same two

(md takes no failed member back in place: it is removed, then added again, which re-adds it
when its bitmap allows and recovers it whole otherwise.) The undo of a write that never ran is
harmless (onlining a member in service, removing one that is not in the array), and `needless`
says from a snapshot when it would be pointless, so the abort skips it with that line: the
member is in service (the write never ran, or was put back already) or, for the remove, no
longer in the array.
"""

from __future__ import annotations

from collections.abc import Sequence

from nastui.model import HostSnapshot, PoolState, Vdev
from nastui.swap.logic.argv import argv_for
from nastui.swap.logic.names import Op, OpKind, Stage
from nastui.swap.logic.state import Swap, SwapPhase

_OUT_OF_SERVICE = (PoolState.FAULTED, PoolState.REMOVED, PoolState.UNAVAIL, PoolState.OFFLINE)


def prepare_ops(swap: Swap) -> tuple[Op, ...]:
    """The swap's preparing writes, in the order they run."""
    return tuple(o for o in swap.ops if o.stage is Stage.PREPARE)


def begun(swap: Swap) -> tuple[Op, ...]:
    """The preparing writes that may have run (begun, whether or not they answered)."""
    return prepare_ops(swap)[: swap.prep_started]


def undo_of(op: Op) -> tuple[Op, ...]:
    """The writes that put one preparing write back (none for any other write)."""
    if op.kind is OpKind.ZPOOL_OFFLINE:
        return (Op(OpKind.ZPOOL_ONLINE, Stage.UNDO, op.target, op.old, why="back in service"),)
    if op.kind in (OpKind.MD_FAIL, OpKind.MD_REMOVE):
        return (
            Op(OpKind.MD_REMOVE, Stage.UNDO, op.target, op.old, why="out, if still in as failed"),
            Op(OpKind.MD_READD, Stage.UNDO, op.target, op.old, why="back in the array"),
        )
    return ()


def undo_for(ops: Sequence[Op]) -> tuple[Op, ...]:
    """The undo of `ops` (writes that may have run, in the order they ran): the latest first,
    each undo write once."""
    out: list[Op] = []
    for op in reversed(ops):
        out += [u for u in undo_of(op) if u not in out]
    return tuple(out)


def undo_ops(swap: Swap) -> tuple[Op, ...]:
    """What an abort runs for a swap stopped while preparing (see the module docstring)."""
    return undo_for(begun(swap))


def abort_undo(swap: Swap) -> tuple[Op, ...]:
    """What `nastui swap abort` puts back, as the swap tells it: what may have run of a start
    stopped while preparing; all the preparing writes of a prepared swap (run only while its
    old drive is still in: `abort_ops`); nothing in any other phase or in place (the old
    drive was never taken out of service)."""
    if swap.phase is SwapPhase.PREPARING:
        return undo_ops(swap)
    if swap.phase is SwapPhase.PREPARED and not swap.in_place:
        return undo_for(prepare_ops(swap))
    return ()


def abort_ops(swap: Swap, snapshot: HostSnapshot) -> tuple[Op, ...]:
    """What `nastui swap abort` runs now (`abort_undo`), but nothing for a prepared swap whose
    old drive is out already: before the pull, the abort cancels the swap and the member goes
    back in service; after it, there is nothing to put back."""
    if swap.phase is SwapPhase.PREPARED and swap.old.key not in {d.key for d in snapshot.drives}:
        return ()
    return abort_undo(swap)


def why_needless(op: Op, state: PoolState | None) -> str | None:
    """Why the undo write `op` is pointless with its member in `state` (None: not in the pool
    or array), or None when it is to run."""
    command = " ".join(argv_for(op))
    if state is not None and state not in _OUT_OF_SERVICE:
        return f"{op.old} is in service ({state.value}): `{command}` not needed"
    if op.kind is OpKind.MD_REMOVE and state is None:
        return f"{op.old} is not in {op.target}: `{command}` not needed"
    return None


def _leaf(root: Vdev, member: str, drive_key: str) -> Vdev | None:
    leaves = [v for _, v in root.walk() if not v.children]
    found = [v for v in leaves if v.name == member] or [v for v in leaves if v.drive == drive_key]
    return found[0] if found else None


def needless(op: Op, swap: Swap, snapshot: HostSnapshot) -> str | None:
    """`why_needless` for the member `op` names as the snapshot shows it; None (run it) when
    the snapshot does not show its pool."""
    where = {target: (pool, member) for pool, target, member in swap.members}
    name, member = where.get(op.target, (swap.pool or "", swap.member or ""))
    pool = next((p for p in snapshot.pools if p.name == name), None)
    if pool is None:
        return None
    leaf = _leaf(pool.root, member, swap.old.key)
    return why_needless(op, leaf.state if leaf is not None else None)
