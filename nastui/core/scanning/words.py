"""Words about scans and scrub actions, shared by the CLI and the UI (pure): which pool a name
means, what an action will do to it, whether the pool's kind can do it at all, the time left
(the tool's own figure and nastui's), and a ZFS removal or expansion as one line."""

from __future__ import annotations

from collections.abc import Iterable

from nastui.core import units
from nastui.model import Pool, PoolKind, ScanProgress, ScanState, ScrubAction

_NOUN = {PoolKind.ZFS: "scrub", PoolKind.BTRFS: "scrub", PoolKind.MDRAID: "check"}


def find_pool(pools: Iterable[Pool], name: str) -> Pool | None:
    """The pool called `name`: by name, UUID, btrfs mount point or /dev/mdX path."""
    wanted = name.removeprefix("/dev/") if name.startswith("/dev/md") else name
    for pool in pools:
        if wanted in (pool.name, pool.uuid, pool.mountpoint):
            return pool
    return None


def can_do(pool: Pool, action: ScrubAction) -> bool:
    """False for pause on btrfs and md, which have no such thing."""
    return action is not ScrubAction.PAUSE or pool.kind is PoolKind.ZFS


def pointless(pool: Pool, action: ScrubAction) -> str | None:
    """Why `action` makes no sense on `pool` as it stands (nothing to stop, one already
    running), or None; the UI says this instead of asking."""
    noun = _NOUN[pool.kind]
    if not can_do(pool, action):
        return f"{pool.kind.value} has no {noun} pause: x stops it"
    state = pool.scan.state if pool.scan is not None else None
    if action is ScrubAction.START and state is ScanState.RUNNING and pool.scan is not None:
        return f"{pool.name}: a {pool.scan.kind.value} is already running"
    if action is ScrubAction.PAUSE and state is ScanState.PAUSED:
        return f"{pool.name}: the {noun} is already paused"
    if action is not ScrubAction.START and state not in (ScanState.RUNNING, ScanState.PAUSED):
        return f"{pool.name}: no {noun} is running"
    return None


def _scrubbed_bytes(pool: Pool) -> int | None:
    """What a scrub reads: the space in use (an md check reads the whole array)."""
    return pool.allocated_bytes if pool.kind is not PoolKind.MDRAID else pool.size_bytes


def _estimate(pool: Pool) -> str:
    """ "about 8h10m at the last scrub's rate", or "" when nothing says."""
    last = pool.last_scrub
    total = _scrubbed_bytes(pool)
    if last is None or last.duration is None or not last.duration or total is None:
        return ""
    if last.bytes_total:
        seconds = total / (last.bytes_total / last.duration)
        return f", about {units.duration(seconds)} at the last {_NOUN[pool.kind]}'s pace"
    return f"; the last one took {units.duration(last.duration)}"


def action_prompt(pool: Pool, action: ScrubAction) -> str:
    """What `action` will do to `pool`, for the confirmation question."""
    noun = _NOUN[pool.kind]
    running = pool.scan is not None and pool.scan.state is ScanState.RUNNING
    paused = pool.scan is not None and pool.scan.state is ScanState.PAUSED
    if action is ScrubAction.START and paused:
        return f"Resume the paused {noun} of {pool.name} ({pool.kind.value})?"
    if action is ScrubAction.START:
        size = _scrubbed_bytes(pool)
        reads = f"reads all {units.size(size)} in use" if size is not None else "reads every block"
        return (
            f"Start a {noun} of {pool.name} ({pool.kind.value})? It {reads}{_estimate(pool)}, "
            "and slows other I/O meanwhile."
        )
    if action is ScrubAction.PAUSE:
        return f"Pause the {noun} of {pool.name}? Start resumes it where it stopped."
    where = ""
    if running and pool.scan is not None and pool.scan.percent is not None:
        where = f" at {pool.scan.percent:.1f}%"
    again = (
        "a new one starts from the beginning"
        if pool.kind is not PoolKind.BTRFS
        else ("`btrfs scrub resume` continues it")
    )
    return f"Stop the {noun} of {pool.name}{where}? {again[0].upper()}{again[1:]}."


TOOLS = {PoolKind.ZFS: "zpool", PoolKind.BTRFS: "btrfs", PoolKind.MDRAID: "md"}


def eta_text(scan: ScanProgress, tool: str | None = None) -> str:
    """Time left, the tool's own figure first when it printed one: "ETA 2h41m (zpool)", with
    nastui's estimate from the smoothed rate beside it when the two differ by more than a tenth
    ("ETA 2h41m (zpool; nastui 2h05m)"); else nastui's: "ETA 2h05m", "ETA ?". Without a
    `tool` name, the tool's figure alone."""
    own, said = scan.eta_seconds, scan.reported_eta_seconds
    if said is None:
        return f"ETA {units.duration(own)}"
    if tool is None:
        return f"ETA {units.duration(said)}"
    who = tool
    if own is not None and abs(own - said) > max(60.0, 0.1 * said):
        return f"ETA {units.duration(said)} ({who}; nastui {units.duration(own)})"
    return f"ETA {units.duration(said)} ({who})"


def layout_text(change: ScanProgress, now: float, tool: str | None = None) -> str:
    """A ZFS vdev removal or raidz expansion as one line: "remove 22.6% of 698 MiB,
    39.4 MiB/s, ETA 0s (zpool)", "expand finished 3 days ago in 2m17s", "remove canceled ..."."""
    kind = change.kind.value
    if change.state in (ScanState.RUNNING, ScanState.PAUSED):
        percent = f"{change.percent:.1f}%" if change.percent is not None else "?%"
        paused = " (paused)" if change.state is ScanState.PAUSED else ""
        of = f" of {units.size(change.bytes_total)}" if change.bytes_total is not None else ""
        rate = units.rate(change.rate_bytes_per_s)
        return f"{kind} {percent}{of}{paused}, {rate}, {eta_text(change, tool)}"
    ended = units.age(now - change.ended_at if change.ended_at is not None else None, unknown="")
    took = f" in {units.duration(change.duration)}" if change.duration is not None else ""
    verb = "canceled" if change.state is ScanState.CANCELED else "finished"
    return f"{kind} {verb} {ended}{took}".replace("  ", " ").rstrip()
