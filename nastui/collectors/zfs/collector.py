"""ZFS pools from `zpool status` and `zpool list`, through the runner.

`zpool status -j --json-int -v` where OpenZFS supports it (2.3+), else the text of
`zpool status -p -v`; the choice is made on the first poll and kept. `zpool list -Hp` adds
fragmentation, `zfs list -Hp -d 0` the usable size and use (`zpool list`'s SIZE and ALLOC are
raw, with parity: see `nastui.model.pool.Pool`). A missing `zpool`, or a `zpool` that cannot
start (no kernel module, no /dev/zfs, no permission), is one `CollectorError` line and no pools,
with what zpool's words mean (`messages.meaning`) for `nastui.collectors.pools` to decide on;
the other pool kinds still show.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar

from nastui.collectors.runner import CommandResult, run
from nastui.collectors.zfs.json_status import parse_zpool_status_json
from nastui.collectors.zfs.lists import COLUMNS, ListRow, parse_zfs_space, parse_zpool_list
from nastui.collectors.zfs.messages import Meaning, first_line, meaning
from nastui.collectors.zfs.text import parse_zpool_status_report
from nastui.model import CollectorError, Health, Pool
from nastui.model.errors import ParseError

SOURCE = "zfs"
NOT_INSTALLED = (
    "zpool not found: ZFS pools are not read (install zfsutils-linux; "
    "ignore this on a box without ZFS)"
)
_WHY = {
    Meaning.MODULE_NOT_LOADED: "ZFS kernel module not loaded",
    Meaning.MODULE_NOT_LOADABLE: "ZFS kernel module cannot be loaded",
    Meaning.NO_DEVICE: "/dev/zfs missing",
    Meaning.NO_PERMISSION: "no permission on /dev/zfs",
    Meaning.INIT_FAILED: "libzfs failed to start",
}
_FIX = {
    Meaning.MODULE_NOT_LOADED: "load it with `modprobe zfs`",
    Meaning.MODULE_NOT_LOADABLE: "see why `modprobe zfs` fails (a DKMS build?)",
    Meaning.NO_DEVICE: "in a container pass /dev/zfs through, else run `udevadm trigger`",
    Meaning.NO_PERMISSION: "run nastui as root",
    Meaning.INIT_FAILED: "run `zpool status` by hand to see why",
}
_LOST = {  # the head and the likely cause of a CRITICAL "pools not readable" line
    Meaning.MODULE_NOT_LOADED: ("ZFS module not loaded", "a DKMS build after a kernel update?"),
    Meaning.MODULE_NOT_LOADABLE: (
        "ZFS module cannot be loaded",
        "a DKMS build after a kernel update?",
    ),
    Meaning.NO_DEVICE: ("/dev/zfs missing", "a container without /dev/zfs, or udev?"),
    None: ("zpool and the ZFS module missing", "zfsutils-linux or the zfs module removed?"),
}
T = TypeVar("T")


def unreadable(said: Meaning, text: str) -> str:
    """The one line for a `zpool` that could not start ("ZFS kernel module not loaded (zpool:
    The ZFS modules are not loaded.): ZFS pools are not read; load it with `modprobe zfs`")."""
    return f"{_WHY[said]} (zpool: {first_line(text)}): ZFS pools are not read; {_FIX[said]}"


def pools_unreadable(said: Meaning | None, names: Iterable[str]) -> CollectorError:
    """The CRITICAL line for pools this box had behind a ZFS it cannot reach now ("ZFS module
    cannot be loaded: pools tank, backup not readable; a DKMS build after a kernel update?");
    `said` is what zpool's message meant (None: no zpool and no module at all)."""
    head, cause = _LOST.get(said, _LOST[None])
    text = f"{head}: pools {', '.join(names)} not readable; {cause}"
    return CollectorError(SOURCE, text, Health.CRITICAL)


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
    """What one poll of ZFS found: pools, one line per thing that failed, and, when `zpool`
    could not start, what its message means (`messages.Meaning`) and the message itself."""

    pools: tuple[Pool, ...] = ()
    errors: tuple[CollectorError, ...] = ()
    said: Meaning | None = None
    message: str = ""


@dataclass(frozen=True)
class Failure:
    """Why a `zpool status` run gave no status: the line to report and what zpool said."""

    error: CollectorError
    said: Meaning | None = None
    message: str = ""


def _text(result: CommandResult) -> str:
    return result.stderr + result.stdout


def failure(result: CommandResult) -> Failure | None:
    """Why a `zpool status` run did not produce status (None: it did, or there are no pools)."""
    if result.not_found:
        return Failure(CollectorError(SOURCE, NOT_INSTALLED))
    said = meaning(_text(result))
    if said is not None and said in _WHY:
        message = first_line(_text(result))
        return Failure(CollectorError(SOURCE, unreadable(said, _text(result))), said, message)
    if result.ok or said is Meaning.NO_POOLS:
        return None
    return Failure(CollectorError(SOURCE, f"zpool status failed: {result.describe()}"), said)


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

    async def _json_status(self, now: float) -> tuple[tuple[Pool, ...], Failure | None] | None:
        """The JSON status, or None when this `zpool` does not speak it (remembered)."""
        result = await run(status_json_argv(), timeout=self._timeout)
        said = meaning(_text(result))
        if result.returncode not in (None, 0) and said is Meaning.NO_JSON:
            self._json = False
            return None
        if (failed := failure(result)) is not None or not result.stdout.strip():
            return (), failed
        try:
            pools = parse_zpool_status_json(result.stdout, now)
        except ParseError:
            self._json = False  # fall back to the text, which every version prints
            return None
        self._json = True
        return pools, None

    async def _status(
        self, now: float
    ) -> tuple[tuple[Pool, ...], tuple[CollectorError, ...], Failure | None]:
        if self._json is not False and (answer := await self._json_status(now)) is not None:
            pools, failed = answer
            return pools, (failed.error,) if failed is not None else (), failed
        result = await run(status_text_argv(), timeout=self._timeout)
        if (failed := failure(result)) is not None:
            return (), (failed.error,), failed
        pools, stray = parse_zpool_status_report(result.stdout)  # a line before any pool
        return pools, tuple(CollectorError(SOURCE, line) for line in stray), None

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
        (
            (pools, status_errors, failed),
            (rows, list_error),
            (space, space_error),
        ) = await asyncio.gather(
            self._status(now),
            self._table(list_argv(), parse_zpool_list, "fragmentation"),
            self._table(space_argv(), parse_zfs_space, "pool sizes"),
        )
        later = (list_error, space_error) if pools else ()
        errors = (*status_errors, *(e for e in later if e is not None))
        said, message = (failed.said, failed.message) if failed is not None else (None, "")
        return ZfsReport(with_space(pools, rows, space), errors, said, message)
