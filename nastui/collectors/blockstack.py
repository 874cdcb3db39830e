"""What is stacked on a block device, and what uses any of it: the benchmark guard's eyes.

`stack_of` follows every way Linux builds on a block device, transitively: its partitions,
its holders (md, dm/LVM, bcache, in /sys/class/block/X/holders), and loop devices whose backing
is the device itself (at any offset) or a file on a filesystem that lives on it. Loop backing is
matched by device number and inode: the LOOP_GET_STATUS64 ioctl on the real machine (it still
answers when the backing file was deleted or its filesystem lazily unmounted), the resolved and
stat'ed sysfs `loop/backing_file` otherwise.

`uses_of` then finds what uses any layer: mounts (by device number and by source), swap (a
partition or a swap file on it), other processes with a layer or a file on it open (read-only
or not; their cwd, root and mapped files too), and exports: LIO (iSCSI, FC, vhost: `udev_path`
of every backstore in configfs) and the NVMe-oF target (`device_path`). NBD servers (nbd-server,
qemu-nbd) and tgtd hold the device open, so the open-file check names them.
Nothing here writes; reading a loop device's status opens it read-only.
"""

from __future__ import annotations

import dataclasses
import fcntl
import os
import stat
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from nastui.collectors.sysfs import parse_mountinfo, read_text

LOOP_GET_STATUS64 = 0x4C05
# struct loop_info64: lo_device, lo_inode, lo_rdevice, lo_offset, lo_sizelimit (u64), then
# lo_number, lo_encrypt_type, lo_encrypt_key_size, lo_flags (u32), names and key: 232 bytes.
_LOOP_INFO64 = struct.Struct("=5Q4I64s64s32s2Q")


@dataclass(frozen=True, slots=True)
class Layer:
    """One block device in the stack: its kernel name, device number and how it got there."""

    name: str
    devno: str
    how: str


@dataclass(frozen=True, slots=True)
class LoopBacking:
    """A configured loop device and what backs it.

    Attributes:
        name: "loop5".
        file: the backing file's path as the kernel reports it.
        rdev: the backing block device's number ("7:3"), when it is a block device.
        fs_dev: the number of the filesystem holding the backing file, when it is a file.
        offset: where in the backing it starts, bytes.
    """

    name: str
    file: str
    rdev: str | None
    fs_dev: str | None
    offset: int


def devno(raw: int) -> str:
    """A dev_t as "major:minor"."""
    return f"{os.major(raw)}:{os.minor(raw)}"


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
        return sorted(p.name for p in directory.iterdir())
    except OSError:
        return []


def _stat_numbers(path: str) -> tuple[str | None, str | None]:
    """(rdev of a block device, st_dev of anything else) of a path; (None, None) if gone."""
    try:
        st = Path(path).stat()
    except OSError:
        return None, None
    if stat.S_ISBLK(st.st_mode):
        return devno(st.st_rdev), None
    return None, devno(st.st_dev)


def _loop_ioctl(name: str, devnum: str) -> LoopBacking | None:
    """A loop device's backing from LOOP_GET_STATUS64 (real machine only)."""
    for node in (f"/dev/block/{devnum}", f"/dev/{name}"):
        try:
            fd = os.open(node, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
        except OSError:
            continue
        try:
            raw = fcntl.ioctl(fd, LOOP_GET_STATUS64, bytes(_LOOP_INFO64.size))
        except OSError:
            return None  # not bound (ENXIO) or not a loop device
        finally:
            os.close(fd)
        fields = _LOOP_INFO64.unpack(raw)
        dev, rdev, offset = fields[0], fields[2], fields[3]
        file = fields[9].split(b"\0", 1)[0].decode("utf-8", "replace")
        if rdev:
            return LoopBacking(name, file, devno(rdev), None, offset)
        return LoopBacking(name, file, None, devno(dev), offset)
    return None


def loop_backings(root: Path, *, real: bool) -> list[LoopBacking]:
    """Every configured loop device and its backing (sysfs under `root`; the ioctl when real)."""
    found = []
    for name in _names(root / "sys/block"):
        loop = root / "sys/block" / name / "loop"
        if not name.startswith("loop") or not loop.is_dir():
            continue
        file = (read_text(loop / "backing_file") or "").removesuffix(" (deleted)")
        offset = int(read_text(loop / "offset") or "0")
        if real:
            via_ioctl = _loop_ioctl(name, read_text(root / "sys/block" / name / "dev") or "")
            if via_ioctl is not None:  # the kernel's name there is cut at 63 bytes
                found.append(dataclasses.replace(via_ioctl, file=file or via_ioctl.file))
        # sysfs too: the backing path resolved (under a fake root, inside it) and stat'ed
        where = file if real else str(root / file.lstrip("/"))
        rdev, fs_dev = _stat_numbers(where) if file else (None, None)
        if rdev or fs_dev:
            found.append(LoopBacking(name, file, rdev, fs_dev, offset))
    return found


def _layer_devno(root: Path, name: str) -> str:
    return read_text(root / "sys/class/block" / name / "dev") or ""


def stack_of(root: Path, name: str, number: str, *, real: bool) -> list[Layer]:
    """`name` and everything stacked on it, transitively (see the module docstring)."""
    layers = [Layer(name, number, "the target")]
    seen = {number}
    loops = loop_backings(root, real=real)
    queue = [layers[0]]

    def add(child: str, child_devno: str, how: str) -> None:
        if child_devno and child_devno not in seen:
            seen.add(child_devno)
            layers.append(Layer(child, child_devno, how))
            queue.append(layers[-1])

    while queue:
        layer = queue.pop(0)
        block = root / "sys/class/block" / layer.name
        for child in _names(block):
            if (block / child / "partition").exists():
                add(child, _layer_devno(root, child), f"partition {child} of {layer.name}")
        for holder in _names(block / "holders"):
            add(holder, _layer_devno(root, holder), f"{layer.name} held by {holder}")
        for loop in loops:
            at = f" at offset {loop.offset}" if loop.offset else ""
            if loop.rdev == layer.devno:
                add(loop.name, _layer_devno(root, loop.name), f"{loop.name} on {layer.name}{at}")
            elif loop.fs_dev == layer.devno:
                how = f"{loop.name} backed by {loop.file}, a file on {layer.name}"
                add(loop.name, _layer_devno(root, loop.name), how)
    return layers


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _on(layers: dict[str, Layer], path: str) -> Layer | None:
    """The layer `path` is (a device node) or lives on (a file), if any."""
    rdev, fs_dev = _stat_numbers(path)
    return layers.get(rdev or fs_dev or "")


def _mounts(root: Path, layers: dict[str, Layer]) -> Iterator[str]:
    for mount in parse_mountinfo(_read(root / "proc/self/mountinfo")):
        layer = layers.get(mount.devno)
        if layer is None and mount.source.startswith("/"):
            rdev, _ = _stat_numbers(mount.source)
            layer = layers.get(rdev or "")
        if layer is not None:
            yield f"{layer.name} mounted at {mount.mountpoint} ({mount.fs_type})"


def _swaps(root: Path, layers: dict[str, Layer]) -> Iterator[str]:
    for line in _read(root / "proc/swaps").splitlines()[1:]:
        fields = line.split()
        if not fields:
            continue
        path = fields[0].replace("\\040", " ")
        layer = _on(layers, path)
        if layer is not None:
            yield f"swap on {path} ({layer.name})"


def parse_maps_devices(text: str) -> set[str]:
    """Device numbers ("253:0") of the files a process maps, from /proc/PID/maps.

    # Sample: 7f2c1a000000-7f2c1a021000 r--p 00000000 fd:00 1311   /usr/lib/libc.so.6
    """
    found = set()
    for line in text.splitlines():
        fields = line.split(maxsplit=5)
        if len(fields) >= 5 and fields[4] != "0" and ":" in fields[3]:
            major, minor = fields[3].split(":", 1)
            try:
                found.add(f"{int(major, 16)}:{int(minor, 16)}")
            except ValueError:
                continue
    return found


def _held_by(base: Path, layers: dict[str, Layer]) -> str | None:
    """What of the stack process `base` (/proc/PID) holds: an open device or file, its cwd or
    root, a mapped file; None when nothing."""
    entries = [base / "cwd", base / "root"] + [base / "fd" / fd for fd in _names(base / "fd")]
    for entry in entries:
        try:
            st = entry.stat()
        except OSError:
            continue
        block = stat.S_ISBLK(st.st_mode)
        layer = layers.get(devno(st.st_rdev) if block else devno(st.st_dev))
        if layer is not None:
            return f"{layer.name} {'open' if block else 'using a file on it'}"
    for number in parse_maps_devices(_read(base / "maps")):
        if number in layers:
            return f"{layers[number].name} with a file on it mapped"
    return None


def _openers(root: Path, layers: dict[str, Layer], skip: int) -> Iterator[str]:
    """Processes with a layer, or a file on one, open (any mode), mapped, or as cwd/root."""
    for pid in _names(root / "proc"):
        if not pid.isdigit() or int(pid) == skip:
            continue
        base = root / "proc" / pid
        held = _held_by(base, layers)
        if held is not None:
            yield f"{held} by pid {pid} ({_read(base / 'comm').strip() or '?'})"


def _exports(root: Path, layers: dict[str, Layer]) -> Iterator[str]:
    """LIO backstores and NVMe-oF namespaces whose device or file is on a layer."""
    core = root / "sys/kernel/config/target/core"
    for hba in _names(core):
        for store in _names(core / hba):
            path = (read_text(core / hba / store / "udev_path") or "").strip()
            layer = _on(layers, path) if path else None
            if layer is not None:
                yield f"{layer.name} exported by LIO backstore {hba}/{store} ({path})"
    subsystems = root / "sys/kernel/config/nvmet/subsystems"
    for nqn in _names(subsystems):
        for ns in _names(subsystems / nqn / "namespaces"):
            path = (read_text(subsystems / nqn / "namespaces" / ns / "device_path") or "").strip()
            layer = _on(layers, path) if path else None
            if layer is not None:
                yield f"{layer.name} exported by NVMe-oF subsystem {nqn} namespace {ns}"


def uses_of(root: Path, layers: list[Layer], *, real: bool) -> list[str]:
    """Everything that says the stack is in use: layers above the target, then their users."""
    by_devno = {layer.devno: layer for layer in layers}
    uses = [layer.how for layer in layers[1:]]
    uses += list(_mounts(root, by_devno))
    uses += list(_swaps(root, by_devno))
    uses += list(_exports(root, by_devno))
    if real:
        uses += list(_openers(root, by_devno, skip=os.getpid()))
    return uses
