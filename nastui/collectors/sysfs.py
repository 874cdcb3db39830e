"""Drive discovery from /sys/block and /dev/disk: identity without touching the disk.

Everything here reads files under `root` (default "/"), so tests and `--root` point it at a
captured or fake tree. Nothing here sends a command to a drive: reading sysfs never wakes a
sleeping disk. Every read goes through `nastui.safeio`: regular files only, opened without
blocking, at most `ATTR_LIMIT` bytes (an attribute) or `TABLE_LIMIT` (a /proc table, an /etc
file), links resolved with loops caught, directories listed up to a bound; a FIFO, `/dev/zero`,
a sparse file, a loop or a directory where a value belongs reads as a missing value.

Sample of what is read, for a SATA disk behind an HBA (and /dev/disk/by-vdev, partitions and
their holders, where present):
    /sys/block/sda -> ../devices/pci0000:00/0000:01:00.0/host0/port-0:0/end_device-0:0/
                      target0:0:0/0:0:0:0/block/sda
    /sys/block/sda/size                     7814037168        (512-byte sectors)
    /sys/block/sda/queue/rotational         1
    /sys/block/sda/device/{vendor,model,rev}  ATA / HGST HUS724040AL / A5E0
    /sys/block/sda/device/wwid              naa.5000cca22bc1a6e3
    /dev/disk/by-id/ata-HGST_HUS724040ALA640_PN2334PBG6P4SK -> ../../sda
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from nastui import safeio
from nastui.model import DriveIdentity, Transport

ATTR_LIMIT = safeio.ATTR_LIMIT
TABLE_LIMIT = safeio.TABLE_LIMIT

# Block devices that are not drives: loop, RAM and compressed-RAM disks, device-mapper, md
# arrays, optical and floppy drives, network block devices, MTD, ZFS volumes.
_NOT_A_DRIVE = re.compile(r"^(loop|ram|zram|dm-|md|sr|fd|nbd|mtdblock|zd|rbd|drbd)")
# Sample: ata-HGST_HUS724040ALA640_PN2334PBG6P4SK   (model with spaces as _, then serial)
_ATA_BY_ID = re.compile(r"^ata-(?P<model>.+)_(?P<serial>[^_]+)$")
# Sample: nvme-Samsung_SSD_970_EVO_Plus_250GB_S4EUNX0N123456A
_NVME_BY_ID = re.compile(r"^nvme-(?P<model>.+)_(?P<serial>[^_]+)$")
# Sample: naa.5000cca22bc1a6e3    eui.0025385b71b12345    t10.ATA  HGST...
# Sample: 36 35 98:0 /mnt1 /mnt/parent rw,noatime master:1 - ext3 /dev/root rw,errors=continue
_MOUNTINFO = re.compile(
    r"^\d+ \d+ (?P<devno>\S+) (?P<root>\S+) (?P<mnt>\S+) \S+(?: \S+)* - (?P<fstype>\S+) "
    r"(?P<source>\S+) (?P<options>\S+)$"
)
# Sample: /srv/my\040data (mountinfo escapes space, tab, newline and backslash in octal)
_OCTAL = re.compile(r"\\([0-7]{3})")
_WWID = re.compile(r"^(?:naa|eui)\.(?P<hex>[0-9a-fA-F]+)$")


@dataclass(frozen=True, slots=True)
class BlockDevice:
    """A whole-disk block device as sysfs describes it.

    Attributes:
        dev: kernel name.
        identity: what sysfs and the by-id names reveal.
        by_id: /dev/disk/by-id names pointing at it.
        by_path: its /dev/disk/by-path name (the controller port), if any.
        by_vdev: its /dev/disk/by-vdev name (ZFS vdev_id.conf), if any.
        partitions: its partitions' kernel names ("sda1", "sda2").
        holders: what is built on it or its partitions (md arrays, device-mapper devices).
    """

    dev: str
    identity: DriveIdentity
    by_id: tuple[str, ...]
    by_path: str | None
    by_vdev: str | None = None
    partitions: tuple[str, ...] = ()
    holders: tuple[str, ...] = ()


def read_text(path: Path, limit: int = ATTR_LIMIT) -> str | None:
    """A sysfs attribute's value (or a /proc table's, with `limit=TABLE_LIMIT`), stripped; None
    when missing, unreadable, not a regular file or longer than `limit` bytes."""
    try:
        return safeio.read_text_bounded(path, limit).strip()
    except OSError:
        return None


def read_int(path: Path) -> int | None:
    """A sysfs attribute as an integer; None when missing or not a number."""
    text = read_text(path)
    if text is None:
        return None
    try:
        return int(text)
    except ValueError:
        return None


def resolved(path: Path) -> Path | None:
    """Where a sysfs link leads, fully resolved; None when it or its target is missing."""
    try:
        return safeio.resolve(path)
    except OSError:
        return None


def file_stamp(path: Path) -> tuple[int, int, int] | None:
    """What tells a small state file's versions apart (inode, modification time, size), for
    reading it again only when it changed; None when it is missing or unreadable."""
    try:
        info = path.stat()
    except OSError:
        return None
    return (info.st_ino, info.st_mtime_ns, info.st_size)


def drive_names(root: Path) -> list[str]:
    """Names under /sys/block that are drives (not loop, RAM, md, dm... devices), sorted."""
    return [n for n in list_names(root / "sys/block") if not _NOT_A_DRIVE.match(n)]


def links_by_target(directory: Path) -> dict[str, list[str]]:
    """Map device name -> link names for a /dev/disk/by-* directory (partitions excluded)."""
    result: dict[str, list[str]] = {}
    for name in list_names(directory):
        link = directory / name
        if not link.is_symlink() or re.search(r"-part\d+$", name):
            continue
        try:
            target = Path(link.readlink()).name
        except OSError:
            continue
        result.setdefault(target, []).append(name)
    return result


def transport_of(sys_path: Path) -> Transport:
    """The transport, from the device's position in the sysfs device tree."""
    parts = sys_path.parts
    text = str(sys_path)
    if "nvme" in parts or "/nvme-subsystem/" in text or any(p.startswith("nvme") for p in parts):
        return Transport.NVME
    if any(p.startswith("usb") for p in parts):
        return Transport.USB
    if any(re.match(r"^(end_device-|port-\d+:\d+$|expander-)", p) for p in parts):
        return Transport.SAS
    if any(re.match(r"^ata\d+$", p) for p in parts):
        return Transport.SATA
    if any(p.startswith("virtio") for p in parts) or "/xen/" in text:
        return Transport.VIRTUAL
    return Transport.UNKNOWN


def _wwn(raw: str | None) -> str | None:
    if not raw:
        return None
    match = _WWID.match(raw.strip())
    return f"0x{match['hex'].lower()}" if match else None


def _identity_from_links(links: list[str]) -> tuple[str | None, str | None]:
    for link in links:
        for pattern in (_ATA_BY_ID, _NVME_BY_ID):
            match = pattern.match(link)
            if match:
                return match["model"].replace("_", " "), match["serial"]
    return None, None


def _serial(device: Path, links: list[str]) -> str | None:
    serial = read_text(device / "serial")  # NVMe, some USB and SAS
    if serial:
        return serial
    pg80 = device / "vpd_pg80"  # SCSI unit serial number page: 4-byte header, then ASCII
    try:
        raw = safeio.read_bounded(pg80, ATTR_LIMIT)
    except OSError:
        raw = b""
    if len(raw) > 4:
        return raw[4:].decode("ascii", "replace").strip("\x00 ") or None
    return _identity_from_links(links)[1]


def identity_of(root: Path, dev: str, links: list[str]) -> DriveIdentity:
    """Identity of /sys/block/`dev`."""
    block = root / "sys/block" / dev
    sys_path = resolved(block) or block
    device = block / "device"
    link_model, _ = _identity_from_links(links)
    vendor = read_text(device / "vendor")
    model = link_model or read_text(device / "model")
    transport = transport_of(sys_path)
    sectors = read_int(block / "size")
    rotational = read_int(block / "queue/rotational")
    wwid = read_text(device / "wwid") or read_text(block / "wwid")
    identity = DriveIdentity(
        model=model,
        serial=_serial(device, links),
        wwn=_wwn(wwid),
        firmware=read_text(device / "rev") or read_text(device / "firmware_rev"),
        capacity_bytes=sectors * 512 if sectors is not None else None,
        transport=transport,
        rotational=None if rotational is None else rotational == 1,
        vendor=vendor if vendor and vendor != "ATA" else None,
    )
    return identity


def list_names(directory: Path) -> list[str]:
    """The names in a directory, sorted; none when it is not one or holds too many."""
    try:
        return safeio.names(directory)
    except OSError:
        return []


def partitions_and_holders(root: Path, dev: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A disk's partitions, and the devices held on it or on them (md, dm), by kernel name.

    Sample: /sys/block/sda/sda1/partition (1); /sys/block/sda/sda1/holders/md0 -> ...
    """
    block = root / "sys/block" / dev
    parts = [n for n in list_names(block) if (block / n / "partition").exists()]
    holders = set(list_names(block / "holders"))
    for part in parts:
        holders.update(list_names(block / part / "holders"))
    return tuple(parts), tuple(sorted(holders))


def discover(root: Path = Path("/")) -> Iterator[BlockDevice]:
    """Every drive under `root`, with what sysfs and /dev/disk say about it."""
    by_id = links_by_target(root / "dev/disk/by-id")
    by_path = links_by_target(root / "dev/disk/by-path")
    by_vdev = links_by_target(root / "dev/disk/by-vdev")
    for dev in drive_names(root):
        ids = by_id.get(dev, [])
        identity = identity_of(root, dev, ids)
        paths = by_path.get(dev, [])
        vdevs = by_vdev.get(dev, [])
        parts, holders = partitions_and_holders(root, dev)
        yield BlockDevice(
            dev,
            identity,
            tuple(ids),
            paths[0] if paths else None,
            by_vdev=vdevs[0] if vdevs else None,
            partitions=parts,
            holders=holders,
        )


@dataclass(frozen=True, slots=True)
class Mount:
    """One line of /proc/self/mountinfo.

    Attributes:
        source: what is mounted ("/dev/loop0").
        mountpoint: where.
        root: the subvolume or directory of the filesystem that is mounted ("/" for its top).
        options: the superblock options ("rw,degraded,space_cache=v2").
        fs_type: "btrfs", "ext4", ...
        devno: the st_dev of files on it ("8:1").
    """

    source: str
    mountpoint: str
    root: str
    options: str
    fs_type: str = ""
    devno: str = ""


def _unescape(text: str) -> str:
    return _OCTAL.sub(lambda m: chr(int(m[1], 8)), text)


def read_table(path: Path) -> str:
    """A /proc table (mountinfo, swaps, meminfo): its text, empty when it cannot be read."""
    return read_text(path, TABLE_LIMIT) or ""


def read_mounts(root: Path) -> list[Mount]:
    """Every mount of `root`'s /proc/self/mountinfo (none when it cannot be read)."""
    return parse_mountinfo(read_table(root / "proc/self/mountinfo"))


def mount_under(mounts: Iterable[Mount], path: str) -> Mount | None:
    """The mount a path (absolute, links resolved) is under: the longest mount point that is
    the path or a directory above it (the last mounted there, when several are)."""
    under = [
        m for m in mounts if path == m.mountpoint or path.startswith(m.mountpoint.rstrip("/") + "/")
    ]
    return max(reversed(under), key=lambda m: len(m.mountpoint), default=None)


def parse_mountinfo(text: str) -> list[Mount]:
    """Every mount of a /proc/self/mountinfo, paths unescaped; lines that are not one skipped."""
    mounts = []
    for line in text.splitlines():
        match = _MOUNTINFO.match(line.strip())
        if match is not None:
            mounts.append(
                Mount(
                    _unescape(match["source"]),
                    _unescape(match["mnt"]),
                    _unescape(match["root"]),
                    match["options"],
                    match["fstype"],
                    match["devno"],
                )
            )
    return mounts
