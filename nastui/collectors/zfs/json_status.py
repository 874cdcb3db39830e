"""`zpool status -j --json-int -v` (OpenZFS 2.3+) as `Pool` records (pure).

Field names follow `cmd/zpool/zpool_main.c` (`status_callback_json`, `vdev_stats_nvlist`,
`scan_status_nvlist`): pools under "pools", each with "vdevs" (the root vdev and its tree),
the class groups "dedup", "special", "logs", "l2cache" and "spares" beside it, "scan_stats",
"error_count" and, with -v, "errlist". With `--json-int` numbers are integers; without it they
are strings with units ("62.6G"), which this parser also reads.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from nastui.collectors.pools_parse import parse_size
from nastui.collectors.zfs.text import GROUPS, group_kind, last_scrub
from nastui.core.scanning.tracker import current_scan
from nastui.model import Pool, PoolKind, PoolState, ScanKind, ScanProgress, ScanState, Vdev
from nastui.model.errors import ParseError

WHAT = "zpool status -j"
T = TypeVar("T")
_STATES = {
    "HEALTHY": PoolState.ONLINE,
    "CLOSED": PoolState.OFFLINE,
    "CANT_OPEN": PoolState.UNAVAIL,
    "SPLIT": PoolState.UNKNOWN,
}
_CLASS_KEYS = {"dedup": "dedup", "special": "special", "logs": "logs", "l2cache": "cache"}
_SCAN_STATES = {
    "SCANNING": ScanState.RUNNING,
    "FINISHED": ScanState.FINISHED,
    "CANCELED": ScanState.CANCELED,
}
_REBUILD_STATES = {
    "ACTIVE": ScanState.RUNNING,
    "COMPLETE": ScanState.FINISHED,
    "CANCELED": ScanState.CANCELED,
}
_NOTES = {"SPARED": "currently in use", "CORRUPT_DATA": "corrupted data", "OPEN_FAILED": None}


def _int(value: Any) -> int | None:
    """An integer field: int with --json-int, "12345" or "62.6G" without; None for "-"."""
    if value is None or value == "-":
        return None
    if isinstance(value, bool):
        raise ValueError(f"not a number: {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        return int(value) if value.isdigit() else parse_size(value)
    raise ValueError(f"not a number: {value!r}")


def _state(value: Any) -> PoolState:
    if not isinstance(value, str):
        return PoolState.UNKNOWN
    if value in _STATES:
        return _STATES[value]
    return PoolState(value) if value in PoolState.__members__ else PoolState.UNKNOWN


def _note(entry: Mapping[str, Any]) -> str | None:
    if "was" in entry:
        return f"was {entry['was']}"
    aux = entry.get("aux")
    if isinstance(aux, str):
        return _NOTES.get(aux, aux.lower().replace("_", " "))
    return None


def _kind(name: str, entry: Mapping[str, Any], has_children: bool) -> str:
    vtype = entry.get("vdev_type")
    if vtype == "root":
        return "root"
    if has_children:
        return group_kind(name, str(vtype or "group"))
    if vtype == "file":
        return "file"
    return "dspare" if vtype == "dspare" else "disk"


def _vdev(entry: Mapping[str, Any], *, root: bool = False) -> Vdev:
    name = str(entry.get("name", "?"))
    children_map = entry.get("vdevs") or {}
    if not isinstance(children_map, Mapping):
        raise ValueError(f"vdevs of {name} is not an object")
    children = tuple(_vdev(child) for child in children_map.values())
    return Vdev(
        name=name,
        kind="root" if root else _kind(name, entry, bool(children)),
        state=_state(entry.get("state")),
        read_errors=_int(entry.get("read_errors")),
        write_errors=_int(entry.get("write_errors")),
        checksum_errors=_int(entry.get("checksum_errors")),
        children=children,
        drive=None,
        note=_note(entry),
    )


def _group(name: str, members: Mapping[str, Any]) -> Vdev:
    children = tuple(_vdev(m) for m in members.values())
    if name == "spares":
        return Vdev(name, "spares", PoolState.AVAIL, children=children)
    healthy = all(c.state in (PoolState.ONLINE, PoolState.AVAIL) for c in children)
    return Vdev(
        name, GROUPS[name], PoolState.ONLINE if healthy else PoolState.DEGRADED, children=children
    )


def _tree(pool: Mapping[str, Any], name: str) -> Vdev:
    vdevs = pool.get("vdevs") or {}
    if not isinstance(vdevs, Mapping) or name not in vdevs:
        raise ValueError(f"no root vdev for pool {name}")
    root = _vdev(vdevs[name], root=True)
    groups = [
        _group(group, pool[key])
        for key, group in (*_CLASS_KEYS.items(), ("spares", "spares"))
        if isinstance(pool.get(key), Mapping) and pool[key]
    ]
    return Vdev(
        root.name,
        "root",
        _state(pool.get("state")),
        root.read_errors,
        root.write_errors,
        root.checksum_errors,
        children=root.children + tuple(groups),
    )


def _scan(stats: Mapping[str, Any], now: float | None) -> ScanProgress | None:
    function, state = stats.get("function"), _SCAN_STATES.get(str(stats.get("state")))
    if function not in ("SCRUB", "RESILVER") or state is None:
        return None
    paused = bool(_int(stats.get("scrub_pause")))
    total = (_int(stats.get("to_examine")) or 0) - (_int(stats.get("skipped")) or 0)
    issued, pass_issued = _int(stats.get("issued")), _int(stats.get("issued_bytes_per_scan"))
    rate = None
    if state is ScanState.RUNNING and not paused and now is not None and pass_issued:
        elapsed = now - (_int(stats.get("pass_start")) or now)
        elapsed -= _int(stats.get("scrub_spent_paused")) or 0
        rate = pass_issued / max(1.0, elapsed)
    return ScanProgress(
        ScanKind.SCRUB if function == "SCRUB" else ScanKind.RESILVER,
        ScanState.PAUSED if paused and state is ScanState.RUNNING else state,
        started_at=_int(stats.get("start_time")) or None,
        ended_at=(_int(stats.get("end_time")) or None) if state is not ScanState.RUNNING else None,
        bytes_done=issued,
        bytes_total=total if total > 0 else None,
        rate_bytes_per_s=rate,
        errors=_int(stats.get("errors")),
        repaired_bytes=_int(stats.get("processed")),
    )


def _rebuilds(stats: Mapping[str, Any]) -> list[ScanProgress]:
    rebuilds = stats.get("rebuild_stats") or {}
    found = []
    for entry in rebuilds.values() if isinstance(rebuilds, Mapping) else ():
        state = _REBUILD_STATES.get(str(entry.get("state")))
        if state is None:
            continue
        found.append(
            ScanProgress(
                ScanKind.RESILVER,
                state,
                started_at=_int(entry.get("start_time")) or None,
                ended_at=(_int(entry.get("end_time")) or None)
                if state is not ScanState.RUNNING
                else None,
                bytes_done=_int(entry.get("scanned")),
                bytes_total=_int(entry.get("to_scan")),
                errors=_int(entry.get("errors")),
                repaired_bytes=_int(entry.get("rebuilt")),
            )
        )
    return found


def _files(pool: Mapping[str, Any]) -> tuple[str, ...]:
    files = pool.get("errlist")
    if isinstance(files, list):
        return tuple(str(f) for f in files)
    if isinstance(files, str):
        return (f"<file list unavailable: {files}>",)
    return ()


# `removal_stats` and `raidz_expand_stats` (zpool_main.c `removal_stats_nvlist`,
# `raidz_expand_stats_nvlist`): state, start_time, end_time and bytes to do and done
_LAYOUT = (
    ("removal_stats", ScanKind.REMOVE, "to_copy", "copied"),
    ("raidz_expand_stats", ScanKind.EXPAND, "to_reflow", "reflowed"),
)


def _layout(pool: Mapping[str, Any]) -> ScanProgress | None:
    """A vdev removal or raidz expansion, the running one first."""
    found = []
    for key, kind, total_key, done_key in _LAYOUT:
        stats = pool.get(key)
        if not isinstance(stats, Mapping):
            continue
        state = _SCAN_STATES.get(str(stats.get("state")))
        if state is None:
            continue
        running = state is ScanState.RUNNING
        waiting = running and bool(_int(stats.get("waiting_for_resilver")))
        found.append(
            ScanProgress(
                kind,
                ScanState.PAUSED if waiting else state,
                started_at=_int(stats.get("start_time")) or None,
                ended_at=None if running else (_int(stats.get("end_time")) or None),
                bytes_done=_int(stats.get(done_key)),
                bytes_total=_int(stats.get(total_key)),
            )
        )
    return current_scan(found)


def _part(notes: list[str], what: str, read: Callable[[], T], default: T) -> T:
    """`read()`, or `default` and a note when that part of the entry does not read."""
    try:
        return read()
    except (ValueError, AttributeError, TypeError, KeyError) as exc:
        notes.append(f"{WHAT}: {what}: {exc}")
        return default


def _scans(pool: Mapping[str, Any], now: float | None) -> list[ScanProgress]:
    stats = pool.get("scan_stats") or {}
    if not isinstance(stats, Mapping):
        raise ValueError("scan_stats is not an object")
    return [s for s in (_scan(stats, now), *_rebuilds(stats)) if s is not None]


def _pool(name: str, pool: Mapping[str, Any], now: float | None) -> Pool:
    notes: list[str] = []
    state = _state(pool.get("state"))
    none: list[ScanProgress] = []
    scans = _part(notes, f"scan of {name}", lambda: _scans(pool, now), none)
    status = " ".join(str(pool.get("status", "")).split())
    status = "" if status == "OK" else status  # the reason code of a healthy pool, not a text
    action = " ".join(str(pool.get("action", "")).split())
    return Pool(
        name=str(pool.get("name", name)),
        kind=PoolKind.ZFS,
        state=state,
        root=_part(notes, f"pool {name}", lambda: _tree(pool, name), Vdev(name, "root", state)),
        scan=current_scan(scans),
        last_scrub=last_scrub(scans),
        error_files=_part(notes, f"errors of {name}", lambda: _files(pool), ()),
        status_text=(f"{status} Action: {action}" if action else status) if status else None,
        uuid=str(pool["guid"]) if "guid" in pool else None,
        error_count=_part(notes, f"errors of {name}", lambda: _int(pool.get("error_count")), None),
        layout_change=_part(notes, f"remove/expand of {name}", lambda: _layout(pool), None),
        notes=tuple(notes),
    )


def _kept(name: str, pool: Any, reason: str) -> Pool:
    """A pool whose entry did not read: its name and state, and a note saying why."""
    entry = pool if isinstance(pool, Mapping) else {}
    state = _state(entry.get("state"))
    return Pool(
        name=str(entry.get("name", name)),
        kind=PoolKind.ZFS,
        state=state,
        root=Vdev(str(name), "root", state),
        notes=(f"{WHAT}: pool {name}: {reason}",),
    )


def _read(name: str, pool: Any, now: float | None) -> Pool:
    try:
        if not isinstance(pool, Mapping):
            raise ValueError("not an object")
        return _pool(name, pool, now)
    except (ValueError, AttributeError, TypeError) as exc:
        return _kept(name, pool, str(exc))


def parse_zpool_status_json(text: str, now: float | None = None) -> tuple[Pool, ...]:
    """Every pool in `zpool status -j` output; a pool whose entry does not read is kept with
    its name and state and a note saying why.

    Args:
        text: the JSON document.
        now: Unix time of the run, to turn the pass counters into the tool's issue rate.

    Raises:
        ParseError: not JSON, or no "pools" object (the text parser is used instead).
    """
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ParseError(WHAT, f"not JSON ({exc.msg})", exc.lineno) from exc
    pools = document.get("pools") if isinstance(document, dict) else None
    if not isinstance(pools, dict):
        raise ParseError(WHAT, 'no "pools" object')
    return tuple(_read(str(name), pool, now) for name, pool in pools.items())
