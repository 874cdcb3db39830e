"""ZFS pools from `zpool status` and `zpool list`, through the runner.

`zpool status -j --json-int -v` where OpenZFS supports it (2.3+), else the text of
`zpool status -p -v`; the choice is made on the first poll and kept. `zpool list -Hp` adds
fragmentation, `zfs list -Hp -d 0` the usable size and use (`zpool list`'s SIZE and ALLOC are
raw, with parity: see `nastui.model.pool.Pool`). A missing `zpool`, or a `zpool` without its
kernel module, is one `CollectorError` line and no pools; the other pool kinds still show.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from nastui.collectors.runner import CommandResult, run
from nastui.collectors.zfs.json_status import parse_zpool_status_json
from nastui.collectors.zfs.lists import COLUMNS, ListRow, parse_zfs_space, parse_zpool_list
from nastui.collectors.zfs.text import parse_zpool_status_report
from nastui.model import CollectorError, Pool
from nastui.model.errors import ParseError

SOURCE = "zfs"
NOT_INSTALLED = (
    "zpool not found: ZFS pools are not read (install zfsutils-linux; "
    "ignore this on a box without ZFS)"
)
NO_MODULE = (
    "ZFS kernel module not loaded (zpool: The ZFS modules are not loaded): ZFS pools are not "
    "read; load it with `modprobe zfs`"
)
_MODULE_MISSING = (
    "modules are not loaded",  # ENOENT: no module
    "modules cannot be auto-loaded",  # 2.0+: libzfs tried modprobe and it failed
    "/dev/zfs and /proc/self/mounts are required",
)
_NO_JSON = ("invalid option", "unrecognized option", "illegal option")
T = TypeVar("T")


def status_json_argv() -> tuple[str, ...]:
    """`zpool status` as JSON with exact integers and the permanent-error file list."""
    return ("zpool", "status", "-j", "--json-int", "-v")


def status_text_argv() -> tuple[str, ...]:
    """`zpool status` as text with exact counters (-p) and the error file list (-v)."""
    return ("zpool", "status", "-p", "-v")


def list_argv() -> tuple[str, ...]:
    """`zpool list` without header, exact numbers, the columns `lists.COLUMNS`."""
    return ("zpool", "list", "-Hp", "-o", ",".join(COLUMNS))


def space_argv() -> tuple[str, ...]:
    """`zfs list` of each pool's root dataset: usable space used and available."""
    return ("zfs", "list", "-Hp", "-o", "name,used,available", "-d", "0")


@dataclass(frozen=True)
class ZfsReport:
    """What one poll of ZFS found: pools, and one line per thing that failed."""

    pools: tuple[Pool, ...] = ()
    errors: tuple[CollectorError, ...] = ()


def _says(result: CommandResult, phrases: tuple[str, ...]) -> bool:
    text = (result.stderr + result.stdout).lower()
    return any(p.lower() in text for p in phrases)


def failure(result: CommandResult) -> CollectorError | None:
    """The one line to report for a `zpool` run that did not produce status, or None."""
    if result.not_found:
        return CollectorError(SOURCE, NOT_INSTALLED)
    if _says(result, _MODULE_MISSING):
        return CollectorError(SOURCE, NO_MODULE)
    if result.ok or "no pools available" in result.stdout + result.stderr:
        return None
    return CollectorError(SOURCE, f"zpool status failed: {result.describe()}")


def with_space(
    pools: tuple[Pool, ...], rows: dict[str, ListRow], space: dict[str, tuple[int, int]]
) -> tuple[Pool, ...]:
    """`pools` with usable size and use (`zfs list`) and fragmentation (`zpool list`)."""
    merged = []
    for pool in pools:
        row = rows.get(pool.name)
        used_avail = space.get(pool.name)
        merged.append(
            dataclasses.replace(
                pool,
                size_bytes=sum(used_avail) if used_avail else None,
                allocated_bytes=used_avail[0] if used_avail else None,
                fragmentation_percent=row.fragmentation_percent if row else None,
            )
        )
    return tuple(merged)


class ZfsCollector:
    """Runs `zpool` once per poll; remembers whether this `zpool` speaks JSON."""

    def __init__(self, *, timeout: float = 20.0) -> None:
        self._timeout = timeout
        self._json: bool | None = None  # unknown until the first poll

    @property
    def uses_json(self) -> bool | None:
        """True when `zpool status -j` works here, False when it does not, None before a poll."""
        return self._json

    async def _json_status(
        self, now: float
    ) -> tuple[tuple[Pool, ...], CollectorError | None] | None:
        """The JSON status, or None when this `zpool` does not speak it (remembered)."""
        result = await run(status_json_argv(), timeout=self._timeout)
        if result.returncode not in (None, 0) and _says(result, _NO_JSON):
            self._json = False
            return None
        if (error := failure(result)) is not None or not result.stdout.strip():
            return (), error
        try:
            pools = parse_zpool_status_json(result.stdout, now)
        except ParseError:
            self._json = False  # fall back to the text, which every version prints
            return None
        self._json = True
        return pools, None

    async def _status(self, now: float) -> tuple[tuple[Pool, ...], tuple[CollectorError, ...]]:
        if self._json is not False and (answer := await self._json_status(now)) is not None:
            pools, error = answer
            return pools, (error,) if error is not None else ()
        result = await run(status_text_argv(), timeout=self._timeout)
        if (error := failure(result)) is not None:
            return (), (error,)
        pools, stray = parse_zpool_status_report(result.stdout)  # a line before any pool
        return pools, tuple(CollectorError(SOURCE, line) for line in stray)

    async def _table(
        self, argv: tuple[str, ...], parse: Callable[[str], dict[str, T]], what: str
    ) -> tuple[dict[str, T], CollectorError | None]:
        """A `zpool list`/`zfs list` table, or why not (reported only if status worked)."""
        result = await run(argv, timeout=self._timeout)
        try:
            if result.ok:
                return parse(result.stdout), None
            return {}, CollectorError(SOURCE, f"{what} unknown: {result.describe()}")
        except ParseError as exc:
            return {}, CollectorError(SOURCE, f"{what} unknown: {exc}")

    async def collect(self, now: float) -> ZfsReport:
        """Every ZFS pool with its tree, scan and space; never raises."""
        (pools, status_errors), (rows, list_error), (space, space_error) = await asyncio.gather(
            self._status(now),
            self._table(list_argv(), parse_zpool_list, "fragmentation"),
            self._table(space_argv(), parse_zfs_space, "pool sizes"),
        )
        later = (list_error, space_error) if pools else ()
        errors = (*status_errors, *(e for e in later if e is not None))
        return ZfsReport(with_space(pools, rows, space), errors)
