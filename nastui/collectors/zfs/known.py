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

`packed_names` reads the top-level names of a packed nvlist (`nastui.collectors.zfs.nvlist`, in
either of libnvpair's encodings), without interpreting anything else; a file it cannot follow
still counts as "pools were here".
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from nastui.collectors.zfs.nvlist import packed_pairs
from nastui.model.errors import ParseError
from nastui.safeio import read_bounded

CACHE_FILE = "etc/zfs/zpool.cache"
CACHE_LIMIT = 16 * 1024 * 1024
UNNAMED = "in /etc/zfs/zpool.cache"  # pools are there, their names could not be read
WHAT = "zpool.cache"


def packed_names(data: bytes) -> tuple[str, ...]:
    """The top-level names of a packed nvlist (a zpool.cache: the pool names).

    Raises:
        ParseError: not a packed nvlist, or one cut short.
    """
    return tuple(pair.name for pair in packed_pairs(data, WHAT))


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
