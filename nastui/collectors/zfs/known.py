"""The ZFS pools this box had, for deciding what a ZFS that cannot be read now means.

A box whose `zpool` cannot reach a kernel module is either a box without ZFS (the tools came
along with something else: nothing to watch) or a box whose pools just became unreadable (the
module's DKMS build failed after a kernel update: the worst moment to say nothing). The words
of `zpool` do not tell them apart; what the box had does:

- `/etc/zfs/zpool.cache`: OpenZFS writes it whenever a pool is created or imported with the
  default cache file, and removes it when the last such pool goes; its top-level names are the
  pools (`cache_pools`);
- the pools the daemon's history saw (`nastui.history.db.History.zfs_pools`);
- the pools the configuration names (`[[pools.pool]]`), and those this process saw itself.

`packed_names` reads the top-level names of a packed nvlist, in either of libnvpair's encodings
(native, which `spa_config.c` writes through `fnvlist_pack`, and XDR), without interpreting
anything else; a file it cannot follow still counts as "pools were here".
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterable
from pathlib import Path

from nastui.model.errors import ParseError
from nastui.safeio import read_bounded

CACHE_FILE = "etc/zfs/zpool.cache"
CACHE_LIMIT = 16 * 1024 * 1024
UNNAMED = "in /etc/zfs/zpool.cache"  # pools are there, their names could not be read
_NVLIST, _NVLIST_ARRAY = 19, 20  # data_type_t in include/sys/nvpair.h
_NATIVE, _XDR = 0, 1  # NV_ENCODE_NATIVE, NV_ENCODE_XDR
_MAX_DEPTH = 64
WHAT = "zpool.cache"


class _Reader:
    """A cursor over a packed nvlist's bytes."""

    def __init__(self, data: bytes, order: str) -> None:
        self.data = data
        self.order = order

    def int32(self, at: int) -> int:
        if at < 0 or at + 4 > len(self.data):
            raise ParseError(WHAT, f"cut short at byte {at}")
        value: int = struct.unpack_from(self.order + "i", self.data, at)[0]
        return value

    def int16(self, at: int) -> int:
        if at + 2 > len(self.data):
            raise ParseError(WHAT, f"cut short at byte {at}")
        value: int = struct.unpack_from(self.order + "h", self.data, at)[0]
        return value

    def name(self, at: int, size: int) -> str:
        raw = self.data[at : at + size]
        if len(raw) != size:
            raise ParseError(WHAT, f"name cut short at byte {at}")
        return raw.split(b"\0", 1)[0].decode("utf-8", "replace")


def _native(reader: _Reader, at: int, depth: int) -> tuple[list[str], int]:
    """Names of one native-encoded list starting at `at` (its pairs), and where it ends. An
    embedded list's pairs follow the pair that holds it, each list ends with 4 zero bytes."""
    if depth > _MAX_DEPTH:
        raise ParseError(WHAT, "nested too deep")
    names: list[str] = []
    while True:
        size = reader.int32(at)
        if size == 0:
            return names, at + 4
        if size < 16:
            raise ParseError(WHAT, f"pair of {size} bytes at byte {at}")
        elements, kind = reader.int32(at + 8), reader.int32(at + 12)
        names.append(reader.name(at + 16, reader.int16(at + 4)))
        at += size
        for _ in range(1 if kind == _NVLIST else elements if kind == _NVLIST_ARRAY else 0):
            at = _native(reader, at, depth + 1)[1]


def _xdr(reader: _Reader, at: int) -> list[str]:
    """Names of an XDR-encoded list's pairs (each pair's size covers its embedded lists)."""
    names: list[str] = []
    while True:
        size, decoded = reader.int32(at), reader.int32(at + 4)
        if decoded == 0:
            return names
        if size < 12:
            raise ParseError(WHAT, f"pair of {size} bytes at byte {at}")
        names.append(reader.name(at + 12, reader.int32(at + 8)))
        at += size


def packed_names(data: bytes) -> tuple[str, ...]:
    """The top-level names of a packed nvlist (a zpool.cache: the pool names).

    Raises:
        ParseError: not a packed nvlist, or one cut short.
    """
    if len(data) < 12:
        raise ParseError(WHAT, f"{len(data)} bytes, too short for a packed nvlist")
    encoding, endian = data[0], data[1]
    if encoding not in (_NATIVE, _XDR) or endian not in (0, 1):
        raise ParseError(WHAT, "not a packed nvlist (unknown encoding)")
    if encoding == _XDR:
        return tuple(_xdr(_Reader(data, ">"), 12))
    names, _ = _native(_Reader(data, "<" if endian == 1 else ">"), 12, 0)
    return tuple(names)


def cache_pools(root: Path) -> tuple[str, ...]:
    """The pools /etc/zfs/zpool.cache under `root` names; `UNNAMED` alone when the file is
    there but cannot be read as one; () when there is none (or it is empty)."""
    path = root / CACHE_FILE
    try:
        data = read_bounded(path, CACHE_LIMIT)
    except FileNotFoundError:
        return ()
    except OSError:
        return (UNNAMED,) if path.exists() else ()
    if not data:
        return ()
    try:
        return packed_names(data) or (UNNAMED,)
    except ParseError:
        return (UNNAMED,)


class KnownPools:
    """The ZFS pools this box had: those its zpool.cache names, those the history saw
    (`history`, asked at most every `ttl` seconds: it opens a database), those the
    configuration names (`configured`, any kind: a name that is an md array or btrfs
    filesystem now is not counted) and those this process saw itself (`saw`)."""

    def __init__(
        self,
        root: Path,
        *,
        configured: Iterable[str] = (),
        history: Callable[[], Iterable[str]] | None = None,
        ttl: float = 300.0,
    ) -> None:
        self._root = root
        self._configured = tuple(configured)
        self._history = history
        self._ttl = ttl
        self._seen: set[str] = set()
        self._asked: tuple[float, tuple[str, ...]] | None = None

    def saw(self, names: Iterable[str]) -> None:
        """Remember ZFS pools read in this process."""
        self._seen.update(names)

    def _from_history(self, now: float) -> tuple[str, ...]:
        if self._history is None:
            return ()
        if self._asked is None or not 0 <= now - self._asked[0] < self._ttl:
            self._asked = (now, tuple(self._history()))
        return self._asked[1]

    def names(self, now: float, other_pools: Iterable[str] = ()) -> tuple[str, ...]:
        """Every pool known to have been ZFS here, each once, in the order found (`UNNAMED`
        only when no name is known; `other_pools`: the md and btrfs pools present now, which
        a configured name may mean instead)."""
        others = set(other_pools)
        found = [
            *self._seen,
            *self._from_history(now),
            *cache_pools(self._root),
            *(n for n in self._configured if n not in others),
        ]
        named = dict.fromkeys(n for n in found if n != UNNAMED)
        return (*named, UNNAMED) if UNNAMED in found and not named else tuple(named)
