"""The lab guest's initramfs: busybox, the modules that reach the host's root over 9p, and /init.

Written as a gzip'd cpio "newc" archive by this module (the format is 110-byte ASCII headers,
each name and body padded to 4 bytes), so building it needs no cpio tool and no root. The
archive is rebuilt only when its inputs change: its name carries a hash of them.
"""

from __future__ import annotations

import gzip
import hashlib
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

GUEST = Path(__file__).resolve().parent / "guest"
BUSYBOX = Path("/bin/busybox")

# What reaches the host's root: 9p over virtio-pci, and overlayfs; in load order. A module the
# kernel has built in is simply not there and is skipped.
MODULES = (
    "fs/netfs/netfs.ko",
    "fs/fscache/fscache.ko",
    "drivers/virtio/virtio_ring.ko",
    "drivers/virtio/virtio.ko",
    "drivers/virtio/virtio_pci_modern_dev.ko",
    "drivers/virtio/virtio_pci_legacy_dev.ko",
    "drivers/virtio/virtio_pci.ko",
    "net/9p/9pnet.ko",
    "net/9p/9pnet_virtio.ko",
    "fs/9p/9p.ko",
    "fs/overlayfs/overlay.ko",
)


@dataclass(frozen=True)
class Entry:
    """One archive member: a directory, a regular file or a character device."""

    name: str
    mode: int
    data: bytes = b""
    rdev: tuple[int, int] = (0, 0)


def _pad(length: int) -> bytes:
    return b"\0" * (-length % 4)


def _header(ino: int, entry: Entry, name: bytes) -> bytes:
    fields = (
        ino,
        entry.mode,
        0,  # uid
        0,  # gid
        2 if stat.S_ISDIR(entry.mode) else 1,
        0,  # mtime: fixed, so the same inputs give the same bytes
        len(entry.data),
        0,  # dev major
        0,  # dev minor
        entry.rdev[0],
        entry.rdev[1],
        len(name) + 1,
        0,  # checksum (unused by "070701")
    )
    return b"070701" + b"".join(b"%08X" % f for f in fields)


def cpio_newc(entries: Iterable[Entry]) -> bytes:
    """The entries as one cpio newc archive, with its TRAILER!!! member."""
    out = bytearray()
    for ino, entry in enumerate([*entries, Entry("TRAILER!!!", 0)], start=1):
        name = entry.name.encode()
        head = _header(ino, entry, name) + name + b"\0"
        out += head + _pad(len(head)) + entry.data + _pad(len(entry.data))
    return bytes(out)


def _directory(name: str) -> Entry:
    return Entry(name, stat.S_IFDIR | 0o755)


def _file(name: str, data: bytes, mode: int = 0o644) -> Entry:
    return Entry(name, stat.S_IFREG | mode, data)


def module_paths(kernel_modules: Path) -> list[Path]:
    """The 9p/overlay modules of this kernel that exist as files, in load order."""
    return [
        kernel_modules / "kernel" / m for m in MODULES if (kernel_modules / "kernel" / m).is_file()
    ]


def entries(init: bytes, busybox: bytes, modules: Sequence[tuple[str, bytes]]) -> list[Entry]:
    """The archive's members: directories, /init, busybox, /dev/console, the modules."""
    dirs = ("bin", "dev", "proc", "sys", "modules", "host", "rw", "newroot")
    return [
        *(_directory(d) for d in dirs),
        Entry("dev/console", stat.S_IFCHR | 0o600, rdev=(5, 1)),
        _file("init", init, 0o755),
        _file("bin/busybox", busybox, 0o755),
        _file("modules.order", "".join(f"{n}\n" for n, _ in modules).encode()),
        *(_file(f"modules/{n}", data) for n, data in modules),
    ]


def build(kernel_modules: Path, out_dir: Path) -> Path:
    """The gzip'd initramfs for the kernel whose modules are in `kernel_modules`, built once."""
    init = (GUEST / "init").read_bytes()
    busybox = BUSYBOX.read_bytes()
    modules = [(p.name, p.read_bytes()) for p in module_paths(kernel_modules)]
    digest = hashlib.sha256(init + busybox + b"".join(d for _, d in modules)).hexdigest()[:16]
    target = out_dir / f"initramfs-{kernel_modules.name}-{digest}.cpio.gz"
    if not target.exists():
        out_dir.mkdir(parents=True, exist_ok=True)
        part = target.with_suffix(".part")
        part.write_bytes(gzip.compress(cpio_newc(entries(init, busybox, modules)), mtime=0))
        part.rename(target)
    return target
