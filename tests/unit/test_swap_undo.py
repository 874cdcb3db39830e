"""A swap stopped while preparing, over every prefix of its preparing writes: kept, loaded,
aborted, the abort undoes exactly the writes that may have run and puts every member back,
whether the write in flight ran or not; and swap files from before `prep_started` and
`prep_done` read as before.

The pool is a model of what each write does to a member (md: in -> faulty -> out -> in; ZFS:
in -> offline -> in), refusing what the real tools refuse (removing a member in service,
adding one that is in); the abort's undo writes are played on it, skipped when `why_needless`
says so from the member's state.
"""

from __future__ import annotations

import dataclasses
import json
from typing import cast

from hypothesis import given
from hypothesis import strategies as st

from nastui.model import Drive, DriveIdentity, HostSnapshot, PoolState
from nastui.session import Session
from nastui.swap.flow.box import Box, new_swap
from nastui.swap.io.store import SwapStore
from nastui.swap.logic.argv import argv_for
from nastui.swap.logic.codec import decode_swap, encode_swap
from nastui.swap.logic.names import Op, OpKind, Stage
from nastui.swap.logic.plan import make_plan
from nastui.swap.logic.state import Swap, SwapPhase
from nastui.swap.logic.undo import (
    abort_ops,
    abort_undo,
    prepare_ops,
    undo_for,
    undo_ops,
    why_needless,
)
from nastui.swap.view import next_step, swap_data, swap_text
from tests.swapcorpus import md_snapshot, zpool_snapshot
from tests.unit.test_swap_plan import key_of

Member = tuple[str, str]  # (what the command names, the member as it names it)

# what each write does to its member's state, and the state it needs
_MOVES = {
    OpKind.ZPOOL_OFFLINE: ("in", "offline"),
    OpKind.ZPOOL_ONLINE: ("offline", "in"),
    OpKind.MD_FAIL: ("in", "faulty"),
    OpKind.MD_REMOVE: ("faulty", "out"),
    OpKind.MD_READD: ("out", "in"),
}
_SHOWN = {
    "in": PoolState.ONLINE,
    "faulty": PoolState.FAULTED,
    "offline": PoolState.OFFLINE,
    "out": None,
}


def play(pool: dict[Member, str], op: Op) -> bool:
    """Run `op` on the model; False (nothing changed) where the real tool refuses."""
    need, then = _MOVES[op.kind]
    member = (op.target, op.old)
    if pool.get(member, "in") != need:
        return False
    pool[member] = then
    return True


def swap_of(snap: HostSnapshot, target: str) -> Swap:
    """The swap `nastui swap start` keeps for `target` before its first write."""
    box = Box(cast(Session, None), snap, cast(SwapStore, None))  # new_swap reads the snapshot
    swap = new_swap(box, make_plan(snap, target, in_place=False))
    return swap.to(SwapPhase.PREPARING, snap.taken_at, "preparing")


def md_raid6() -> Swap:
    """A drive with a partition in each of four md arrays: fail and remove in each (8)."""
    snap = md_snapshot("mdstat_raid6.txt")
    return swap_of(snap, key_of(snap, "sdc6"))


def zfs_raidz2() -> Swap:
    snap = zpool_snapshot("zpool_mirror_raidz123.txt")
    return swap_of(snap, key_of(snap, "gptid/d3fccc31-d17d-11e4-9eed-10c37b9d936f", "raidz2-2"))


SWAPS = {"md": md_raid6(), "zfs": zfs_raidz2()}


def members(ops: tuple[Op, ...]) -> set[Member]:
    return {(o.target, o.old) for o in ops}


@st.composite
def stopped(draw: st.DrawFn) -> tuple[Swap, bool]:
    """A swap stopped after any number of its preparing writes began, and whether the last one
    begun ran (killed before or after it did its work, or it failed)."""
    swap = SWAPS[draw(st.sampled_from(sorted(SWAPS)))]
    count = len(prepare_ops(swap))
    started = draw(st.integers(0, count))
    answered = started > 0 and draw(st.booleans())  # it answered: it ran
    ran = answered or (started > 0 and draw(st.booleans()))
    done = started if answered else max(0, started - 1)
    return dataclasses.replace(swap, prep_started=started, prep_done=done), ran


def test_the_corpus_swaps_have_the_writes_the_test_needs() -> None:
    assert len(prepare_ops(SWAPS["md"])) == 8 and len(members(prepare_ops(SWAPS["md"]))) == 4
    assert [o.kind for o in prepare_ops(SWAPS["zfs"])] == [OpKind.ZPOOL_OFFLINE]


@given(stopped())
def test_abort_after_any_prefix_undoes_exactly_it_and_puts_every_member_back(
    case: tuple[Swap, bool],
) -> None:
    kept, in_flight_ran = case
    swap = decode_swap(encode_swap(kept))  # what the next nastui loads
    assert swap == kept
    begun = prepare_ops(swap)[: swap.prep_started]
    pool: dict[Member, str] = {}
    for number, op in enumerate(begun, 1):
        if number < len(begun) or in_flight_ran:
            assert play(pool, op), op
    undo = undo_ops(swap)
    assert undo == undo_for(begun)
    assert all(o.stage is Stage.UNDO for o in undo)
    assert members(undo) == members(begun)  # exactly the prefix: nothing after it
    for op in undo:
        skip = why_needless(op, _SHOWN[pool.get((op.target, op.old), "in")])
        if skip is None:
            assert play(pool, op), (op, pool)
    assert set(pool.values()) <= {"in"}, pool


@given(stopped())
def test_swap_text_names_each_write_as_ran_may_have_run_or_not_run(
    case: tuple[Swap, bool],
) -> None:
    swap = case[0]
    text = swap_text(swap)
    assert "INTERRUPTED while preparing" in text
    for number, op in enumerate(prepare_ops(swap), 1):
        state = (
            "ran"
            if number <= swap.prep_done
            else "may or may not have run"
            if number <= swap.prep_started
            else "not run"
        )
        assert f"  {state}: {' '.join(argv_for(op))}\n" in text


def test_md_undo_removes_then_re_adds_each_member_once_latest_first() -> None:
    swap = dataclasses.replace(SWAPS["md"], prep_started=3, prep_done=3)
    first, second = prepare_ops(swap)[0], prepare_ops(swap)[2]
    assert [argv_for(o)[2:] for o in undo_ops(swap)] == [
        ("--remove", second.old),
        ("--add", second.old),
        ("--remove", first.old),
        ("--add", first.old),
    ]
    assert undo_ops(dataclasses.replace(swap, prep_started=0, prep_done=0)) == ()


def test_needless_undo_writes_say_why() -> None:
    online, readd, remove = (
        Op(OpKind.ZPOOL_ONLINE, Stage.UNDO, "tank", "sdb"),
        Op(OpKind.MD_READD, Stage.UNDO, "/dev/md0", "/dev/disk/by-id/x-part1"),
        Op(OpKind.MD_REMOVE, Stage.UNDO, "/dev/md0", "/dev/disk/by-id/x-part1"),
    )
    assert why_needless(online, PoolState.ONLINE) == (
        "sdb is in service (ONLINE): `zpool online tank sdb` not needed"
    )
    assert why_needless(online, PoolState.OFFLINE) is None
    assert why_needless(readd, None) is None
    assert why_needless(remove, PoolState.FAULTED) is None
    assert "is not in /dev/md0" in (why_needless(remove, None) or "")


def test_a_swap_file_from_before_the_write_ahead_reads_as_before() -> None:
    """A swap.json kept by a nastui without `prep_started`/`prep_done` (it kept the swap only
    once preparing was over): the same swap, nothing begun, nothing to undo."""
    swap = dataclasses.replace(SWAPS["zfs"], phase=SwapPhase.PREPARED, led=True)
    data = json.loads(encode_swap(swap))
    for name in ("prep_started", "prep_done"):
        del data["swap"][name]
    assert decode_swap(json.dumps(data)) == swap
    data["swap"]["phase"] = "planned"  # an old failed preparation: kept as it was
    old = decode_swap(json.dumps(data))
    assert old is not None and old.phase is SwapPhase.PLANNED and undo_ops(old) == ()


def test_bad_counts_are_not_a_swap() -> None:
    data = json.loads(encode_swap(dataclasses.replace(SWAPS["md"], prep_started=2, prep_done=1)))
    for bad in (-1, "2", True, 1.5, None):
        data["swap"]["prep_started"] = bad
        assert decode_swap(json.dumps(data)) is None, bad
    data["swap"]["prep_started"], data["swap"]["prep_done"] = 1, 5
    swap = decode_swap(json.dumps(data))
    assert swap is not None and swap.prep_done == 1


def test_told_to_pull_a_drive_no_led_could_light_the_operator_gets_its_serial() -> None:
    """A prepared swap whose LED no method lit never says "pull the drive whose LED is lit"
    (a lit LED there may be another drive's): it names the bay and the serial on the label."""
    swap = SWAPS["zfs"].to(SwapPhase.PREPARED, 0.0, "prepared")
    lit = dataclasses.replace(swap, led=True)
    assert "whose LED is lit" in next_step(lit)
    unlit = next_step(swap)
    assert "whose LED is lit" not in unlit and "no locate LED is lit for it" in unlit
    assert f"serial {swap.old.serial}" in unlit and swap.old.serial
    assert unlit in swap_text(swap)
    done = dataclasses.replace(swap, in_place=True, phase=SwapPhase.DONE)
    assert "its LED is lit" not in next_step(done)
    assert "its LED is lit" in next_step(dataclasses.replace(done, led=True))


def test_a_prepared_swap_is_undone_whole_while_its_drive_is_in() -> None:
    """Aborting before the pull puts every preparing write back; after it, nothing is run."""
    for swap in SWAPS.values():
        ops = prepare_ops(swap)
        prepared = dataclasses.replace(
            swap, phase=SwapPhase.PREPARED, prep_started=len(ops), prep_done=len(ops)
        )
        snap = HostSnapshot(host="h", taken_at=0.0, drives=(_drive_of(swap),))
        assert abort_ops(prepared, snap) == undo_for(ops) != ()
        assert abort_ops(prepared, HostSnapshot(host="h", taken_at=0.0)) == ()


def _drive_of(swap: Swap) -> Drive:
    return Drive(swap.old.dev or "sdx", DriveIdentity(serial=swap.old.serial or swap.old.key))


def test_a_prepared_swap_says_what_its_abort_puts_back() -> None:
    """`nastui swap` and its JSON tell the abort of a prepared swap (before the pull) as they
    tell an interrupted start's: the commands, in `undo[]`."""
    swap = SWAPS["zfs"].to(SwapPhase.PREPARED, 0.0, "prepared")
    back = undo_for(prepare_ops(swap))
    assert abort_undo(swap) == back
    assert f"abort before the pull runs: {' '.join(argv_for(back[0]))}" in swap_text(swap)
    assert swap_data(swap)["swap"]["undo"] == [list(argv_for(op)) for op in back]
    for other in (SwapPhase.PULLED, SwapPhase.REBUILDING):
        moved = dataclasses.replace(swap, phase=other)
        assert abort_undo(moved) == () and "abort before the pull" not in swap_text(moved)
    assert abort_undo(dataclasses.replace(swap, in_place=True)) == ()
