"""Who else needs a filesystem's free space: what fails its writes when a benchmark takes it
(read-only; the guard's look at a directory target whose run may fill it).

A file write lands in the filesystem's free space, not on anyone's bytes, so a directory
target has no footprint to overlap; but a run that takes (nearly) all the free space (the
fill profile, a custom job of unknown size) takes it from these too:

- a writable loop device over a file on the filesystem (or on one sharing its devices: another
  subvolume of the same btrfs, mounted or not: a file's st_dev no mount shows is placed by the
  mount its name is under): a sparse image, or any file on a copy-on-write filesystem,
  gets new blocks for the loop's writes; with none left the kernel fails them ("critical
  space allocation error") and whatever lives on the loop device loses data, silently to a
  writer that never fsyncs (seen here: ext4 on the loop, "potential data loss");
- the filesystem itself living on a loop device over a sparse file whose own filesystem has
  less free space than the holes a fill could fill: the fill fills that one too (and then
  fails its own writes).

A device target can do the same (`filled_by_device`): a loop device over a sparse file with
more holes than its filesystem has room fills that filesystem as it is written, starving
every other loop device whose file lives there.

Each is one line naming the loop device, its file and what is mounted on it, and the fix.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from nastui.collectors.blockstack import layout
from nastui.collectors.sysfs import Mount, mount_under, read_mounts, read_text
from nastui.core.footprint import Block, File, Stack, filesystem_of, footprint, loop_key

ROOM_MARGIN = 64 << 20  # what a run is taken to leave free (the fill profile's margin)


def devices_of(stack: Stack, devs: Iterable[str]) -> frozenset[str]:
    """The devices holding the filesystem(s) whose files have one of the st_dev `devs`."""
    found: set[str] = set()
    for dev in devs:
        fs = filesystem_of(stack, dev)
        found |= set(fs.devices or ()) if fs is not None else set()
    return frozenset(found)


def file_space(stack: Stack, mounts: list[Mount], node: File, name: str) -> tuple[str, ...]:
    """The st_dev of a file, and that of the mount its name is under: a btrfs subvolume that
    is not mounted on its own has a st_dev no mount shows, and the space of the mount."""
    real = os.path.realpath(name) if name.startswith("/") else ""
    mount = mount_under(mounts, real) if real else None
    return (node.dev, *([mount.devno] if mount is not None else []))


def same_space(stack: Stack, ones: tuple[str, ...], others: tuple[str, ...]) -> bool:
    """Whether files of the st_devs `ones` and `others` take their blocks from the same free
    space: one filesystem, or two sharing a device (subvolumes of one btrfs)."""
    if set(ones) & set(others):
        return True
    return bool(devices_of(stack, ones) & devices_of(stack, others))


def _mounted(stack: Stack, devno: str) -> str:
    """What is mounted on a device, after its name: " (mounted at /srv/vm (ext4))"."""
    whats = list(dict.fromkeys(u.what for u in stack.uses if u.span.node == Block(devno)))
    return f" ({', '.join(whats[:3])})" if whats else ""


def loops_living_on(
    stack: Stack, root: Path, devs: tuple[str, ...], chain: frozenset[str] = frozenset()
) -> list[str]:
    """Each writable loop device whose backing file lives in the free space of the
    filesystem whose files have one of the st_dev `devs`, in words; those whose link is in
    `chain` (the target's own) left out."""
    mounts = read_mounts(root)
    found = []
    for device in stack.devices.values():
        if read_text(root / "sys/block" / device.name / "ro") == "1":
            continue
        for link in device.links:
            node = link.lower.node
            if not link.key.startswith(loop_key("")) or not isinstance(node, File):
                continue
            if link.key in chain:
                continue
            name = stack.names.get(node) or f"file {node.ino}"
            if same_space(stack, file_space(stack, mounts, node, name), devs):
                found.append(
                    f"{device.name}{_mounted(stack, device.devno)} writes into {name}, on "
                    "that filesystem: with its free space taken the kernel fails those writes "
                    f"(data lost on {device.name}); detach it or make it read-only "
                    "(losetup -r), or write a set --size"
                )
    return found


def _holes(name: str, node: File) -> tuple[int, int] | None:
    """(bytes of holes, free bytes of its filesystem) of the file `name`, when it is `node`."""
    try:
        st = Path(name).stat()
        room = os.statvfs(name)
    except OSError:
        return None
    if st.st_ino != node.ino:
        return None
    return max(0, st.st_size - st.st_blocks * 512), room.f_bavail * room.f_frsize


def sparse_files_below(stack: Stack, devs: tuple[str, ...], free: int | None) -> list[str]:
    """Each sparse file below the filesystem with one of the st_dev `devs` (it lives on a
    loop device over that file) whose filesystem has less room than a fill of `free` bytes
    could take from its holes, in words."""
    found = []
    for device in sorted(devices_of(stack, devs)):
        for reach in footprint(stack, device):
            node = reach.span.node
            name = stack.names.get(node) if isinstance(node, File) else None
            measured = _holes(name, node) if name and isinstance(node, File) else None
            if measured is None:
                continue
            holes, room = measured
            need = holes if free is None else min(holes, free)
            if need > room:
                found.append(
                    f"this filesystem lives on {name}, a sparse file: a fill could take up to "
                    f"{need} more bytes of the filesystem holding it, which has {room} free "
                    "(it would fill that one and fail this one's writes); write a set --size "
                    "with another profile"
                )
    return list(dict.fromkeys(found))


def filled_by_device(root: Path, number: str) -> tuple[str, ...]:
    """What fails its writes when writing device `number` fills the holes of a sparse file
    its writes land in (a loop device over it) and that file's filesystem has no room for
    them: each other writable loop device over a file in that free space, in words."""
    stack = layout(root)
    mounts = read_mounts(root)
    found = []
    for reach in footprint(stack, number):
        node = reach.span.node
        name = stack.names.get(node) if isinstance(node, File) else None
        measured = _holes(name, node) if name and isinstance(node, File) else None
        if name is None or not isinstance(node, File) or measured is None:
            continue
        holes, room = measured
        if holes == 0 or holes < room - ROOM_MARGIN:
            continue
        where = f"{name} (the target's writes fill {holes} bytes of holes in it, {room} free)"
        space = file_space(stack, mounts, node, name)
        found += [f"{where}: {line}" for line in loops_living_on(stack, root, space, reach.chain)]
    return tuple(dict.fromkeys(found))


def directory_devs(root: Path, path: str, dev: str | None) -> tuple[str, ...]:
    """The st_dev of a directory's files (`dev`) and that of the mount `path` is under (a
    btrfs subvolume not mounted on its own has a st_dev of its own that no mount shows)."""
    mount = mount_under(read_mounts(root), os.path.realpath(path))
    return (*([dev] if dev else []), *([mount.devno] if mount is not None else []))


def space_needs(root: Path, devs: tuple[str, ...], free: int | None) -> tuple[str, ...]:
    """Why taking the free space of a directory's filesystem (`free` bytes of it) would make
    something else fail its writes (see the module docstring); `devs`: the st_dev of the
    directory's files and that of the mount it is under (see `file_space`)."""
    stack = layout(root)
    return (*loops_living_on(stack, root, devs), *sparse_files_below(stack, devs, free))
