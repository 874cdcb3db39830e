"""Real block stacks for the guard's tests (root): victims, attackers and byte counts.

- `attached(...)`: `losetup -f --show ...`, detached afterwards whatever happens;
- `victim_fs`: a mounted ext4 on a loop device with a file of random data, frozen (fsfreeze:
  the filesystem writes nothing of its own, so any change to its device's bytes is someone
  else's write), with its raw bytes kept to count what changed (`Victim.changed`);
- other processes using a device or file in the ways the guard must see: an open descriptor
  (in any mode), one held only in a thread with its own descriptor table
  (`unshare(CLONE_FILES)`), a MAP_SHARED mapping whose descriptor is closed;
- `changed_bytes`: how many bytes differ between two images (the issue's figures).

Every loop device, mount and process made here is undone by the context that made it.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import require_tool

MIB = 1 << 20


def need_root() -> None:
    if os.geteuid() != 0:
        require_tool("nastui-needs-root-for-loop-devices", "(run the tests as root)")


def sh(*argv: str) -> None:
    """Run a setup command; it must succeed."""
    subprocess.run(argv, capture_output=True, check=True)


def read_all(path: str | Path) -> bytes:
    with Path(path).open("rb") as f:
        return f.read()


def checksum(path: str | Path) -> str:
    return hashlib.sha256(read_all(path)).hexdigest()


def changed_bytes(before: bytes, after: bytes) -> int:
    """How many bytes differ (a length change counts the missing or extra bytes)."""
    size = min(len(before), len(after))
    diff = int.from_bytes(before[:size], "big") ^ int.from_bytes(after[:size], "big")
    same = diff.to_bytes(size, "big").count(0) if size else 0
    return size - same + abs(len(before) - len(after))


def image(path: Path, size_mib: int) -> Path:
    with path.open("wb") as f:
        f.truncate(size_mib * MIB)
    return path


@contextlib.contextmanager
def attached(*args: str) -> Iterator[str]:
    """`losetup -f --show ARGS`; unmounted and detached afterwards, whatever happens."""
    need_root()
    require_tool("losetup", "util-linux")
    device = subprocess.run(
        ["losetup", "-f", "--show", *args], capture_output=True, text=True, check=True
    ).stdout.strip()
    try:
        yield device
    finally:
        subprocess.run(["umount", device], capture_output=True, check=False)
        subprocess.run(["losetup", "-d", device], capture_output=True, check=False)


@contextlib.contextmanager
def mounted(device: str, where: Path, *options: str) -> Iterator[Path]:
    where.mkdir(exist_ok=True)
    sh("mount", *options, device, str(where))
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True, check=False)


@contextlib.contextmanager
def frozen(where: Path) -> Iterator[Path]:
    """The filesystem at `where` flushed and frozen: it writes nothing of its own."""
    sh("fsfreeze", "--freeze", str(where))
    try:
        yield where
    finally:
        subprocess.run(["fsfreeze", "--unfreeze", str(where)], capture_output=True, check=False)


def mkfs_ext4(device: str) -> None:
    require_tool("mkfs.ext4", "e2fsprogs")
    sh("mkfs.ext4", "-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0", device)


@dataclass(frozen=True, slots=True)
class Victim:
    """A mounted, frozen ext4 on a loop device and its bytes before the attack."""

    device: str
    image: Path
    mount: Path
    before: bytes

    def changed(self) -> int:
        """Bytes of the device that differ from before, read from its backing file after a
        sync (the loop device's own cache would not see a write to the file beneath it)."""
        sh("sync")
        return changed_bytes(self.before, read_all(self.image))


@contextlib.contextmanager
def victim_fs(tmp_path: Path, name: str = "victim", size_mib: int = 32) -> Iterator[Victim]:
    backing = image(tmp_path / f"{name}.img", size_mib)
    with attached(str(backing)) as device:
        mkfs_ext4(device)
        with mounted(device, tmp_path / f"{name}-mnt") as mnt:
            (mnt / "precious").write_bytes(os.urandom(MIB))
            sh("sync")
            with frozen(mnt):
                sh("sync")
                yield Victim(device, backing, mnt, read_all(backing))


def _helper(code: str) -> subprocess.Popen[str]:
    """A Python process running `code`, which prints "ready" when set up."""
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()
    if line != "ready":
        proc.kill()
        proc.wait()
        raise AssertionError(f"helper did not start: {line!r}")
    return proc


@contextlib.contextmanager
def helper(code: str) -> Iterator[int]:
    """Another process running `code` (it prints "ready"); its pid. Killed afterwards."""
    proc = _helper(code)
    try:
        yield proc.pid
    finally:
        proc.kill()
        proc.wait()


def opened(path: str | Path, mode: str = "O_RDWR") -> contextlib.AbstractContextManager[int]:
    """Another process with `path` open in `mode` ("O_RDWR", "O_RDONLY | os.O_EXCL")."""
    return helper(
        f"import os, time\nos.open({str(path)!r}, os.{mode})\n"
        "print('ready', flush=True)\ntime.sleep(600)\n"
    )


def opened_by_own_node(device: str, node: Path) -> contextlib.AbstractContextManager[int]:
    """Another process with `device` open read-write through a node of its own (made with
    mknod at `node`, removed once opened): nothing under /dev names its use."""
    os.mknod(node, 0o600 | stat.S_IFBLK, Path(device).stat().st_rdev)
    return helper(
        f"import os, time\nos.open({str(node)!r}, os.O_RDWR)\nos.unlink({str(node)!r})\n"
        "print('ready', flush=True)\ntime.sleep(600)\n"
    )


def opened_in_thread(path: str | Path) -> contextlib.AbstractContextManager[int]:
    """Another process whose only descriptor of `path` is in a thread that unshared its
    descriptor table (unshare(CLONE_FILES)): /proc/PID/fd does not show it."""
    return helper(
        "import ctypes, os, threading, time\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "ready = threading.Event()\n"
        "def hold():\n"
        "    assert libc.unshare(0x400) == 0\n"  # CLONE_FILES
        f"    os.open({str(path)!r}, os.O_RDWR)\n"
        "    ready.set()\n"
        "    time.sleep(600)\n"
        "threading.Thread(target=hold, daemon=True).start()\n"
        "ready.wait()\nprint('ready', flush=True)\ntime.sleep(600)\n"
    )


def mapped_then_closed(
    path: str | Path, *, writable: bool = True
) -> contextlib.AbstractContextManager[int]:
    """Another process with `path` mapped MAP_SHARED (read-write, or read-only) and its
    descriptor closed (libc's mmap: Python's mmap module keeps a duplicate descriptor open)."""
    mode, prot = ("O_RDWR", 3) if writable else ("O_RDONLY", 1)
    return helper(
        "import ctypes, os, time\nlibc = ctypes.CDLL(None, use_errno=True)\n"
        "libc.mmap.restype = ctypes.c_void_p\n"
        "libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,"
        " ctypes.c_int, ctypes.c_long]\n"
        f"fd = os.open({str(path)!r}, os.{mode})\n"
        f"assert libc.mmap(None, 4096, {prot}, 1, fd, 0) not in (None, 2**64 - 1)\n"  # SHARED
        "os.close(fd)\nos.chdir('/')\nprint('ready', flush=True)\ntime.sleep(600)\n"
    )


def registered_in_io_uring(
    path: str | Path, *, ring_closed: bool = False
) -> contextlib.AbstractContextManager[int]:
    """Another process with `path` open read-write only as a file registered with an io_uring
    (IORING_REGISTER_FILES), its own descriptor of the file closed: /proc/PID/fd shows the
    ring, not the file, and the ring may write it whenever it likes. `ring_closed`: the ring's
    submission queue mapped, the ring registered with the task (IORING_REGISTER_RING_FDS) and
    its descriptor closed too: only the mapping shows."""
    close_ring = (
        "libc.mmap.restype = ctypes.c_void_p\n"
        "libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,"
        " ctypes.c_int, ctypes.c_long]\n"
        "assert libc.mmap(None, 4096, 3, 1, ring, 0) not in (None, 2**64 - 1)\n"  # SQ ring
        "update = (ctypes.c_uint32 * 4)(0xFFFFFFFF, 0, ring, 0)\n"  # io_uring_rsrc_update
        "assert libc.syscall(427, ring, 20, update, 1) == 1, os.strerror(ctypes.get_errno())\n"
        "os.close(ring)\n"
    )
    return helper(
        "import ctypes, os, time\nlibc = ctypes.CDLL(None, use_errno=True)\n"
        "ring = libc.syscall(425, 4, ctypes.byref((ctypes.c_ubyte * 120)()))\n"  # setup
        "assert ring >= 0, os.strerror(ctypes.get_errno())\n"
        f"fd = os.open({str(path)!r}, os.O_RDWR)\n"
        "files = (ctypes.c_int * 1)(fd)\n"
        "assert libc.syscall(427, ring, 2, files, 1) == 0, os.strerror(ctypes.get_errno())\n"
        f"os.close(fd)\n{close_ring if ring_closed else ''}"
        "os.chdir('/')\nprint('ready', flush=True)\ntime.sleep(600)\n"
    )


@contextlib.contextmanager
def mounted_elsewhere(device: str, where: Path) -> Iterator[int]:
    """`device` mounted at `where` in a mount namespace of its own (as a container would),
    kept alive by a sleeping process (its pid); this process's mountinfo does not show it."""
    where.mkdir(exist_ok=True)
    code = f"mount {device} {where} && echo ready && exec sleep 600"
    proc = subprocess.Popen(
        ["unshare", "-m", "--propagation", "private", "sh", "-c", code],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        yield proc.pid
    finally:
        proc.kill()
        proc.wait()


@contextlib.contextmanager
def mounted_in_a_kept_namespace(device: str, where: Path, keep: Path) -> Iterator[Path]:
    """`device` mounted at `where` in a mount namespace no process lives in: made by
    `unshare --mount=FILE` (the namespace bound at a file under `keep`, a private mount), its
    process gone; frozen (fsfreeze through nsenter) so that its bytes change only if someone
    else writes them. No /proc/PID/mountinfo shows it; it ends when the file is unmounted."""
    keep.mkdir(exist_ok=True)
    where.mkdir(exist_ok=True)
    enter = ("nsenter", f"--mount={keep / 'mnt'}")
    sh("mount", "--bind", str(keep), str(keep))
    try:
        sh("mount", "--make-private", str(keep))
        (keep / "mnt").touch()
        sh("unshare", f"--mount={keep / 'mnt'}", "--propagation", "private",
           "mount", device, str(where))  # fmt: skip
        sh(*enter, "fsfreeze", "--freeze", str(where))
        yield keep / "mnt"
    finally:
        subprocess.run(
            [*enter, "fsfreeze", "--unfreeze", str(where)], capture_output=True, check=False
        )
        subprocess.run(["umount", str(keep / "mnt")], capture_output=True, check=False)
        subprocess.run(["umount", str(keep)], capture_output=True, check=False)


def refused_to_us(pid: int) -> bool:
    """Whether /proc refuses the descriptors of `pid` to this process (EACCES on the first)."""
    for entry in Path(f"/proc/{pid}/fd").iterdir():
        try:
            entry.stat()
        except PermissionError:
            return True
        except FileNotFoundError:
            continue
        return False
    return False
