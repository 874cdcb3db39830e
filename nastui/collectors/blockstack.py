"""The machine's block stack as `nastui.core.footprint` models it: the benchmark guard's eyes.

`read_stack` reads, under `root`:

- every block device in /sys/class/block, its size and what it is built on: a loop device's
  backing device or file, offset and size (the LOOP_GET_STATUS64 ioctl on the real machine:
  backing device number, or the file's filesystem and inode, which still answer when the file
  was deleted or its filesystem lazily unmounted; the sysfs `loop/` attributes, stat'ed,
  otherwise), a partition's disk and range (`start`, `size`), the members of a dm, md or
  bcache device (`slaves`, and each member's `holders`), a zram device's `backing_dev`;
- every filesystem in mountinfo (this process's, and on the real machine that of every mount
  namespace a process lives in: a container's mounts) and the devices it lives on (a btrfs:
  every device in /sys/fs/btrfs/FSID/devices), with its mounts as uses of those devices;
- swap areas (a device, or a file), LIO backstores (`udev_path`: iSCSI, FC, vhost) and NVMe-oF
  namespaces (`device_path`) in configfs;
- on the real machine, what every process uses (`nastui.collectors.procuse`).

`inspect` then applies the footprint rule to a device number; on the real machine it also
asks the kernel, with an exclusive open it lets go at once, whether a device the target's
loop devices write to raw is claimed (mounted, swap, md, LVM, ZFS, btrfs): a claim that
leaves no trace in sysfs. Those devices are in `Verdict.lowers`: a run holds them O_EXCL
with the target, and its own looks then skip them (`held`). Nothing here writes.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
import struct
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from nastui.collectors.procuse import devno, everything, node_of, process_uses
from nastui.collectors.sysfs import (
    TABLE_LIMIT,
    Mount,
    parse_mountinfo,
    read_int,
    read_table,
    read_text,
)
from nastui.core.footprint import (
    Block,
    Device,
    File,
    Filesystem,
    Link,
    Node,
    Span,
    Stack,
    Use,
    Window,
    conflicts,
    describe,
    footprint,
    fs_key,
    holder_key,
    loop_key,
    loop_lowers,
    probed_lowers,
    reach_words,
    relevant,
    texts,
    windows,
)
from nastui.model import UnseenProcess

LOOP_GET_STATUS64 = 0x4C05
# struct loop_info64: lo_device, lo_inode, lo_rdevice, lo_offset, lo_sizelimit (u64), then
# lo_number, lo_encrypt_type, lo_encrypt_key_size, lo_flags (u32), names and key: 232 bytes.
_LOOP_INFO64 = struct.Struct("=5Q4I64s64s32s2Q")
# Filesystems that live on no device: a file on one is written nowhere else.
NO_DEVICE = frozenset(
    {
        "tmpfs", "ramfs", "devtmpfs", "proc", "sysfs", "cgroup", "cgroup2", "devpts",
        "mqueue", "hugetlbfs", "debugfs", "tracefs", "securityfs", "pstore", "bpf",
        "configfs", "fusectl", "autofs", "efivarfs", "binfmt_misc", "nsfs", "rpc_pipefs",
    }
)  # fmt: skip
MAX_REASONS = 12  # lines of one refusal; the rest are counted
UNKNOWN = File("?", 0)  # a backing file that cannot be found: on no filesystem nastui knows


def normal_root(root: Path) -> Path:
    """`root` spelled one way: absolute, links resolved, "//" and "/./" as "/"."""
    return Path(os.path.realpath(root))


def is_real_root(root: Path) -> bool:
    """Whether `root` is this machine's own / (however it is spelled: "//", "/./", a link)."""
    try:
        return root.samefile("/")
    except OSError:
        return False


def _names(directory: Path) -> list[str]:
    try:
        return sorted(os.listdir(directory))  # noqa: PTH208 (no Path for each name)
    except OSError:
        return []


@dataclass(frozen=True, slots=True)
class _View:
    """Where to look: `root` (a fake tree or /), and whether it is the real machine."""

    root: Path
    real: bool

    def path(self, name: str) -> Path:
        """A path named by the machine (a loop's backing file), inside a fake tree."""
        return Path(name) if self.real else self.root / name.lstrip("/")

    def node(self, name: str) -> tuple[Node | None, str]:
        """What a path names, and the path (for messages); in a fake tree, inside it, else
        on the machine (a tree may name real devices: it only adds reasons to refuse)."""
        for where in dict.fromkeys((self.path(name), Path(name))):
            try:
                return node_of(where.stat()), name
            except OSError:
                continue
        return None, name


def open_device(name: str, number: str) -> int | None:
    """/dev/NAME opened read-only, if it is device `number` (not a node put in its place)."""
    try:
        fd = os.open(f"/dev/{name}", os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return None
    st = os.fstat(fd)
    if stat.S_ISBLK(st.st_mode) and devno(st.st_rdev) == number:
        return fd
    os.close(fd)
    return None


def _loop_ioctl(name: str, number: str, size: int | None) -> Link | None:
    """A loop device's backing from LOOP_GET_STATUS64 (real machine only)."""
    fd = open_device(name, number)
    if fd is None:
        return None
    try:
        raw = fcntl.ioctl(fd, LOOP_GET_STATUS64, bytes(_LOOP_INFO64.size))
    except OSError:
        return None  # not bound (ENXIO) or not a loop device
    finally:
        os.close(fd)
    dev, ino, rdev, offset = _LOOP_INFO64.unpack(raw)[:4]
    lower: Node = Block(devno(rdev)) if rdev else File(devno(dev), ino)
    return _loop_link(name, lower, offset, size)


def _loop_link(name: str, lower: Node, offset: int, size: int | None) -> Link:
    end = None if size is None else offset + size
    if isinstance(lower, Block):
        what = f"{name} over it at offset {offset}"
    else:
        what = f"the backing file of {name} (from offset {offset})"
    return Link(Span(lower, offset, end), loop_key(name), what)


def _loop(view: _View, name: str, number: str, size: int | None) -> tuple[Link | None, str]:
    """A loop device's link down, and its backing file's name as sysfs gives it."""
    loop = view.root / "sys/block" / name / "loop"
    file = (read_text(loop / "backing_file") or "").removesuffix(" (deleted)")
    if view.real:
        link = _loop_ioctl(name, number, size)
        if link is not None:
            return link, file
    if not file:
        return None, file
    node, _ = view.node(file)  # a file nobody can find: where the loop writes is not known
    offset = read_int(loop / "offset") or 0
    return _loop_link(name, node or UNKNOWN, offset, size), file


def _partitions(view: _View, name: str, numbers: dict[str, str]) -> Iterator[tuple[str, Link]]:
    """(partition, its link to disk `name`) for each partition of it."""
    block = view.root / "sys/class/block"
    for child in _names(block / name):
        # A partition is a block device of its own, so in /sys/class/block, and the kernel
        # names it after its disk (sda1, nvme0n1p1): the disk's attributes (size, queue,
        # holders...) are passed over without a stat each (most of a look at the devices).
        if child not in numbers and not child.startswith(name):
            continue
        part = block / name / child
        if not (part / "partition").exists():
            continue
        start = read_int(part / "start")
        sectors = read_int(part / "size")
        if sectors is None:
            sectors = read_int(block / child / "size")
        disk = Block(numbers.get(name, ""))
        if start is None or sectors is None:
            span, linear = Span(disk), False
        else:
            span, linear = Span(disk, start * 512, (start + sectors) * 512), True
        where = "" if not linear else f" (bytes {span.start}-{span.end})"
        yield child, Link(span, holder_key(child), f"partition {child}{where}", linear)


def _member(holder: str, number: str) -> Link:
    return Link(Span(Block(number)), holder_key(holder), f"held by {holder}", linear=False)


def read_devices(view: _View) -> tuple[dict[str, Device], dict[File, str]]:
    """Every block device and its links down; backing files' names."""
    block = view.root / "sys/class/block"
    names = _names(block)
    numbers = {name: read_text(block / name / "dev") or "" for name in names}
    links: dict[str, dict[tuple[str, Node], Link]] = {name: {} for name in names}
    files: dict[File, str] = {}

    def add(upper: str, link: Link) -> None:
        links.setdefault(upper, {})[(link.key, link.lower.node)] = link

    sizes = {name: _size(block / name) for name in names}
    for name in names:
        if (view.root / "sys/block" / name / "loop").is_dir():
            link, file = _loop(view, name, numbers[name], sizes[name])
            if link is not None:
                add(name, link)
                if isinstance(link.lower.node, File) and file:
                    files[link.lower.node] = file
        for child, link in _partitions(view, name, numbers):
            add(child, link)
        for member in _names(block / name / "slaves"):
            add(name, _member(name, numbers.get(member, "")))
        for holder in _names(block / name / "holders"):
            add(holder, _member(holder, numbers[name]))
        backing = read_text(block / name / "backing_dev")
        if backing and backing != "none":
            node, _ = view.node(backing)
            if node is not None:
                add(
                    name, Link(Span(node), holder_key(name), f"the backing device of {name}", False)
                )
    devices = {}
    for name, found in links.items():
        number = numbers.get(name) or read_text(block / name / "dev") or ""
        if number:
            devices[number] = Device(number, name, sizes.get(name), tuple(found.values()))
    return devices, files


def _size(block: Path) -> int | None:
    sectors = read_int(block / "size")
    return None if sectors is None else sectors * 512


def _btrfs_devices(view: _View, source: tuple[str, ...], names: dict[str, str]) -> tuple[str, ...]:
    """Every device of the btrfs filesystem that has `source` among its devices."""
    fsroot = view.root / "sys/fs/btrfs"
    for fsid in _names(fsroot):
        members = tuple(names.get(n, "") for n in _names(fsroot / fsid / "devices"))
        if any(s in members for s in source):
            return tuple(m for m in members if m)
    return source


def _fs_devices(view: _View, mount: Mount, devices: dict[str, Device]) -> tuple[str, ...] | None:
    if mount.devno in devices:
        return (mount.devno,)
    if mount.fs_type in NO_DEVICE:
        return ()
    node, _ = view.node(mount.source) if mount.source.startswith("/") else (None, "")
    source = (node.devno,) if isinstance(node, Block) else ()
    if mount.fs_type == "btrfs" and source:
        names = {d.name: d.devno for d in devices.values()}
        return _btrfs_devices(view, source, names)
    return source or None


def every_mount(view: _View, own: str) -> Iterator[tuple[Mount, str]]:
    """Every mount (`own`: this namespace's mountinfo), with where it is seen when not in this
    process's mount namespace (" in the mount namespace of pid 812"): a container's mounts are
    not in /proc/self/mountinfo."""
    for mount in parse_mountinfo(own):
        yield mount, ""
    if not view.real:
        return
    seen = set()
    with contextlib.suppress(OSError):
        seen.add(Path("/proc/self/ns/mnt").stat().st_ino)
    proc = view.root / "proc"
    for pid in _names(proc):
        if not pid.isdigit():
            continue
        try:
            namespace = os.stat(f"{proc}/{pid}/ns/mnt").st_ino  # noqa: PTH116 (every process)
        except OSError:
            continue
        if namespace not in seen:
            seen.add(namespace)
            where = f" in the mount namespace of pid {pid}"
            for mount in parse_mountinfo(read_table(proc / pid / "mountinfo")):
                yield mount, where


def read_filesystems(
    view: _View, mounts: Iterable[tuple[Mount, str]], devices: dict[str, Device]
) -> tuple[dict[str, Filesystem], list[Use]]:
    """Every mounted filesystem with its devices, and each mount as a use of them."""
    found: dict[str, Filesystem] = {}
    uses = []
    for mount, where in mounts:
        if not mount.devno:
            continue
        fs = found.get(mount.devno)
        if fs is None:
            what = f"{mount.fs_type} at {mount.mountpoint}"
            fs = Filesystem(mount.devno, _fs_devices(view, mount, devices), what)
            found[mount.devno] = fs
        for number in fs.devices or ():
            what = f"mounted at {mount.mountpoint} ({mount.fs_type}){where}"
            uses.append(Use(Span(Block(number)), fs_key(mount.devno), what))
    return found, uses


def swap_uses(view: _View) -> Iterator[tuple[Use, str]]:
    """Each swap area, a device or a file (and its name)."""
    for line in read_table(view.root / "proc/swaps").splitlines()[1:]:
        fields = line.split()
        if fields:
            path = fields[0].replace("\\040", " ").removesuffix("(deleted)")
            node, _ = view.node(path)
            if node is not None:
                yield Use(Span(node), "swap", f"swap on {path}"), path


def export_uses(view: _View) -> Iterator[tuple[Use, str]]:
    """LIO backstores and NVMe-oF namespaces, by the device or file they export (its name)."""
    core = view.root / "sys/kernel/config/target/core"
    for hba in _names(core):
        for store in _names(core / hba):
            path = (read_text(core / hba / store / "udev_path") or "").strip()
            node, _ = view.node(path) if path else (None, "")
            if node is not None:
                what = f"exported by LIO backstore {hba}/{store} ({path})"
                yield Use(Span(node), f"lio {hba}/{store}", what), path
    subsystems = view.root / "sys/kernel/config/nvmet/subsystems"
    for nqn in _names(subsystems):
        for ns in _names(subsystems / nqn / "namespaces"):
            path = (read_text(subsystems / nqn / "namespaces" / ns / "device_path") or "").strip()
            node, _ = view.node(path) if path else (None, "")
            if node is not None:
                what = f"exported by NVMe-oF subsystem {nqn} namespace {ns}"
                yield Use(Span(node), f"nvmet {nqn}/{ns}", what), path


def layout(root: Path) -> Stack:
    """The block devices and the mounted filesystems under `root` with their mounts, no other
    use: where files live (what needs a filesystem's free space, `nastui.collectors.fillroom`)."""
    root = normal_root(root)
    view = _View(root, is_real_root(root))
    devices, names = read_devices(view)
    table = read_text(root / "proc/self/mountinfo", TABLE_LIMIT) or ""
    filesystems, uses = read_filesystems(view, every_mount(view, table), devices)
    return Stack(devices, filesystems, tuple(uses), names)


@dataclass(frozen=True, slots=True)
class Seen:
    """The stack read, what could not be looked at (`denied`: processes of other users), the
    tables that could not be read (each a reason to refuse: what they would list is unknown),
    and the processes /proc would not show even to root (`unseen`: named, not refused)."""

    stack: Stack
    denied: tuple[str, ...] = ()
    unread: tuple[str, ...] = ()
    unseen: tuple[UnseenProcess, ...] = ()


def read_stack(
    root: Path, *, real: bool, own: int | None = None, target: str | None = None
) -> Seen:
    """The block stack under `root` (see the module docstring); processes only when `real`,
    leaving out `own` (default: this process) and its children. With a `target` (a device
    number), only the processes' uses that can matter to its verdict are kept
    (`nastui.core.footprint.relevant`); without, all of them."""
    view = _View(root, real)
    devices, names = read_devices(view)
    table = read_text(root / "proc/self/mountinfo", TABLE_LIMIT)
    unread: tuple[str, ...] = ()
    if table is None and real:  # read as "nothing mounted" it would let a write through
        unread = (f"{root / 'proc/self/mountinfo'} cannot be read: what is mounted is unknown",)
    filesystems, uses = read_filesystems(view, every_mount(view, table or ""), devices)
    for use, path in (*swap_uses(view), *export_uses(view)):
        uses.append(use)
        if isinstance(use.span.node, File):
            names.setdefault(use.span.node, path)
    denied: tuple[str, ...] = ()
    unseen: tuple[UnseenProcess, ...] = ()
    if real:
        wanted = everything
        if target is not None:
            wanted = relevant(Stack(devices, filesystems), target)
        procs = process_uses(root / "proc", own, wanted)
        uses += procs.uses
        names = {**procs.names, **names}
        denied, unseen = tuple(procs.denied), tuple(procs.unseen)
    return Seen(Stack(devices, filesystems, tuple(uses), names), denied, unread, unseen)


def _claimed(name: str, number: str) -> str | None:
    """Why device `number` (/dev/NAME) is claimed by someone, or None when it is free."""
    try:
        fd = os.open(f"/dev/{name}", os.O_RDONLY | os.O_EXCL | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError as exc:
        if exc.errno == errno.EBUSY:
            return "claimed exclusively (mounted, swap, or a member of md, LVM, ZFS or btrfs)"
        return f"not checked for an exclusive claim: /dev/{name}: {exc.strerror}"
    try:
        st = os.fstat(fd)
    finally:
        os.close(fd)
    if not stat.S_ISBLK(st.st_mode) or devno(st.st_rdev) != number:
        return f"not checked for an exclusive claim: /dev/{name} is not device {number}"
    return None


def claims(stack: Stack, number: str, held: frozenset[str] = frozenset()) -> Iterator[Use]:
    """Devices the target's loop devices write to raw that the kernel has claimed for
    someone: an exclusive open fails with EBUSY (let go at once when it succeeds). Those
    this process holds O_EXCL itself (`held`: a run holds them) are claimed by nobody else."""
    for lower in loop_lowers(stack, number):
        if lower in held:
            continue
        device = stack.devices.get(lower)
        why = _claimed(device.name, lower) if device else None
        if why is not None:
            yield Use(Span(Block(lower)), "claim", why)


@dataclass(frozen=True, slots=True)
class Verdict:
    """The footprint rule applied to a target: what its writes reach, who else uses it, which
    of those may be passing read-only probes (`nastui.core.footprint.Conflict`), the devices
    laid over the target's bytes, whose labels the target shows (`windows`), and the processes
    that could not be looked into (`unseen`: not a reason to refuse; the operator decides)."""

    footprint: tuple[str, ...]
    conflicts: tuple[str, ...]
    brief: frozenset[str] = frozenset()
    windows: tuple[Window, ...] = ()
    unseen: tuple[UnseenProcess, ...] = ()
    lowers: tuple[tuple[str, str], ...] = ()
    probes: tuple[Probe, ...] = ()


@dataclass(frozen=True, slots=True)
class Probe:
    """A device below the target whose contents are read as the target's are
    (`nastui.core.footprint.probed_lowers`): its kernel name, number, and how the target's
    writes reach it in words, to put before what is found."""

    name: str
    devno: str
    where: str


def lowers_of(stack: Stack, number: str) -> tuple[tuple[str, str], ...]:
    """(/dev path, device number) of each device the target's loop devices write to raw
    (`nastui.core.footprint.loop_lowers`): a run holds them O_EXCL with the target."""
    found = []
    for lower in loop_lowers(stack, number):
        device = stack.devices.get(lower)
        if device is not None:
            found.append((f"/dev/{device.name}", lower))
    return tuple(found)


def shortened(reasons: tuple[str, ...]) -> tuple[str, ...]:
    """At most `MAX_REASONS` lines, the rest counted."""
    if len(reasons) <= MAX_REASONS:
        return reasons
    return (*reasons[: MAX_REASONS - 1], f"and {len(reasons) - MAX_REASONS + 1} more uses")


def inspect(
    root: Path,
    number: str,
    *,
    real: bool,
    own: int | None = None,
    held: frozenset[str] = frozenset(),
) -> Verdict:
    """The footprint of device `number` and its conflicts, read under `root` (`held`: the
    devices below it this process holds O_EXCL, see `claims`)."""
    seen = read_stack(root, real=real, own=own, target=number)
    stack = seen.stack
    if real:
        stack = stack.with_uses(claims(stack, number, held))
    found = conflicts(stack, number)
    reasons = texts(found) + seen.unread
    if seen.denied:
        who = ", ".join(seen.denied[:3]) + (" ..." if len(seen.denied) > 3 else "")
        reasons += (
            f"the open files of {len(seen.denied)} processes cannot be read ({who}): "
            "only root sees every use",
        )
    reached = tuple(describe(stack, reach) for reach in footprint(stack, number))
    brief = frozenset(c.text for c in found if c.brief)
    return Verdict(
        reached,
        shortened(reasons),
        brief,
        windows(stack, number),
        seen.unseen,
        lowers_of(stack, number),
        tuple(
            Probe(name, r.span.node.devno, reach_words(stack, r))
            for name, r in probed_lowers(stack, number)
            if isinstance(r.span.node, Block)
        ),
    )
