"""ZFS scrub start/pause/stop through libzfs_core, via pyzfs's bindings (Debian python3-pyzfs).

pyzfs's Python API has no `lzc_scrub` (checked up to OpenZFS 2.3 / master, contrib/pyzfs), but
its cffi bindings load libzfs_core, and libzfs_core has had `lzc_scrub(ZFS_IOC_POOL_SCRUB, pool,
args, NULL)` since OpenZFS 2.2: the call `zpool scrub` itself makes. This module declares that
one function on pyzfs's FFI and builds the argument nvlist with pyzfs's own helper. Anything
missing (pyzfs, cffi, an older libzfs_core, a kernel module without the ioctl) is reported as
unavailable, and the caller falls back to `zpool scrub`.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from typing import Any

from nastui.model import ScrubAction

ZFS_IOC_POOL_SCRUB = 0x5A57  # include/sys/fs/zfs.h: ZFS_IOC_FIRST ('Z' << 8) + 0x57
ZFS_ERR_IOC_CMD_UNAVAIL = 1029  # zfs_errno_t: 1024 + 5
POOL_SCAN_NONE, POOL_SCAN_SCRUB = 0, 1
POOL_SCRUB_NORMAL, POOL_SCRUB_PAUSE = 0, 1
LZC_SCRUB_CDEF = "int lzc_scrub(int, const char *, nvlist_t *, nvlist_t **);"

LzcScrub = Callable[[str, ScrubAction], int]


def lzc_scrub_args(action: ScrubAction) -> dict[str, int]:
    """The nvlist `zpool scrub [-p|-s]` passes to lzc_scrub (libzfs_pool.c zpool_scan_range)."""
    if action is ScrubAction.STOP:
        return {"scan_type": POOL_SCAN_NONE, "scan_command": POOL_SCRUB_NORMAL}
    command = POOL_SCRUB_PAUSE if action is ScrubAction.PAUSE else POOL_SCRUB_NORMAL
    return {"scan_type": POOL_SCAN_SCRUB, "scan_command": command}


def outcome(code: int, action: ScrubAction) -> tuple[bool, str]:
    """(done, what it means) for lzc_scrub's return code, as libzfs reads it."""
    if code == 0:
        return True, "ok"
    if code == errno.ECANCELED and action is ScrubAction.START:
        return True, "resumed the paused scrub"
    if code == errno.ENOENT:
        if action is ScrubAction.PAUSE:
            return True, "no scrub was running"
        return False, "there is no scrub running"
    if code == errno.EBUSY:
        return False, "busy: a scrub or resilver is already running"
    return False, os.strerror(code) if code < 1024 else f"ZFS error {code}"


# One declaration per FFI and process: cffi refuses a second `cdef` of the same function, and
# the TUI makes a scrubber per action. Keyed by the FFI's id; the FFI is kept so the id stays its.
_LOADED: dict[int, tuple[Any, LzcScrub | str]] = {}


def load_lzc_scrub() -> LzcScrub | str:
    """A function calling lzc_scrub through pyzfs, or why there is none (the real reason)."""
    try:
        from libzfs_core._nvlist import nvlist_in  # type: ignore[import-not-found]
        from libzfs_core.bindings import libzfs_core as bindings  # type: ignore[import-not-found]
    except ImportError as exc:
        if exc.name is not None and exc.name.split(".")[0] != "libzfs_core":
            return f"pyzfs unusable: {exc}"  # a module it needs (cffi, pycparser, ply) is not
        return "pyzfs (python3-pyzfs) is not installed"
    except Exception as exc:  # pyzfs raises OSError-likes when cffi or the library is missing
        return f"pyzfs unusable: {exc}"
    ffi: Any = bindings.ffi
    if id(ffi) not in _LOADED:
        _LOADED[id(ffi)] = (ffi, _declare(ffi, bindings.lib, nvlist_in))
    return _LOADED[id(ffi)][1]


def _declare(ffi: Any, lib: Any, nvlist_in: Callable[[dict[bytes, int]], Any]) -> LzcScrub | str:
    """Declare lzc_scrub on pyzfs's FFI once and bind it, or say which step failed."""
    try:
        ffi.cdef(LZC_SCRUB_CDEF)
    except Exception as exc:  # cffi's CDefError: pyzfs's own declarations clash
        return f"cannot declare lzc_scrub on pyzfs's FFI: {exc}"
    try:
        function = lib.lzc_scrub
    except AttributeError:
        return "libzfs_core has no lzc_scrub (OpenZFS before 2.2)"
    # pyzfs's raw `lib` is not initialised (its own API wraps it in a lazy libzfs_core_init):
    # an lzc_* call before libzfs_core_init() aborts the whole process on an assertion
    # (`g_fd != -1`, found in the lab). It opens /dev/zfs once per process (reference counted).
    code = int(lib.libzfs_core_init())
    if code != 0:
        return f"libzfs_core_init failed: {os.strerror(code)}"

    def call(pool: str, action: ScrubAction) -> int:
        args = nvlist_in({k.encode(): v for k, v in lzc_scrub_args(action).items()})
        return int(function(ZFS_IOC_POOL_SCRUB, pool.encode(), args, ffi.NULL))

    return call
