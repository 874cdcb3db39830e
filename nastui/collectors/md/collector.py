"""md RAID arrays from /proc/mdstat and /sys/block/mdX/md, as `Pool` records.

/proc/mdstat gives the arrays, members and the running pass; sysfs adds what mdstat cannot
say: `sync_action` (tells a repair from a resync), `sync_completed` in exact sectors,
`mismatch_cnt` (what a check found), `degraded`, `array_state` and each member's state and
read-error count. Nothing here needs root; `mdadm` is not run.

md keeps no record of when a check last completed, so `last_scrub` stays None here. An IMSM/DDF
container (always "inactive", every disk "(S)") is shown as the set of disks it is, ONLINE: its
volumes are the arrays that can be degraded. Lines of /proc/mdstat that were not understood are
the pool's `notes`; lines before any array are one `CollectorError` each.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from nastui.collectors.md.mdstat import MdArray, MdMember, MdProgress, parse_mdstat_report
from nastui.collectors.sysfs import TABLE_LIMIT, list_names, read_int, read_text
from nastui.model import (
    CollectorError,
    Pool,
    PoolKind,
    PoolState,
    ScanKind,
    ScanProgress,
    ScanState,
    Vdev,
)

SOURCE = "mdraid"
_KINDS = {
    "resync": ScanKind.RESYNC,
    "recover": ScanKind.RECOVERY,
    "recovery": ScanKind.RECOVERY,
    "check": ScanKind.CHECK,
    "repair": ScanKind.REPAIR,
    "reshape": ScanKind.RESHAPE,
}
# Sample: 1569888 / 2093056
_COMPLETED = re.compile(r"^(?P<done>\d+)\s*/\s*(?P<total>\d+)$")
_FLAG_NOTES = {"W": "write-mostly", "R": "(replacement)", "J": "journal"}
_NOT_IN_SLOT = frozenset("FSRJ")  # faulty, spare, replacement, journal: not holding a slot
# The most devices an array can have (md 1.x superblock: 1920 roles). A larger count in mdstat
# is a damaged line: placeholders stop there instead of filling memory.
MAX_MD_DEVICES = 1920


@dataclass(frozen=True)
class MdSys:
    """What /sys/block/mdX/md says about an array (None where a file is missing).

    Attributes:
        sync_action: idle, frozen, resync, recover, check, repair, reshape.
        sync_completed: (done, total) in 512-byte sectors, or "delayed"/"none" as text.
        sync_speed_kib_s: current speed.
        mismatch_cnt: sectors found inconsistent by the last check or repair.
        degraded: missing devices.
        array_state: clean, active, inactive, read-auto, broken...
        uuid: the array UUID.
        member_states: member kernel name -> its state ("in_sync", "faulty", "spare"...).
        member_errors: member kernel name -> read errors corrected on it.
    """

    sync_action: str | None = None
    sync_completed: tuple[int, int] | str | None = None
    sync_speed_kib_s: int | None = None
    mismatch_cnt: int | None = None
    degraded: int | None = None
    array_state: str | None = None
    uuid: str | None = None
    member_states: dict[str, str] = field(default_factory=dict)
    member_errors: dict[str, int] = field(default_factory=dict)


def read_md_sys(root: Path, name: str) -> MdSys:
    """Read /sys/block/<name>/md under `root`."""
    md = root / "sys/block" / name / "md"
    completed_text = read_text(md / "sync_completed")
    completed: tuple[int, int] | str | None = completed_text
    if completed_text and (match := _COMPLETED.match(completed_text)) is not None:
        completed = (int(match["done"]), int(match["total"]))
    states: dict[str, str] = {}
    errors: dict[str, int] = {}
    for member in (md / n for n in list_names(md) if n.startswith("dev-")):
        dev = member.name.removeprefix("dev-")
        states[dev] = read_text(member / "state") or ""
        if (count := read_int(member / "errors")) is not None:
            errors[dev] = count
    return MdSys(
        sync_action=read_text(md / "sync_action"),
        sync_completed=completed,
        sync_speed_kib_s=read_int(md / "sync_speed"),
        mismatch_cnt=read_int(md / "mismatch_cnt"),
        degraded=read_int(md / "degraded"),
        array_state=read_text(md / "array_state"),
        uuid=read_text(md / "uuid"),
        member_states=states,
        member_errors=errors,
    )


def _state(array: MdArray, sys: MdSys) -> PoolState:
    if array.container:
        return PoolState.ONLINE
    if sys.array_state == "broken":
        return PoolState.FAULTED
    if not array.active or sys.array_state == "inactive":
        return PoolState.UNAVAIL
    missing = (array.raid_disks or 0) - (array.working or 0)
    if missing > 0 or (sys.degraded or 0) > 0 or "_" in (array.status or ""):
        return PoolState.DEGRADED
    if _failed(array) and array.status is None:  # no [UU] map to show every slot is in sync
        return PoolState.DEGRADED
    return PoolState.ONLINE  # a failed device beside full slots: a spare took its place


def _failed(array: MdArray) -> list[str]:
    """The members marked (F)aulty."""
    return [m.dev for m in array.members if "F" in m.flags]


def _leaf(member: MdMember, sys: MdSys, catching_up: str | None) -> Vdev:
    kernel_state = sys.member_states.get(member.dev, "")
    if "F" in member.flags or "faulty" in kernel_state:
        state, note = PoolState.FAULTED, "faulty"
    elif "S" in member.flags:
        state, note = PoolState.AVAIL, None
    else:
        waiting = catching_up is not None and "waiting" in catching_up
        state = PoolState.DEGRADED if waiting else PoolState.ONLINE
        notes = [_FLAG_NOTES[f] for f in member.flags if f in _FLAG_NOTES]
        note = catching_up or " ".join(notes) or None
    return Vdev(member.dev, "disk", state, sys.member_errors.get(member.dev), note=note)


def _catching_up(array: MdArray, sys: MdSys, working: list[MdMember]) -> set[str]:
    """Members present but not in sync. sysfs says so when it is there; from mdstat alone:
    during a `mdadm --replace` the (R) members, else, while a recovery runs or waits
    (resync=DELAYED), the members the kernel numbers past the last slot (it gives those numbers
    to devices added later), when there are exactly as many as [UU_] has gaps."""
    present = [m for m in working if not set(m.flags) & set("FS")]
    if sys.member_states:
        return {m.dev for m in present if "in_sync" not in sys.member_states.get(m.dev, "in_sync")}
    progress, disks = array.progress, array.raid_disks or 0
    if progress is None or not disks:
        return set()
    replacements = {m.dev for m in present if "R" in m.flags}
    if replacements:
        return replacements
    if progress.action != "recovery" and not progress.waiting:
        return set()
    later = {m.dev for m in present if not m.flags and m.index >= disks}
    gaps = (array.status or "").count("_")
    return later if array.status is None or len(later) == gaps else set()


def _members(array: MdArray, sys: MdSys) -> tuple[tuple[Vdev, ...], tuple[Vdev, ...]]:
    """(members in mdstat's number order and a placeholder per missing device, spares).

    mdstat's [n] is a descriptor number, not the slot, so a missing device is named after its
    slot in [UU_] only when that is unambiguous.
    """
    members = sorted(array.members, key=lambda m: m.index)
    spares = [m for m in members if "S" in m.flags and array.active]
    working = [m for m in members if m not in spares]
    behind = _catching_up(array, sys, working)
    note = _behind_note(array)
    leaves = [_leaf(m, sys, note if m.dev in behind else None) for m in working]
    present = sum(1 for m in working if not set(m.flags) & _NOT_IN_SLOT)
    failed = sum(1 for m in working if "F" in m.flags)
    missing = max(0, min(array.raid_disks or 0, MAX_MD_DEVICES) - present - failed)  # F: a gap
    gaps = [i for i, c in enumerate(array.status or "") if c == "_"]
    named = len(gaps) == missing + len(behind) and not failed
    holes = (
        [
            Vdev(
                f"slot {gaps[i]}" if named else "missing device",
                "disk",
                PoolState.UNAVAIL,
                note="missing",
            )
            for i in range(missing)
        ]
        if array.active
        else []
    )
    return tuple(leaves + holes), tuple(_leaf(m, sys, None) for m in spares)


def _behind_note(array: MdArray) -> str:
    """What a member that is not in sync is doing."""
    progress = array.progress
    if progress is not None and progress.waiting:
        return f"(waiting to rebuild: {progress.action}=DELAYED)"
    if progress is not None and progress.action == "recovery":
        return "(recovering)"
    return "(not in sync)"


def _tree(array: MdArray, sys: MdSys, state: PoolState) -> Vdev:
    if array.container:
        disks = tuple(Vdev(m.dev, "disk", PoolState.ONLINE) for m in array.members)
        group = Vdev("container", "container", PoolState.ONLINE, children=disks)
        return Vdev(array.name, "root", state, children=(group,))
    members, spares = _members(array, sys)
    level = array.level or "unknown"
    group_state = PoolState.ONLINE if state is PoolState.ONLINE else state
    children = [Vdev(level, level, group_state, children=members)]
    if spares:
        children.append(Vdev("spares", "spares", PoolState.AVAIL, children=spares))
    return Vdev(array.name, "root", state, children=tuple(children))


def _position(sys: MdSys, progress: MdProgress | None) -> tuple[int | None, int | None]:
    """(bytes done, bytes to do) of the running pass: the further along of sysfs's
    `sync_completed` and mdstat's figure. sysfs is exact but a checkpoint: the kernel moves it
    every sixteenth of the array or so (a check read 0 % in sysfs while mdstat said 1.7 %);
    mdstat gives the position now, in KiB. Both count the same per-device span."""
    found = []
    if isinstance(sys.sync_completed, tuple) and sys.sync_completed[1]:
        found.append((sys.sync_completed[0] * 512, sys.sync_completed[1] * 512))
    if progress is not None and progress.done_kib is not None and progress.total_kib:
        found.append((progress.done_kib * 1024, progress.total_kib * 1024))
    if not found:
        return None, None
    return max(found, key=lambda pair: pair[0] / pair[1])


def _scan(array: MdArray, sys: MdSys) -> ScanProgress | None:
    """The pass running or waiting on the array; sysfs where it says more than mdstat."""
    progress = array.progress
    action = sys.sync_action if sys.sync_action not in (None, "idle", "frozen") else None
    if action is None and progress is not None:
        action = progress.action
    if action is None or action not in _KINDS:
        return None
    kind = _KINDS[action]
    waiting = (progress is not None and progress.waiting) or sys.sync_completed == "delayed"
    done, total = _position(sys, progress)
    speed = sys.sync_speed_kib_s or (progress.speed_kib_s if progress else None)
    checking = kind in (ScanKind.CHECK, ScanKind.REPAIR)
    mismatches = sys.mismatch_cnt if checking else None
    return ScanProgress(
        kind,
        ScanState.PENDING if waiting else ScanState.RUNNING,
        bytes_done=None if waiting else done,
        bytes_total=None if waiting else total,
        rate_bytes_per_s=speed * 1024.0 if speed and not waiting else None,
        eta_seconds=progress.finish_s if progress and not waiting else None,
        errors=mismatches,
        repaired_bytes=mismatches * 512 if kind is ScanKind.REPAIR and mismatches else None,
    )


def _status_text(array: MdArray, state: PoolState) -> str | None:
    if array.container:
        return None  # a container holds disks; its volumes say whether they are degraded
    if state is PoolState.UNAVAIL:
        return f"{array.name} is inactive: assembled but not started (members missing?)."
    if state is PoolState.FAULTED:
        return f"{array.name} is broken: a member it cannot run without is gone."
    failed = _failed(array)
    if state is PoolState.DEGRADED:
        missing = (array.raid_disks or 0) - (array.working or 0)
        missing = missing if missing > 0 else (array.status or "").count("_")
        of = (
            f"{missing} of {array.raid_disks} devices missing"
            if missing > 0
            else f"{' '.join(failed)} failed"
            if failed
            else "the kernel counts a device missing"
        )
        return f"{array.name} is degraded: {of}; replace the failed device and let it recover."
    if failed:  # every slot in sync: a spare took the failed device's place
        them = "it" if len(failed) == 1 else "them"
        return (
            f"{' '.join(failed)} failed and no longer hold{'s' if len(failed) == 1 else ''} a "
            f"slot: every slot of {array.name} is in sync (a spare took over). Remove {them} "
            f"(mdadm /dev/{array.name} --remove failed) and replace the drive."
        )
    return None


def md_pool(array: MdArray, sys: MdSys) -> Pool:
    """One array as a pool: state, member tree, usable size and the pass running."""
    state = _state(array, sys)
    return Pool(
        name=array.name,
        kind=PoolKind.MDRAID,
        state=state,
        root=_tree(array, sys, state),
        size_bytes=array.blocks * 1024 if array.blocks is not None else None,
        scan=_scan(array, sys),
        status_text=_status_text(array, state),
        uuid=sys.uuid,
        notes=tuple(array.notes),
    )


def collect_md(root: Path = Path("/")) -> tuple[tuple[Pool, ...], tuple[CollectorError, ...]]:
    """Every md array under `root`; no /proc/mdstat (no md module) means no arrays, no error."""
    text = read_text(root / "proc/mdstat", TABLE_LIMIT)
    if text is None:
        return (), ()
    arrays, stray = parse_mdstat_report(text)
    errors = tuple(CollectorError(SOURCE, line) for line in stray)
    return tuple(md_pool(a, read_md_sys(root, a.name)) for a in arrays), errors
