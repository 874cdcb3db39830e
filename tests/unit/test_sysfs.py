"""Drive discovery and hwmon temperatures from fake /sys and /dev trees."""

from __future__ import annotations

from pathlib import Path

import pytest

from nastui.collectors.hwmon import drive_temperatures
from nastui.collectors.sysfs import discover, drive_names, links_by_target, transport_of
from nastui.model import TempSource, Transport
from tests.fakesys import (
    NVME_PARENT,
    SAS_PARENT,
    SATA_PARENT,
    USB_PARENT,
    VIRTIO_PARENT,
    FakeDisk,
    build,
)

HGST = FakeDisk(
    "sda",
    SATA_PARENT.format(n=0),
    model="HGST HUS724040AL",  # SCSI INQUIRY truncates the ATA model to 16 characters
    rev="A5E0",
    wwid="naa.5000cca22bc1a6e3",
    by_id=["ata-HGST_HUS724040ALA640_PN2334PBG6P4SK", "wwn-0x5000cca22bc1a6e3"],
    by_path="pci-0000:00:1f.2-ata-1",
    temp_millic=36000,
    partitions=2,
)
SAS = FakeDisk(
    "sdb",
    SAS_PARENT.format(h=1, n=3),
    vendor="SEAGATE",
    model="ST4000NM0023",
    rev="0004",
    vpd_serial="Z1Z3ABCD0000C4123ABC",
    wwid="naa.5000c50057abcdef",
    by_id=["scsi-35000c50057abcdef"],
    by_path="pci-0000:01:00.0-sas-phy3-lun-0",
)
NVME = FakeDisk(
    "nvme0n1",
    NVME_PARENT.format(n=0),
    size_sectors=488_397_168,
    rotational=False,
    vendor=None,
    model="Samsung SSD 970 EVO Plus 250GB",
    serial_file="S4EUNX0N123456A",
    wwid="eui.0025385b71b12345",
    by_id=["nvme-Samsung_SSD_970_EVO_Plus_250GB_S4EUNX0N123456A"],
    temp_millic=41850,
)
USB = FakeDisk("sdc", USB_PARENT.format(n=6), vendor="WD", model="Elements 25A2", rev="1021")
VIRTIO = FakeDisk("vda", VIRTIO_PARENT.format(n=1), vendor=None, size_sectors=536_870_912)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return build(
        tmp_path, [HGST, SAS, NVME, USB, VIRTIO], extra_block=("loop0", "zram0", "md0", "dm-0")
    )


def test_only_drives_are_listed(root: Path) -> None:
    assert drive_names(root) == ["nvme0n1", "sda", "sdb", "sdc", "vda"]


def test_sata_identity_prefers_the_full_by_id_model(root: Path) -> None:
    sda = next(d for d in discover(root) if d.dev == "sda")
    ident = sda.identity
    assert ident.model == "HGST HUS724040ALA640"
    assert ident.serial == "PN2334PBG6P4SK"
    assert ident.wwn == "0x5000cca22bc1a6e3"
    assert ident.firmware == "A5E0"
    assert ident.capacity_bytes == 7_814_037_168 * 512
    assert ident.transport is Transport.SATA
    assert ident.rotational is True
    assert ident.vendor is None  # "ATA" is the SAT layer, not a vendor
    assert sda.by_id == ("ata-HGST_HUS724040ALA640_PN2334PBG6P4SK", "wwn-0x5000cca22bc1a6e3")
    assert sda.by_path == "pci-0000:00:1f.2-ata-1"


def test_sas_identity_from_vpd_page(root: Path) -> None:
    sdb = next(d for d in discover(root) if d.dev == "sdb")
    assert sdb.identity.transport is Transport.SAS
    assert sdb.identity.serial == "Z1Z3ABCD0000C4123ABC"
    assert sdb.identity.vendor == "SEAGATE"
    assert sdb.identity.model == "ST4000NM0023"


def test_nvme_usb_and_virtual(root: Path) -> None:
    found = {d.dev: d.identity for d in discover(root)}
    assert found["nvme0n1"].transport is Transport.NVME
    assert found["nvme0n1"].serial == "S4EUNX0N123456A"
    assert found["nvme0n1"].rotational is False
    assert found["nvme0n1"].wwn == "0x0025385b71b12345"
    assert found["sdc"].transport is Transport.USB
    assert found["vda"].transport is Transport.VIRTUAL
    assert found["vda"].serial is None  # unknown is None, never ""


def test_partition_links_are_not_drives(root: Path) -> None:
    links = links_by_target(root / "dev/disk/by-id")
    assert all(
        not name.endswith(("-part1", "-part2")) for names in links.values() for name in names
    )


def test_hwmon_temperatures_match_by_device_not_index(root: Path) -> None:
    temps = drive_temperatures(root, ["sda", "sdb", "nvme0n1"], now=100.0)
    assert set(temps) == {"sda", "nvme0n1"}
    assert temps["sda"].celsius == 36.0
    assert temps["sda"].source is TempSource.DRIVETEMP
    assert temps["nvme0n1"].celsius == 41.9
    assert temps["nvme0n1"].source is TempSource.NVME_HWMON
    assert temps["sda"].measured_at == 100.0


def test_unreadable_hwmon_is_no_reading(root: Path) -> None:
    # drivetemp returns an error for a drive in standby; a missing file behaves the same.
    for chip in (root / "sys/class/hwmon").iterdir():
        (chip / "temp1_input").unlink()
    assert drive_temperatures(root, ["sda", "nvme0n1"], now=1.0) == {}


def test_empty_root_finds_nothing(tmp_path: Path) -> None:
    assert list(discover(tmp_path)) == []
    assert drive_temperatures(tmp_path, ["sda"], now=1.0) == {}


@pytest.mark.parametrize(
    ("path", "transport"),
    [
        (
            "/sys/devices/pci0000:00/0000:00:17.0/ata3/host2/target2:0:0/2:0:0:0/block/sdc",
            Transport.SATA,
        ),
        (
            "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/host0/port-0:0/end_device-0:0/target0:0:0/0:0:0:0/block/sda",
            Transport.SAS,
        ),
        (
            "/sys/devices/pci0000:00/0000:00:01.0/0000:02:00.0/host0/port-0:0/expander-0:0/port-0:0:4/end_device-0:0:4/target0:0:4/0:0:4:0/block/sde",
            Transport.SAS,
        ),
        ("/sys/devices/pci0000:00/0000:00:1d.0/0000:3d:00.0/nvme/nvme0/nvme0n1", Transport.NVME),
        ("/sys/devices/virtual/nvme-subsystem/nvme-subsys0/nvme0n1", Transport.NVME),
        (
            "/sys/devices/pci0000:00/0000:00:14.0/usb2/2-1/2-1:1.0/host6/target6:0:0/6:0:0:0/block/sdf",
            Transport.USB,
        ),
        ("/sys/devices/pci0000:00/0000:00:02.0/virtio1/block/vda", Transport.VIRTUAL),
        ("/sys/devices/platform/something/block/xyz", Transport.UNKNOWN),
    ],
)
def test_transport_from_sysfs_path(path: str, transport: Transport) -> None:
    assert transport_of(Path(path)) is transport


def test_this_machine_does_not_crash() -> None:
    # The real /sys of whatever runs the tests: whatever is found must be well-formed.
    for disk in discover(Path("/")):
        assert disk.dev
        assert disk.identity.capacity_bytes is None or disk.identity.capacity_bytes >= 0


def test_mountinfo_keeps_utf8_paths_and_decodes_octal_escapes() -> None:
    from nastui.collectors.sysfs import parse_mountinfo

    line = "40 31 0:38 /@home /srv/Médias\\040et\\011co rw - btrfs /dev/sdb1 rw,degraded\n"
    (mount,) = parse_mountinfo(line)
    assert mount.mountpoint == "/srv/Médias et\tco"
    assert (mount.root, mount.fs_type, mount.devno, mount.options) == (
        "/@home",
        "btrfs",
        "0:38",
        "rw,degraded",
    )
