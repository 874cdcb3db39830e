"""What `zpool` (and `zfs`) say when they cannot answer, read the same way in every OpenZFS
release (pure).

Each release words the same fact its own way: without a kernel module, 2.0 and 2.1 say "The
ZFS modules are not loaded." (they only run modprobe when ZFS_MODULE_LOADING=yes, and then say
"cannot be auto-loaded"), while 2.2 and later always try `modprobe zfs` and say "The ZFS
modules cannot be auto-loaded." when it fails. Both mean one thing to nastui: the module is
not there. `meaning` maps every such text to one `Meaning`, by the phrase that stays the same
across releases (the exact texts, with their source file and release, are in the tests).

Where the texts come from (OpenZFS, `lib/libzfs/os/linux/libzfs_util_os.c`,
`libzfs_error_init()`, printed by `cmd/zpool/zpool_main.c` `main()` when `libzfs_init()` fails,
exit 1): ENXIO "modules are not loaded", ENOEXEC "modules cannot be auto-loaded", ENOENT
"/dev/zfs and /proc/self/mounts are required", EACCES "Permission denied the ZFS utilities
must be run as root.", anything else "Failed to initialize the libzfs library.". From
`zpool_do_status()`: "no pools available" (stderr, exit 0) and "invalid option 'j'" before
the usage (exit 2) where `-j` is not known (before 2.3). From `lib/libzfs/libzfs_pool.c`
`zpool_open_canfail()`: "cannot open 'NAME': no such pool".
"""

from __future__ import annotations

import re
from enum import StrEnum


class Meaning(StrEnum):
    """What a `zpool` message means, whatever the release's words."""

    MODULE_NOT_LOADED = "module not loaded"  # ENXIO
    MODULE_NOT_LOADABLE = "module cannot be loaded"  # ENOEXEC: modprobe failed
    NO_DEVICE = "/dev/zfs missing"  # ENOENT: module there, no device node (a container?)
    NO_PERMISSION = "permission denied"  # EACCES on /dev/zfs
    INIT_FAILED = "libzfs failed to start"  # any other libzfs_init failure
    NO_POOLS = "no pools"
    NO_SUCH_POOL = "no such pool"
    NO_JSON = "no JSON output"  # `-j`/`--json-int` not known (OpenZFS before 2.3)


# The meanings that say "this box cannot reach ZFS at all", decided by what the box had.
UNREACHABLE = frozenset({Meaning.MODULE_NOT_LOADED, Meaning.MODULE_NOT_LOADABLE, Meaning.NO_DEVICE})

_PATTERNS: tuple[tuple[Meaning, re.Pattern[str]], ...] = (
    # Sample: The ZFS modules are not loaded.
    (Meaning.MODULE_NOT_LOADED, re.compile(r"\bZFS modules are not loaded\b", re.I)),
    # Sample: The ZFS modules cannot be auto-loaded.
    (Meaning.MODULE_NOT_LOADABLE, re.compile(r"\bZFS modules cannot be auto-?loaded\b", re.I)),
    # Sample: /dev/zfs and /proc/self/mounts are required.
    (Meaning.NO_DEVICE, re.compile(r"^/dev/zfs and /proc/self/mounts are required\b", re.I | re.M)),
    # Sample: Permission denied the ZFS utilities must be run as root.
    (Meaning.NO_PERMISSION, re.compile(r"\bZFS utilities must be run as root\b", re.I)),
    # Sample: Failed to initialize the libzfs library.
    (Meaning.INIT_FAILED, re.compile(r"^Failed to initialize the libzfs library\b", re.I | re.M)),
    # Sample: cannot open 'tank': no such pool
    (Meaning.NO_SUCH_POOL, re.compile(r"^cannot open '[^']*': no such pool\s*$", re.M)),
    # Sample: no pools available           (not "no pools available to import")
    (Meaning.NO_POOLS, re.compile(r"^no pools available\s*$", re.M)),
    # Sample: invalid option 'j'    (2.2 for an unknown long option: "invalid option '\0'")
    (Meaning.NO_JSON, re.compile(r"^(?:invalid|unrecognized|illegal) option\b", re.M)),
)
# Sample: cannot open 'tank': no such pool
_NO_SUCH_POOL = re.compile(r"^cannot open '(?P<name>[^']*)': no such pool\s*$", re.M)


def meaning(text: str) -> Meaning | None:
    """The meaning of the first message `text` (a command's stderr and stdout) holds that
    nastui knows, or None."""
    for said, pattern in _PATTERNS:
        if pattern.search(text):
            return said
    return None


def missing_pools(text: str) -> tuple[str, ...]:
    """The pools a command named that do not exist ("cannot open 'x': no such pool")."""
    return tuple(m["name"] for m in _NO_SUCH_POOL.finditer(text))


def first_line(text: str) -> str:
    """The first non-blank line of `text`, stripped (a message's sentence without the hint)."""
    return next((line.strip() for line in text.splitlines() if line.strip()), "")
