"""A drive swap as a state machine, advanced by what each snapshot shows (pure).

    planned -> preparing -> prepared -> pulled -> inserted -> replacing -> rebuilding -> done
                                    \\-> (in place: no pull) inserted ...          (or aborted)

`advance(swap, snapshot)` reads one snapshot: the old drive gone (pulled), a drive that was not
there when the swap began (inserted: the candidate, checked by `nastui.swap.logic.check`), the
pool's rebuild (progress, rate, ETA) and its end (done). A drive present at the start that
disappears while the swap waits for the old one is a *wrong pull*: `wrong_pulls` names it and
its bay, until it comes back.

Preparing is written ahead: the swap is kept in *preparing* before its first preparing write,
and again before and after each one (`prep_started`, `prep_done`), so a swap killed anywhere
in it (SIGKILL, power loss, a dead SSH session) is found still *preparing*, saying which write
ran and which may or may not have; `nastui swap abort` undoes those
(`nastui.swap.logic.undo`). Nothing here moves a swap out of preparing.

The swap is kept as JSON in the state directory (`nastui.swap.logic.codec`), so any front end
picks it up where it was.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from nastui.model import Drive, HostSnapshot, Pool, PoolState, ScanKind, ScanState, Vdev
from nastui.swap.logic.names import Op

Down = tuple[str, str, str, int | None, str | None]  # pool, member, state, bay, drive key
_REBUILDS = (ScanKind.RESILVER, ScanKind.RECOVERY, ScanKind.RESYNC, ScanKind.REPLACE)


class SwapPhase(StrEnum):
    """Where a swap is."""

    PLANNED = "planned"
    PREPARING = "preparing"
    PREPARED = "prepared"
    PULLED = "pulled"
    INSERTED = "inserted"
    REPLACING = "replacing"
    REBUILDING = "rebuilding"
    DONE = "done"
    ABORTED = "aborted"


@dataclass(frozen=True, slots=True)
class DriveRef:
    """A drive as the swap remembers it (it may be gone from later snapshots)."""

    key: str
    serial: str | None
    model: str | None
    dev: str
    bay: int | None
    path: str | None = None
    capacity_bytes: int | None = None

    @classmethod
    def of(cls, drive: Drive, bay: int | None, path: str | None) -> DriveRef:
        """The reference for a drive of a snapshot."""
        ident = drive.identity
        return cls(drive.key, ident.serial, ident.model, drive.dev, bay, path, ident.capacity_bytes)

    @property
    def label(self) -> str:
        """ "bay 10 HGST HUS724040ALA640 PK1334..." for messages."""
        where = f"bay {self.bay} " if self.bay is not None else ""
        return f"{where}{self.model or 'unknown model'} {self.serial or self.dev}"


@dataclass(frozen=True, slots=True)
class Progress:
    """The rebuild as last seen: percent, rate (bytes/s), seconds left."""

    percent: float | None
    rate: float | None
    eta_s: float | None
    seen_at: float


@dataclass(frozen=True, slots=True)
class Swap:
    """One swap (see the module docstring).

    Attributes:
        host: the host it runs on.
        phase: where it is.
        in_place: the new drive goes in a free bay first; the old one is pulled at the end.
        old: the drive being replaced.
        pool, pool_kind, group, member: where it sits, as the tool names it.
        ops: the planned writes (placeholders for the new drive until it is known).
        members: (pool, what its commands name, member) for every pool the drive is in.
        present: drive keys and bays present when the swap began (for wrong pulls).
        started_at: when it began; the other times when each phase was reached.
        new: the candidate drive, once one appeared.
        findings: what the check found about it, "!" first for what blocks.
        wrong_pulls: drives pulled by mistake, as "bay N SERIAL" (empty when none).
        failures: other members of the pool failed or gone since the swap began (a second
            failure mid-rebuild), by the name the pool tool gives them.
        progress: the rebuild as last seen.
        rebuild_estimate_s: the plan's estimate.
        events: (time, text) lines, oldest first.
        burnin: the new drive's burn-in, when one ran: "passed: ..." or "!failed: ..." (a
            failed one blocks the replace, like a finding); cleared with the new drive.
        led: the swap lit the bay's locate LED and has not put it out since (`led_wanted`
            says when it should be lit).
        prep_started: how many of the preparing writes (`ops` of stage prepare, in order) were
            begun: each may have run.
        prep_done: how many of them ran and answered success (at most `prep_started`).
    """

    host: str
    phase: SwapPhase
    in_place: bool
    old: DriveRef
    pool: str | None
    pool_kind: str | None
    group: str | None
    member: str | None
    ops: tuple[Op, ...]
    members: tuple[tuple[str, str, str], ...]
    present: tuple[tuple[str, int | None], ...]
    started_at: float
    pulled_at: float | None = None
    inserted_at: float | None = None
    replaced_at: float | None = None
    done_at: float | None = None
    new: DriveRef | None = None
    findings: tuple[str, ...] = ()
    wrong_pulls: tuple[str, ...] = ()
    failures: tuple[str, ...] = ()
    progress: Progress | None = None
    rebuild_estimate_s: float | None = None
    events: tuple[tuple[float, str], ...] = ()
    burnin: str | None = None
    led: bool = False
    prep_started: int = 0
    prep_done: int = 0

    @property
    def active(self) -> bool:
        """Not done nor aborted."""
        return self.phase not in (SwapPhase.DONE, SwapPhase.ABORTED)

    @property
    def blocked(self) -> bool:
        """The new drive has a finding that blocks the replace, or failed its burn-in."""
        failed = self.burnin is not None and self.burnin.startswith("!")
        return failed or any(f.startswith("!") for f in self.findings)

    def note(self, at: float, text: str) -> Swap:
        """This swap with one more event line."""
        return dataclasses.replace(self, events=(*self.events, (at, text)))

    def to(self, phase: SwapPhase, at: float, text: str) -> Swap:
        """This swap moved to `phase`, with the event."""
        return dataclasses.replace(self, phase=phase).note(at, text)


def led_wanted(swap: Swap) -> bool:
    """Whether the old drive's bay LED should be lit now: from the moment the operator is told
    to pull until a new drive is found (the operator, drive in hand, looks for the bay to
    fill), again if that drive is taken out; in place, once the rebuild is done, to show which
    drive to pull. Out at every other time: a locate LED on a drive being rebuilt onto says
    "pull me" of the one drive that must stay."""
    if swap.in_place:
        return swap.phase is SwapPhase.DONE
    return swap.phase in (SwapPhase.PREPARED, SwapPhase.PULLED)


def _present_keys(snapshot: HostSnapshot) -> set[str]:
    return {d.key for d in snapshot.drives}


def wrongly_pulled(swap: Swap, snapshot: HostSnapshot) -> tuple[tuple[str, int | None], ...]:
    """Drives there at the start, not the old one nor the new one, gone now: (key, bay)."""
    keys = _present_keys(snapshot)
    skip = {swap.old.key, swap.new.key if swap.new else ""}
    return tuple((k, bay) for k, bay in swap.present if k not in keys and k not in skip)


def wrong_pulls(swap: Swap, snapshot: HostSnapshot) -> tuple[str, ...]:
    """`wrongly_pulled` as "bay N SERIAL" (the key alone without a bay)."""
    gone = wrongly_pulled(swap, snapshot)
    return tuple(f"bay {bay} {k}" if bay is not None else k for k, bay in gone)


def candidate(swap: Swap, snapshot: HostSnapshot) -> Drive | None:
    """A drive that was not there at the start: the old bay's first, else any."""
    known = {k for k, _ in swap.present}
    fresh = [d for d in snapshot.drives if d.key not in known]
    in_bay = [d for d in fresh if snapshot.bay_of(d.key) == swap.old.bay]
    found = in_bay or fresh
    return found[0] if found else None


def _busy(note: str | None) -> bool:
    text = note or ""
    return any(w in text for w in ("resilvering", "recovering", "not in sync", "replace target"))


_GONE = (PoolState.FAULTED, PoolState.REMOVED, PoolState.UNAVAIL, PoolState.OFFLINE)


def _pools(swap: Swap, snapshot: HostSnapshot) -> list[Pool]:
    names = {m[0] for m in swap.members} or {swap.pool or ""}
    return [p for p in snapshot.pools if p.name in names]


def failures(swap: Swap, snapshot: HostSnapshot) -> tuple[str, ...]:
    """Members of the swap's pools, other than the ones replaced, failed or gone now, as
    "POOL MEMBER STATE (bay N)"."""
    return tuple(
        f"{pool} {name} {state}" + (f" (bay {bay})" if bay is not None else "")
        for pool, name, state, bay, _ in failed_members(swap, snapshot)
    )


def failed_members(swap: Swap, snapshot: HostSnapshot) -> tuple[Down, ...]:
    """`failures` as (pool, member, state, bay, drive key); a wrongly pulled drive's member is
    the wrong pull's story, not a second failure (`_not_pulled`)."""
    bays = dict(swap.present)
    replaced = {m[2] for m in swap.members} | {swap.member or ""}
    out: list[Down] = []
    for pool in _pools(swap, snapshot):
        out += _down(pool, swap, replaced, bays)
    return tuple(_not_pulled(out, wrongly_pulled(swap, snapshot)))


def _not_pulled(downs: Sequence[Down], pulled: Sequence[tuple[str, int | None]]) -> list[Down]:
    """The failed members that are not a wrongly pulled drive (that one is told as a wrong
    pull): a member naming the drive (by-id names hold the serial) or still linked to it,
    then, for each pulled drive named nowhere, one member the tool can no longer link to a
    drive (md's "slot 2", a bare sdX)."""
    keys = {key for key, _ in pulled}

    def named(down: Down) -> bool:
        return down[4] in keys or any(k in down[1] for k in keys)

    unnamed = len(keys) - sum(1 for d in downs if named(d))
    out = []
    for down in downs:
        if named(down):
            continue
        if down[4] is None and unnamed > 0:
            unnamed -= 1
            continue
        out.append(down)
    return out


def _anonymous(leaf: Vdev) -> bool:
    """A gone member the tool cannot name (md "slot 2", "missing device"; btrfs "devid 3")."""
    return leaf.drive is None and leaf.name.startswith(("slot ", "missing device", "devid "))


def _down(pool: Pool, swap: Swap, replaced: set[str], bays: dict[str, int | None]) -> list[Down]:
    leaves = [v for _, v in pool.root.walk() if not v.children]
    # the replaced member, once out of an md array or btrfs, is one of the anonymous holes
    spare = 0 if any(v.name in replaced for v in leaves) else 1
    out = []
    for leaf in leaves:
        if leaf.state not in _GONE or leaf.name in replaced:
            continue
        if leaf.drive is not None and leaf.drive == swap.old.key:
            continue
        if spare and _anonymous(leaf):
            spare -= 1
            continue
        bay = bays.get(leaf.drive or "")
        out.append((pool.name, leaf.name, leaf.state.value, bay, leaf.drive))
    return out


def _finished_at(snapshot: HostSnapshot, swap: Swap) -> float:
    ends = [
        p.scan.ended_at
        for p in _pools(swap, snapshot)
        if p.scan is not None and p.scan.kind in _REBUILDS and p.scan.ended_at is not None
    ]
    return max(ends) if ends else snapshot.taken_at


def _rebuild(swap: Swap, snapshot: HostSnapshot) -> tuple[bool, bool, Progress | None]:
    """(running, finished with the new drive in every pool, progress) for the swap's pools."""
    pools = _pools(swap, snapshot)
    if not pools:
        return False, False, None
    now = snapshot.taken_at
    scans = [
        p.scan
        for p in pools
        if p.scan is not None and p.scan.kind in _REBUILDS and p.scan.state is ScanState.RUNNING
    ]
    running = bool(scans)
    progress = (
        Progress(scans[0].percent, scans[0].rate_bytes_per_s, scans[0].eta_seconds, now)
        if scans
        else None
    )
    new_key = swap.new.key if swap.new else None
    settled = all(_settled(p, new_key) for p in pools)
    return running, not running and settled, progress


def _settled(pool: Pool, new_key: str | None) -> bool:
    nodes = [v for _, v in pool.root.walk()]
    has_new = any(
        v.drive == new_key and v.state is PoolState.ONLINE and not _busy(v.note) for v in nodes
    )
    return has_new and not any(v.kind == "replacing" for v in nodes)


def advance(swap: Swap, snapshot: HostSnapshot) -> Swap:
    """The swap after what `snapshot` shows (unchanged when nothing moved)."""
    now = snapshot.taken_at
    wrong = wrong_pulls(swap, snapshot) if swap.active else ()
    if wrong != swap.wrong_pulls:
        text = (
            f"WRONG DRIVE PULLED: {', '.join(wrong)}: put it back now"
            if wrong
            else "the wrongly pulled drive is back"
        )
        swap = dataclasses.replace(swap, wrong_pulls=wrong).note(now, text)
    failed = failures(swap, snapshot) if swap.active and swap.pool else ()
    if failed != swap.failures:
        text = f"ANOTHER MEMBER FAILED: {', '.join(failed)}" if failed else "no other member down"
        swap = dataclasses.replace(swap, failures=failed).note(now, text)
    gone = swap.old.key not in _present_keys(snapshot)
    if swap.phase is SwapPhase.PREPARED and not swap.in_place and gone:
        swap = dataclasses.replace(swap, pulled_at=now)
        swap = swap.to(SwapPhase.PULLED, now, f"{swap.old.label} pulled")
        if swap.pool is None:
            swap = dataclasses.replace(swap, done_at=now)
            return swap.to(SwapPhase.DONE, now, "in no pool: nothing to rebuild")
        return swap
    waiting = SwapPhase.PREPARED if swap.in_place else SwapPhase.PULLED
    if swap.phase is waiting:
        new = candidate(swap, snapshot)
        if new is not None:
            ref = DriveRef.of(new, snapshot.bay_of(new.key), None)
            swap = dataclasses.replace(swap, new=ref, inserted_at=now)
            return swap.to(SwapPhase.INSERTED, now, f"new drive {ref.label} found")
    if (
        swap.phase is SwapPhase.INSERTED
        and swap.new
        and swap.new.key not in _present_keys(snapshot)
    ):
        swap = dataclasses.replace(swap, new=None, findings=(), inserted_at=None, burnin=None)
        return swap.to(waiting, now, "the new drive was taken out again")
    if swap.phase in (SwapPhase.REPLACING, SwapPhase.REBUILDING):
        running, finished, progress = _rebuild(swap, snapshot)
        if running and swap.phase is SwapPhase.REPLACING:
            swap = swap.to(SwapPhase.REBUILDING, now, "rebuild running")
        if progress is not None:
            swap = dataclasses.replace(swap, progress=progress)
        if finished:
            swap = dataclasses.replace(swap, done_at=_finished_at(snapshot, swap))
            left = f"; still down: {', '.join(swap.failures)}" if swap.failures else ""
            return swap.to(SwapPhase.DONE, now, f"rebuild finished, the new drive is in{left}")
    return swap
