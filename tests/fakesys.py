"""Build fake /sys and /dev trees shaped like real ones, for collectors that take a `root`.

Paths and link shapes follow a real Debian 12 box: /sys/block/X is a relative link into
/sys/devices, /dev/disk/by-id links are relative ("../../sda"), hwmon `device` links resolve to
the same directory as /sys/block/X/device.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

# Where each transport's disks live in /sys/devices (from real machines).
SATA_PARENT = "devices/pci0000:00/0000:00:1f.2/ata{n}/host{n}/target{n}:0:0/{n}:0:0:0"
SAS_PARENT = (
    "devices/pci0000:00/0000:00:01.0/0000:01:00.0/host{h}/port-{h}:{n}/end_device-{h}:{n}/"
    "target{h}:0:{n}/{h}:0:{n}:0"
)
NVME_PARENT = "devices/pci0000:00/0000:00:1d.0/0000:3d:00.0/nvme/nvme{n}"
USB_PARENT = "devices/pci0000:00/0000:00:14.0/usb2/2-1/2-1:1.0/host{n}/target{n}:0:0/{n}:0:0:0"
VIRTIO_PARENT = "devices/pci0000:00/0000:00:02.0/virtio{n}"


def _link(link: Path, target: Path) -> None:
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(os.path.relpath(target, link.parent))


def _write(path: Path, text: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text + "\n")


@dataclass
class FakeDisk:
    """One disk to put into the tree."""

    dev: str
    parent: str  # device directory under /sys, relative to root (see *_PARENT)
    size_sectors: int = 7_814_037_168
    rotational: bool = True
    vendor: str | None = "ATA"
    model: str | None = None
    rev: str | None = None
    serial_file: str | None = None  # /sys/block/X/device/serial (NVMe)
    vpd_serial: str | None = None  # SCSI VPD page 0x80
    wwid: str | None = None
    by_id: list[str] = field(default_factory=list)
    by_path: str | None = None
    temp_millic: int | None = None  # drivetemp or nvme hwmon reading
    partitions: int = 0
    sas_address: str | None = None  # /sys/block/X/device/sas_address (SAS HBAs)


def wd_red_disks(count: int, *, step_millic: int = 1000) -> list[FakeDisk]:
    """`count` SATA WD Reds sda, sdb, ... on ports 0, 1, ..., at 30 C plus `step_millic` each."""
    return [
        FakeDisk(
            f"sd{chr(ord('a') + i)}",
            SATA_PARENT.format(n=i),
            model="WDC WD40EFRX-68",
            by_id=[f"ata-WDC_WD40EFRX-68WT0N0_WD-WCC4E000000{i}"],
            temp_millic=30000 + step_millic * i,
        )
        for i in range(count)
    ]


def build(root: Path, disks: list[FakeDisk], *, extra_block: tuple[str, ...] = ()) -> Path:
    """Create the tree for `disks` under `root` (plus non-drive block devices like loop0)."""
    for hw, disk in enumerate(disks):
        add_disk(root, disk, hwmon_index=hw)
    for name in extra_block:
        target = root / "sys/devices/virtual/block" / name
        _write(target / "size", "0")
        _link(root / "sys/block" / name, target)
    return root


def add_disk(root: Path, disk: FakeDisk, *, hwmon_index: int) -> None:
    """Add one disk: the block directory, device attributes, /dev links and hwmon chip."""
    nvme = disk.parent.split("/")[-1].startswith("nvme")
    device_dir = root / "sys" / disk.parent
    block_dir = device_dir / "block" / disk.dev if not nvme else device_dir / disk.dev
    _write(block_dir / "size", str(disk.size_sectors))
    _write(block_dir / "queue/rotational", "1" if disk.rotational else "0")
    _link(block_dir / "device", device_dir)
    for attr, value in (
        ("vendor", disk.vendor),
        ("model", disk.model),
        ("rev", disk.rev),
        ("serial", disk.serial_file),
        ("wwid", disk.wwid),
        ("sas_address", disk.sas_address),
    ):
        if value is not None:
            _write(device_dir / attr, value)
    if disk.vpd_serial is not None:
        serial = disk.vpd_serial.encode()
        _write(device_dir / "vpd_pg80", b"\x00\x80\x00" + bytes([len(serial)]) + serial)
    for i in range(1, disk.partitions + 1):
        _write(block_dir / f"{disk.dev}{i}" / "partition", str(i))
    _link(root / "sys/block" / disk.dev, block_dir)
    dev_node = root / "dev" / disk.dev
    _write(dev_node, "")
    for name in disk.by_id:
        _link(root / "dev/disk/by-id" / name, dev_node)
        for i in range(1, disk.partitions + 1):
            _link(root / "dev/disk/by-id" / f"{name}-part{i}", root / "dev" / f"{disk.dev}{i}")
    if disk.by_path:
        _link(root / "dev/disk/by-path" / disk.by_path, dev_node)
    if disk.temp_millic is not None:
        hwmon = device_dir / "hwmon" / f"hwmon{hwmon_index}"
        _write(hwmon / "name", "nvme" if nvme else "drivetemp")
        _write(hwmon / "temp1_input", str(disk.temp_millic))
        _link(hwmon / "device", device_dir)
        _link(root / "sys/class/hwmon" / f"hwmon{hwmon_index}", hwmon)


SES_PARENT = (
    "devices/pci0000:00/0000:00:01.0/0000:01:00.0/host{h}/port-{h}:0/expander-{h}:0/"
    "port-{h}:0:24/end_device-{h}:0:24/target{h}:0:24/{h}:0:24:0"
)


def add_enclosure(
    root: Path,
    slots: dict[int, str | None],
    *,
    host: int = 1,
    ident: str = "0x500304801f3ae07f",
    sg: str = "sg24",
    lit: tuple[int, ...] = (),
) -> Path:
    """An SES enclosure as the kernel's `ses` driver shows it: /sys/class/enclosure/H:0:24:0
    with one "SlotNN" component per slot number, each `device` link pointing at the SCSI
    device of the disk named (None: an empty slot), and the enclosure's sg device."""
    ses_dev = root / "sys" / SES_PARENT.format(h=host)
    name = f"{host}:0:24:0"
    enclosure = ses_dev / "enclosure" / name
    _write(enclosure / "id", ident)
    _write(enclosure / "components", str(len(slots)))
    _link(enclosure / "device", ses_dev)
    _write(ses_dev / "type", "13")
    (ses_dev / "scsi_generic" / sg).mkdir(parents=True, exist_ok=True)
    _link(root / "sys/class/scsi_generic" / sg, ses_dev / "scsi_generic" / sg)
    _link(ses_dev / "scsi_generic" / sg / "device", ses_dev)
    for number, dev in slots.items():
        component = enclosure / f"Slot{number:02d}"
        _write(component / "slot", str(number))
        _write(component / "locate", "1" if number in lit else "0")
        _write(component / "fault", "0")
        _write(component / "status", "OK" if dev else "not installed")
        _write(component / "type", "array device")
        if dev is not None:
            _link(component / "device", (root / "sys/block" / dev / "device").resolve())
    _link(root / "sys/class/enclosure" / name, enclosure)
    return enclosure


@dataclass(frozen=True)
class FakePartition:
    """A partition as /sys/class/block shows it: name, device number, first sector, sectors."""

    name: str
    devno: str
    start: int
    sectors: int


def add_class_block(
    root: Path, disk: str, devno: str, partitions: tuple[FakePartition, ...] = ()
) -> Path:
    """/sys/class/block as the benchmark guard reads it (`nastui.collectors.blockstack`): disk
    `disk` (device number `devno`, /sys/dev/block/DEVNO linking to it) and its partitions, each
    with the `partition`, `start` and `size` attributes the kernel gives (sectors of 512 bytes).
    The disk may be a real device: the guard then reads its bytes, the tree tells the rest."""
    block = root / "sys/class/block"
    _write(block / disk / "dev", devno)
    for number, part in enumerate(partitions, 1):
        _write(block / part.name / "dev", part.devno)
        _write(block / part.name / "size", str(part.sectors))
        _write(block / disk / part.name / "partition", str(number))
        _write(block / disk / part.name / "start", str(part.start))
        _write(block / disk / part.name / "size", str(part.sectors))
    _link(root / "sys/dev/block" / devno, block / disk)
    return root
