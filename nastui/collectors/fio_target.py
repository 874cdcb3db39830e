"""Inspecting a benchmark target before anything touches it: what it is and what uses it.

The path is checked (no whitespace or control characters: fio strips and splits names),
opened once, and everything after is read about what was opened, never the path again.
`inspect_target` reads, under `root`, for a block device:
- its device number (`BenchTarget.devno`: what the run will hold), identity from sysfs
  (`nastui.collectors.sysfs`; a partition's whole disk), size, loop backing;
- its footprint and every other user of it (`BenchTarget.footprint`, `BenchTarget.in_use`: the
  footprint rule, `nastui.core.footprint`, read by `nastui.collectors.blockstack`), and the
  processes /proc would not let it look into (`BenchTarget.unseen`: named, not refused);
  signatures (`blkid -p -o export`, `wipefs --no-act --json`, given /proc/PID/fd/N of the
  descriptor opened) and labels at every offset their formats use (`nastui.collectors.labels`:
  md 0.90/1.x, LVM at sectors 0-3, ZFS's four labels and their pool's name, bcache, LUKS,
  swap, GPT backup), the same of each device below it that its loop devices write to raw
  (`Verdict.probes`: an unmounted filesystem under a loop device at an offset); and the ZFS
  pool of each device laid over the target's bytes (its partitions, a loop device over it at
  an offset: `Verdict.windows`), from its labels read through the target at that device's
  offsets (a whole-disk vdev's labels are on partition 1);
`root` is normalized once ("//" is "/"); under a fake tree the real machine is checked as well,
so `--root` can add reasons to refuse a real device but never remove one.
and for a directory: its filesystem, size and free space, the device under it, its own
identity (`devno`, `inode`), and what would fail its writes if a run took that free space
(`BenchTarget.starved`: `nastui.collectors.fillroom`). Both get the machine's RAM and the ZFS
ARC's maximum, for the page-cache warning. Nothing here writes.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import os
import stat
import threading
import unicodedata
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from nastui.collectors import runner
from nastui.collectors.blockstack import (
    Probe,
    Verdict,
    inspect,
    is_real_root,
    normal_root,
    open_device,
)
from nastui.collectors.fillroom import directory_devs, filled_by_device, space_needs
from nastui.collectors.labels import find_labels, zfs_pool_of
from nastui.collectors.procuse import devno
from nastui.collectors.sysfs import (
    identity_of,
    links_by_target,
    mount_under,
    read_int,
    read_mounts,
    read_table,
    read_text,
    resolved,
)
from nastui.core.footprint import Window
from nastui.model import BenchTarget, TargetKind

RunFn = Callable[..., Awaitable[runner.CommandResult]]
T = TypeVar("T")
PROBE_TIMEOUT_S = 15.0
LOOK_TIMEOUT_S = 20.0  # a look at the stack stuck longer (a hung network filesystem) refuses
MAX_WINDOWS = 16  # devices laid over the target whose ZFS labels are read (each up to 960 KiB)


class TargetError(Exception):
    """The target cannot be benchmarked at all (missing, a regular file, unreadable)."""


def parse_swaps(text: str) -> list[str]:
    """Swap areas from /proc/swaps.

    # Sample: /dev/sda2                               partition	8388604		0		-2
    """
    return [line.split()[0] for line in text.splitlines()[1:] if line.split()]


def parse_blkid(text: str) -> dict[str, str]:
    """`blkid -p -o export DEV` as a dict.

    # Sample: TYPE=ext4     USAGE=filesystem     PTTYPE=gpt
    """
    pairs = (line.split("=", 1) for line in text.splitlines() if "=" in line)
    return {k.strip(): v.strip() for k, v in pairs}


def parse_wipefs(text: str) -> list[str]:
    """Signature types from `wipefs --no-act --json DEV` (empty when it found none).

    # Sample: {"signatures": [{"device": "loop0", "offset": "0x438", "type": "ext4"}]}
    """
    try:
        data = json.loads(text)
    except ValueError:
        return []
    found = data.get("signatures") if isinstance(data, dict) else None
    if not isinstance(found, list):
        return []
    return [f"{s.get('type')} at {s.get('offset')}" for s in found if isinstance(s, dict)]


def parse_meminfo_total(text: str) -> int | None:
    """MemTotal in bytes from /proc/meminfo.

    # Sample: MemTotal:       24684092 kB
    """
    for line in text.splitlines():
        if line.startswith("MemTotal:"):
            parts = line.split()
            return int(parts[1]) * 1024 if len(parts) >= 2 and parts[1].isdigit() else None
    return None


def parse_arc_max(text: str) -> int | None:
    """The ARC's maximum size (c_max) in bytes from /proc/spl/kstat/zfs/arcstats.

    # Sample: c_max                           4    8317517824
    """
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0] == "c_max" and parts[2].isdigit():
            return int(parts[2])
    return None


def _block_name(root: Path, devno: str) -> str | None:
    target = resolved(root / "sys/dev/block" / devno)
    return target.name if target is not None else None


def whole_disk(root: Path, name: str) -> str:
    """A partition's disk ("sdc1" -> "sdc"); a disk itself otherwise."""
    block = root / "sys/class/block" / name
    target = resolved(block) if (block / "partition").exists() else None
    return target.parent.name if target is not None else name


def read_labels(fd: int, device: str, windows: Sequence[Window] = ()) -> list[str]:
    """Labels at every offset their formats use (`nastui.collectors.labels`), read-only from
    the open device `fd`, and the ZFS pool of each device laid over it (`windows`: its
    partitions, loop devices over it; the first `MAX_WINDOWS`), read through `fd` at their
    offsets. A window whose labels cannot be read adds nothing: its use is named already."""

    def read(at: int, length: int) -> bytes:
        return os.pread(fd, length, at)

    try:
        end = os.lseek(fd, 0, os.SEEK_END)
        labels = find_labels(read, end)
    except OSError as exc:
        return [f"labels not checked: {device}: {exc.strerror}"]
    pools = []
    for window in windows[:MAX_WINDOWS]:
        with contextlib.suppress(OSError):
            pools.append(zfs_pool_of(read, end, window))
    return [f"{found} (nastui)" for found in (*pools, *labels) if found]


async def _signatures(device: str, run: RunFn) -> list[str]:
    found = []
    blkid = await run(("blkid", "-p", "-o", "export", device), timeout=PROBE_TIMEOUT_S)
    info = parse_blkid(blkid.stdout) if blkid.ok else {}
    for key in ("TYPE", "PTTYPE"):
        if key in info:
            found.append(f"{info[key]} signature (blkid)")
    wipefs = await run(("wipefs", "--no-act", "--json", device), timeout=PROBE_TIMEOUT_S)
    if wipefs.ok:
        found += [f"{s} signature (wipefs)" for s in parse_wipefs(wipefs.stdout)]
    elif wipefs.not_found and blkid.not_found:
        found.append("signatures not checked: blkid and wipefs missing (util-linux)")
    return found


def footprint_verdict(root: Path, number: str, held: frozenset[str] = frozenset()) -> Verdict:
    """The footprint rule for device `number`, seen under `root` and, when `root` is a fake
    tree, on the real machine too: `--root` never hides a use of a real device. The
    footprint (and the devices below it to hold) is the real machine's. `held`: the devices
    below the target that this process holds O_EXCL (a run's second look and watch)."""
    if is_real_root(root):
        return inspect(root, number, real=True, held=held)
    fake = inspect(root, number, real=False)
    real = inspect(Path("/"), number, real=True, held=held)
    both = tuple(dict.fromkeys((*fake.conflicts, *real.conflicts)))
    windows = tuple(dict.fromkeys((*real.windows, *fake.windows)))
    unseen = tuple(dict.fromkeys((*real.unseen, *fake.unseen)))
    brief = fake.brief | real.brief
    return Verdict(real.footprint, both, brief, windows, unseen, real.lowers, real.probes)


async def on_daemon_thread(look: Callable[[], T], timeout: float) -> T:
    """`look()` on a daemon thread, given up after `timeout` seconds (TimeoutError). A daemon
    thread, not the executor's: a look stuck in a hung filesystem must not keep nastui from
    exiting."""
    loop = asyncio.get_running_loop()
    answer: asyncio.Future[T] = loop.create_future()

    def run() -> None:
        result, error = None, None
        try:
            result = look()
        except Exception as exc:  # handed to the awaiting task, which raises it
            error = exc
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits any more
            loop.call_soon_threadsafe(_settle, answer, result, error)

    threading.Thread(target=run, name="nastui-guard-look", daemon=True).start()
    return await asyncio.wait_for(answer, timeout)


def hung(timeout: float) -> str:
    """Why a look given up on refuses, in words."""
    return f"the look at what uses it did not finish within {timeout:g} s (a hung filesystem?)"


async def looked(
    root: Path, number: str, timeout: float = LOOK_TIMEOUT_S, held: frozenset[str] = frozenset()
) -> Verdict:
    """`footprint_verdict` on a daemon thread (`on_daemon_thread`), given up after `timeout`
    seconds: the answer then refuses (a look that never ends sees nothing)."""
    try:
        return await on_daemon_thread(lambda: footprint_verdict(root, number, held), timeout)
    except TimeoutError:
        return Verdict((), (hung(timeout),))


def _settle(answer: asyncio.Future[T], result: T | None, exc: BaseException | None) -> None:
    if answer.done():
        return  # given up on already
    if exc is not None:
        answer.set_exception(exc)
    elif result is not None:
        answer.set_result(result)


def _machine(root: Path, target: BenchTarget) -> BenchTarget:
    """`target` with the machine's RAM and ZFS ARC maximum."""
    return dataclasses.replace(
        target,
        ram_bytes=parse_meminfo_total(read_table(root / "proc/meminfo")),
        arc_max_bytes=parse_arc_max(read_table(root / "proc/spl/kstat/zfs/arcstats")),
    )


async def _contents(
    path: str, opened: _Opened, run: RunFn, windows: Sequence[Window] = ()
) -> list[str]:
    """Labels and signatures of the device opened (or why they were not read), and the ZFS
    pools of the devices laid over it (`windows`)."""
    if opened.fd is None:
        return [f"signatures not checked: {path} cannot be opened: {opened.error}"]
    uses = read_labels(opened.fd, path, windows)
    return uses + await _signatures(f"/proc/{os.getpid()}/fd/{opened.fd}", run)


async def _lower_contents(probes: Sequence[Probe], run: RunFn) -> list[str]:
    """Labels and signatures of each device below the target that its loop devices write to
    raw (`Verdict.probes`; the first `MAX_WINDOWS`), each after how it is reached."""
    found = []
    for probe in probes[:MAX_WINDOWS]:
        fd = open_device(probe.name, probe.devno)
        if fd is None:
            found.append(
                f"{probe.where}: signatures not checked: /dev/{probe.name} cannot be opened"
            )
            continue
        try:
            seen = await _contents(f"/dev/{probe.name}", _Opened(fd, os.fstat(fd)), run)
        finally:
            os.close(fd)
        found += [f"{probe.where}: {what}" for what in seen]
    return found


async def describe_device(
    path: str, opened: _Opened, root: Path, run: RunFn, held: frozenset[str] = frozenset()
) -> BenchTarget:
    """The block device opened: identity, size, footprint and every sign of use."""
    number = devno(opened.st.st_rdev)
    name = _block_name(root, number) or _block_name(Path("/"), number) or Path(path).name
    disk = whole_disk(root, name)
    links = links_by_target(root / "dev/disk/by-id").get(disk, [])
    verdict = await looked(root, number, held=held)
    sectors = read_int(root / "sys/class/block" / name / "size")
    uses = [*verdict.conflicts, *await _contents(path, opened, run, verdict.windows)]
    uses += await _lower_contents(verdict.probes, run)
    uses += filled_by_device(root, number)
    target = BenchTarget(
        path=path,
        kind=TargetKind.DEVICE,
        dev=name,
        identity=identity_of(root, disk, links),
        size_bytes=None if sectors is None else sectors * 512,
        in_use=tuple(dict.fromkeys(uses)),
        backing=read_text(root / "sys/class/block" / name / "loop/backing_file"),
        devno=number,
        footprint=verdict.footprint,
        unseen=verdict.unseen,
        lowers=verdict.lowers,
    )
    return _machine(root, target)


def inspect_directory(path: str, fd: int, root: Path) -> BenchTarget:
    """The directory open as `fd`: its filesystem, space, the device under it, its identity."""
    st = os.fstat(fd)
    real = os.path.realpath(f"/proc/self/fd/{fd}")
    mount = mount_under(read_mounts(root), real)
    name = _block_name(root, devno(st.st_dev))
    if name is None and mount is not None and mount.source.startswith("/dev/"):
        name = Path(os.path.realpath(mount.source)).name
    disk = whole_disk(root, name) if name else None
    identity = None
    if disk is not None and (root / "sys/class/block" / disk).exists():
        identity = identity_of(root, disk, links_by_target(root / "dev/disk/by-id").get(disk, []))
    vfs = os.statvfs(fd)
    free = vfs.f_bavail * vfs.f_frsize
    target = BenchTarget(
        path=path,
        kind=TargetKind.DIRECTORY,
        dev=name,
        identity=identity,
        size_bytes=vfs.f_blocks * vfs.f_frsize,
        free_bytes=free,
        fs_type=mount.fs_type if mount else None,
        devno=devno(st.st_dev),
        inode=st.st_ino,
        starved=space_needs(root, directory_devs(root, real, devno(st.st_dev)), free),
    )
    return _machine(root, target)


def check_name(path: str) -> None:
    """Refuse a target name with whitespace or control characters: fio strips a trailing
    space and would open another file ("L " is "L" to fio), and such names are seldom what
    was meant.

    Raises:
        TargetError: one line naming the character.
    """
    for ch in path:
        if ch.isspace() or unicodedata.category(ch) in ("Cc", "Cf"):
            raise TargetError(
                f"{path!r}: target names with whitespace or control characters are refused "
                f"({ch!r}): name the device or directory another way (/dev/disk/by-id/...)"
            )


TAKES = "a benchmark takes a directory, or a whole block device (/dev/sdc, /dev/disk/by-id/...)"


def unusable(path: str, exc: OSError, takes: str = TAKES) -> TargetError:
    """A target that cannot be opened, in one line naming it; one that does not exist (a typo)
    also says what a target may be (`takes`)."""
    why = exc.strerror or str(exc)
    if isinstance(exc, FileNotFoundError):
        return TargetError(f"{path}: {why} ({takes})")
    return TargetError(f"{path}: {why}")


def check_directory(path: str, takes: str) -> None:
    """Refuse a directory target that is not one (the demo's, which writes nowhere else), in
    the words the real check uses: a name it would refuse, one that does not exist, one that
    is not a directory; the last two say what is taken instead (`takes`).

    Raises:
        TargetError: one line naming the target.
    """
    check_name(path)
    try:
        mode = Path(path).stat().st_mode
    except OSError as exc:
        raise unusable(path, exc, takes) from exc
    if not stat.S_ISDIR(mode):
        raise TargetError(f"{path}: not a directory ({takes})")


@dataclass(frozen=True, slots=True)
class _Opened:
    """The target opened once: its descriptor (None when the open was refused: a device
    then cannot be written either), what it is, and why it could not be opened."""

    fd: int | None
    st: os.stat_result
    error: str = ""


@contextlib.contextmanager
def _opened(path: str) -> Iterator[_Opened]:
    """`path` opened once, read-only (a directory as one); closed afterwards. A device that
    exists but cannot be opened (EPERM, EACCES) is still described, from a stat."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError as exc:
        try:
            st = Path(path).stat()
        except OSError:
            raise unusable(path, exc) from exc
        if not stat.S_ISBLK(st.st_mode):
            raise unusable(path, exc) from exc
        yield _Opened(None, st, exc.strerror or str(exc))
        return
    try:
        yield _Opened(fd, os.fstat(fd))
    finally:
        os.close(fd)


async def inspect_target(
    path: str,
    *,
    root: Path = Path("/"),
    run: RunFn = runner.run,
    held: frozenset[str] = frozenset(),
) -> BenchTarget:
    """What `path` is and what uses it (see the module docstring); `held`: the devices below
    it that this process holds O_EXCL (`BenchTarget.lowers`, a run's second look).

    Raises:
        TargetError: a name with whitespace or control characters; it does not exist, or is
            neither a block device nor a directory.
    """
    check_name(path)
    root = normal_root(root)
    with _opened(path) as opened:
        mode = opened.st.st_mode
        if stat.S_ISBLK(mode):
            return await describe_device(path, opened, root, run, held)
        if stat.S_ISDIR(mode) and opened.fd is not None:
            return inspect_directory(path, opened.fd, root)
    raise TargetError(
        f"{path} is neither a block device nor a directory: name a directory (nastui writes its "
        "test files in a fresh directory inside it) or a whole device such as /dev/disk/by-id/..."
    )
