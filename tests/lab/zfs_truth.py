"""What `zpool status` itself says, read without nastui's parsers (the lab's reference).

Just enough of both formats for the assertions: the pool's state, each leaf vdev's state and
counters, the scan's function, state and progress, and the permanent-error files. JSON is
`zpool status -j --json-int -v` (OpenZFS 2.3+), text is `zpool status -p -v` (every version).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Leaf:
    """A leaf vdev as zpool prints it."""

    state: str
    read: int
    write: int
    cksum: int


@dataclass(frozen=True)
class PoolTruth:
    """One pool as zpool reports it."""

    state: str
    leaves: dict[str, Leaf]
    scan_function: str | None  # "scrub", "resilver"
    scan_state: str | None  # "running", "paused", "finished", "canceled"
    percent: float | None
    files: tuple[str, ...] = field(default_factory=tuple)


def _leaves(vdev: Mapping[str, Any], out: dict[str, Leaf]) -> None:
    children = vdev.get("vdevs") or {}
    if not children and vdev.get("vdev_type") not in ("root", None):
        out[str(vdev["name"])] = Leaf(
            str(vdev["state"]),
            int(vdev["read_errors"]),
            int(vdev["write_errors"]),
            int(vdev["checksum_errors"]),
        )
    for child in children.values():
        _leaves(child, out)


def from_json(text: str, pool: str) -> PoolTruth:
    """`zpool status -j --json-int -v POOL`."""
    entry = json.loads(text)["pools"][pool]
    leaves: dict[str, Leaf] = {}
    _leaves(entry["vdevs"][pool], leaves)
    scan = entry.get("scan_stats") or {}
    function = str(scan.get("function", "NONE")).lower()
    state = {"SCANNING": "running", "FINISHED": "finished", "CANCELED": "canceled"}.get(
        str(scan.get("state"))
    )
    if state == "running" and int(scan.get("scrub_pause") or 0):
        state = "paused"
    total = int(scan.get("to_examine") or 0) - int(scan.get("skipped") or 0)
    percent = 100.0 * int(scan.get("issued") or 0) / total if total > 0 else None
    files = entry.get("errlist") or []
    return PoolTruth(
        str(entry["state"]),
        leaves,
        function if function in ("scrub", "resilver") else None,
        state,
        percent,
        tuple(str(f) for f in files) if isinstance(files, list) else (),
    )


_STATE = re.compile(r"^\s*state: (\S+)", re.M)
_LEAF = re.compile(
    r"^\t {4,}(\S+)\s+(ONLINE|OFFLINE|DEGRADED|FAULTED|UNAVAIL|REMOVED)\s+(\d+)\s+(\d+)\s+(\d+)",
    re.M,
)
_DONE = re.compile(r"([\d.]+)% done")


def _scan_text(text: str) -> tuple[str | None, str | None, float | None]:
    scan = text.split("  scan: ", 1)[1].split("\nconfig:", 1)[0] if "  scan: " in text else ""
    function = "resilver" if scan.startswith("resilver") else "scrub" if "scrub" in scan else None
    if "paused since" in scan:
        state = "paused"
    elif "in progress since" in scan:
        state = "running"
    elif "canceled on" in scan:
        state = "canceled"
    elif " with " in scan and " errors on " in scan:
        state = "finished"
    else:
        state = None
    done = _DONE.search(scan)
    return function, state, float(done.group(1)) if done else None


def from_text(text: str) -> PoolTruth:
    """`zpool status -p -v POOL` (one pool)."""
    state = _STATE.search(text)
    leaves = {
        m.group(1): Leaf(m.group(2), int(m.group(3)), int(m.group(4)), int(m.group(5)))
        for m in _LEAF.finditer(text)
        if not re.match(r"^(raidz|mirror|draid|spare|replacing)", m.group(1))
    }
    function, scan_state, percent = _scan_text(text)
    files: tuple[str, ...] = ()
    if "following files:" in text:
        tail = text.split("following files:", 1)[1]
        files = tuple(line.strip() for line in tail.splitlines() if line.strip())
    return PoolTruth(state.group(1) if state else "?", leaves, function, scan_state, percent, files)
