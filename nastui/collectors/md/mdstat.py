"""/proc/mdstat as `MdArray` records (pure).

Per array: the header line (name, active/inactive, read-only marks, level, members with their
descriptor numbers and (F)aulty/(S)pare/(W)rite-mostly/(R)eplacement/(J)ournal flags), the
blocks line ([n/m] [UU_]), and optionally a progress line (resync, recovery, check, repair,
reshape with percent, position, finish and speed) or "resync=DELAYED"/"PENDING". The kernel
counts blocks and positions in KiB. An external-metadata container (Intel IMSM, DDF: "inactive"
with every disk "(S)" and "super external:imsm") is marked as one: it never runs by itself.

Degrade, never drop: a line or member this parser does not know becomes a note on the array it
belongs to (or, before any array, on the report) and the rest is kept.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from nastui.collectors.pools_parse import note, numbered

WHAT = "/proc/mdstat"
LEVELS = frozenset(
    {"linear", "multipath", "raid0", "raid1", "raid4", "raid5", "raid6", "raid10", "faulty"}
) | {"container"}

# Sample: Personalities : [raid1] [raid6] [raid5] [raid4]
_PERSONALITIES = re.compile(r"^Personalities\s*:")
# Sample: md127 : active (auto-read-only) raid1 nvme1n1p1[0] nvme0n1p1[1]
# Sample: md2 : inactive sdb[0](S) sdc[2](S) sdd[3](S) sda[1](S)
_ARRAY = re.compile(
    r"^(?P<name>md[\w-]*)\s*:\s*(?P<active>active|inactive)"
    r"(?P<marks>(?:\s+\([\w-]+\))*)(?P<rest>(?:\s+\S+)*)\s*$"
)
# Sample: sdb2[2](F)   nvme0n1p1[1]   hda[4](S)   sdc1[3](W)(R)
_MEMBER = re.compile(r"^(?P<dev>[^\[\s]+)\[(?P<index>\d+)\](?P<flags>(?:\([A-Z]\))*)$")
# Sample: 1464725760 blocks level 5, 64k chunk, algorithm 2 [6/5] [UUUUU_]
# Sample: 2306837760 blocks super 1.2 128k chunks
_BLOCKS = re.compile(
    r"^(?P<blocks>\d+) blocks\b(?P<rest>.*?)"
    r"(?:\s*\[(?P<disks>\d+)/(?P<working>\d+)\]\s*\[(?P<status>[U_]+)\])?$"
)
# Sample: [==>.....]  recovery = 12.6% (37043392/292945152) finish=127.5min speed=33440K/sec
# Sample: [>....................]  recovery =  0.4%
_PROGRESS = re.compile(
    r"^(?:\[[=>.]*\]\s*)?(?P<action>resync|recovery|check|repair|reshape)\s*=\s*"
    r"(?P<pct>[\d.]+)%(?:\s*\((?P<done>\d+)/(?P<total>\d+)\))?"
    r"(?:\s*finish=(?P<finish>[\d.]+)min)?(?:\s*speed=(?P<speed>\d+)K/sec)?$"
)
# Sample: 5288 blocks super external:imsm     7932 blocks super external:ddf
_CONTAINER = re.compile(r"\bsuper external:(?:imsm|ddf)\b")
# Sample: read_ahead 1024 sectors   (kernel 2.4)
_READ_AHEAD = re.compile(r"^read_ahead\s")
# Sample: resync=DELAYED      resync=PENDING
_WAITING = re.compile(
    r"^(?P<action>resync|recovery|check|repair|reshape)\s*=\s*(?:DELAYED|PENDING)$"
)
# Sample: bitmap: 0/10 pages [0KB], 16384KB chunk
_BITMAP = re.compile(r"^bitmap:\s")
# Sample: unused devices: <none>
_UNUSED = re.compile(r"^unused devices:")


@dataclass(frozen=True, slots=True)
class MdMember:
    """A member device as mdstat lists it.

    Attributes:
        dev: kernel name ("sda1", "nvme0n1p3").
        index: the descriptor number in brackets (the role for active members).
        flags: letters from the parentheses: F faulty, S spare, W write-mostly, R replacement,
            J journal.
    """

    dev: str
    index: int
    flags: str = ""


@dataclass(frozen=True, slots=True)
class MdProgress:
    """A running or waiting resync/recovery/check/reshape.

    Attributes:
        action: the kernel's word: resync, recovery, check, repair, reshape.
        waiting: "resync=DELAYED" or "=PENDING": queued behind another array or read-only.
        percent: percent done.
        done_kib, total_kib: position and end, in KiB per member device.
        finish_s: the kernel's estimate of the time left.
        speed_kib_s: the kernel's current speed.
    """

    action: str
    waiting: bool = False
    percent: float | None = None
    done_kib: int | None = None
    total_kib: int | None = None
    finish_s: float | None = None
    speed_kib_s: int | None = None


@dataclass(slots=True)
class MdArray:
    """One array of /proc/mdstat.

    Attributes:
        name: "md0".
        active: False for an inactive (assembled but not started) array.
        read_only: "(read-only)" or "(auto-read-only)".
        level: "raid5"...; None when mdstat does not say (inactive arrays).
        members: in the order listed.
        blocks: usable size in KiB.
        raid_disks, working: the [n/m] counts, when printed.
        status: the [UU_] string, when printed.
        progress: what is running or waiting, if anything.
        container: an external-metadata container (IMSM/DDF): its disks, not an array.
        notes: lines under it that were not understood, one each.
    """

    name: str
    active: bool
    read_only: bool = False
    level: str | None = None
    members: list[MdMember] = field(default_factory=list)
    blocks: int | None = None
    raid_disks: int | None = None
    working: int | None = None
    status: str | None = None
    progress: MdProgress | None = None
    container: bool = False
    notes: list[str] = field(default_factory=list)


def _array(line_no: int, line: str, match: re.Match[str]) -> MdArray:
    tokens = match["rest"].split()
    level = tokens.pop(0) if tokens and tokens[0] in LEVELS else None
    array = MdArray(
        name=match["name"],
        active=match["active"] == "active",
        read_only="read-only" in match["marks"],
        level=level,
    )
    for token in tokens:
        member = _MEMBER.match(token)
        if member is None:
            array.notes.append(note(WHAT, f"unexpected member {token!r}", line_no, line))
            continue
        flags = member["flags"].replace("(", "").replace(")", "")
        array.members.append(MdMember(member["dev"], int(member["index"]), flags))
    return array


def _progress(match: re.Match[str]) -> MdProgress:
    return MdProgress(
        action=match["action"],
        percent=float(match["pct"]),
        done_kib=int(match["done"]) if match["done"] else None,
        total_kib=int(match["total"]) if match["total"] else None,
        finish_s=float(match["finish"]) * 60 if match["finish"] else None,
        speed_kib_s=int(match["speed"]) if match["speed"] else None,
    )


def _detail(array: MdArray, line_no: int, line: str) -> None:
    """Apply one of the lines under an array's header (or note it)."""
    if (blocks := _BLOCKS.match(line)) is not None:
        array.blocks = int(blocks["blocks"])
        array.container = bool(_CONTAINER.search(blocks["rest"])) and not array.active
        if blocks["disks"] is not None:
            array.raid_disks, array.working = int(blocks["disks"]), int(blocks["working"])
            array.status = blocks["status"]
    elif (progress := _PROGRESS.match(line)) is not None:
        array.progress = _progress(progress)
    elif (waiting := _WAITING.match(line)) is not None:
        array.progress = MdProgress(waiting["action"], waiting=True)
    elif not _BITMAP.match(line):
        array.notes.append(note(WHAT, "unexpected line", line_no, line))


# Sample: 1953382400 blocks super 1.2 level 6, 512k chunk, algorithm 2 [10/10] [UUUUUUUUUU]
_BLOCKS_DONE = re.compile(r"\[[U_]+\]$")
_STARTS = (_ARRAY, _PROGRESS, _WAITING, _BITMAP, _UNUSED, _PERSONALITIES, _READ_AHEAD)
# Sample: finish=1271.8min speed=9898K/sec
_TAIL = re.compile(r"^(?:finish=[\d.]+min|speed=\d+K/sec)(?:\s|$)")
_PROGRESS_HEAD = re.compile(r"^(?:\[[=>.]*\]\s*)?(?:resync|recovery|check|repair|reshape)\s*=")
# Sample: 1464725760 blocks    [==>..................]
_OWN_LINE = re.compile(r"^(?:\d+ blocks\b|\[[=>.]*\])")


def _continues(previous: str, line: str) -> bool:
    """`line` is the rest of `previous`, wrapped by a mail client or a web page: members of
    an array line, a progress line's finish= and speed=, or the end of a blocks line that
    lacks its [n/m] [UU_] status."""
    if _ARRAY.match(previous):
        return all(_MEMBER.match(word) for word in line.split())
    if _TAIL.match(line):  # a progress line's finish= and speed=
        return bool(_PROGRESS_HEAD.match(previous))
    if previous.split(" ", 2)[1:2] != ["blocks"] or _BLOCKS_DONE.search(previous):
        return False
    return not any(p.match(line) for p in _STARTS) and not _OWN_LINE.match(line)


def _unwrapped(text: str) -> list[tuple[int, str]]:
    """The numbered lines of `text` with wrapped array and blocks lines joined again."""
    out: list[tuple[int, str]] = []
    for line_no, raw in numbered(text):
        line = raw.strip()
        if out and line and _continues(out[-1][1].strip(), line):
            out[-1] = (out[-1][0], f"{out[-1][1]} {line}")
        else:
            out.append((line_no, raw))
    return out


def parse_mdstat_report(text: str) -> tuple[list[MdArray], list[str]]:
    """Every array in /proc/mdstat, in the order listed, and notes for lines met before any
    array (lines under an array that were not understood are in its `notes`). Never raises."""
    arrays: list[MdArray] = []
    stray: list[str] = []
    for line_no, raw in _unwrapped(text):
        line = raw.strip()
        if not line or _PERSONALITIES.match(line) or _UNUSED.match(line):
            continue
        if _READ_AHEAD.match(line):
            continue
        if (match := _ARRAY.match(line)) is not None:
            arrays.append(_array(line_no, line, match))
        elif arrays:
            _detail(arrays[-1], line_no, line)
        else:
            stray.append(note(WHAT, "unexpected line before any array", line_no, raw))
    return arrays, stray


def parse_mdstat(text: str) -> list[MdArray]:
    """Every array in /proc/mdstat (see `parse_mdstat_report`); never raises."""
    return parse_mdstat_report(text)[0]
