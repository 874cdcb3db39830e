"""Scenario 6: the benchmark's device-in-use guard on every real stack the host kernel lacks.

Each stack is built on its own bay and left mounted or in use: a GPT partition with a mounted
ext4, LVM (a mounted logical volume), LUKS (an open mapping, mounted), an md raid1 member, a
ZFS vdev, a zvol with a mounted ext4, and dm-linear over part of a disk (mounted). Each target
is given to `nastui bench run randrw TARGET --confirm ...` exactly as a user would (the CLI,
whatever the guard looks like inside): refused, exit 77, the user named, and the sha256 of
every disk image the same afterwards (read on the host, all filesystems mounted read-only).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.lab.guest import Guest

pytestmark = [pytest.mark.integration, pytest.mark.full, pytest.mark.timeout(3600)]
EXIT_REFUSED = 77
SETUP = r"""
set -e
lab_reset
mkdir -p /mnt/part /mnt/lvm /mnt/luks /mnt/zvol /mnt/lin
d1=$(bay_dev 1); d2=$(bay_dev 2); d3=$(bay_dev 3); d4=$(bay_dev 4); d5=$(bay_dev 5)
d6=$(bay_dev 6); d7=$(bay_dev 7)
printf 'label: gpt\n,300M\n' | sfdisk -q $d1 && udevadm settle
mkfs.ext4 -q ${d1}1 && mount -o ro ${d1}1 /mnt/part
pvcreate -q $d2 && vgcreate -q labvg $d2 && lvcreate -q -y -L 100M -n lv labvg
mkfs.ext4 -q /dev/labvg/lv && mount -o ro /dev/labvg/lv /mnt/lvm
printf lab-secret >/run/lab.key
cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 --pbkdf-force-iterations 1000 \
    --key-file /run/lab.key $d3
cryptsetup open --key-file /run/lab.key $d3 labcrypt
mkfs.ext4 -q /dev/mapper/labcrypt && mount -o ro /dev/mapper/labcrypt /mnt/luks
mdadm --create /dev/md20 --run --quiet --assume-clean -l1 -n2 --bitmap=none $d4 $d5
zpool create -f -o cachefile=none labz $d6
zfs create -V 64M labz/vol && udevadm settle && sleep 1
mkfs.ext4 -q /dev/zvol/labz/vol && mount -o ro /dev/zvol/labz/vol /mnt/zvol
dmsetup create lablin --table "0 204800 linear $d7 2048" && udevadm settle
mkfs.ext4 -q /dev/mapper/lablin && mount -o ro /dev/mapper/lablin /mnt/lin
sync; echo 3 >/proc/sys/vm/drop_caches
for bay in 1 2 3 4 5 6 7; do echo "bay $bay $(bay_dev $bay)"; done
echo "zvol $(readlink -f /dev/zvol/labz/vol)"
"""


@dataclass(frozen=True)
class Case:
    """One stack: the target handed to `bench run`, what confirms it, who must be named."""

    what: str
    bay: int | None  # the disk under it (None: the zvol)
    names: tuple[str, ...]  # any of these in the refusal names the user


CASES = (
    Case("partition, mounted", 1, ("/mnt/part",)),
    Case("LVM, mounted", 2, ("labvg", "/mnt/lvm")),
    Case("LUKS, open and mounted", 3, ("labcrypt", "/mnt/luks")),
    Case("md raid1 member", 4, ("md20",)),
    Case("ZFS vdev", 6, ("ZFS pool labz",)),  # whole-disk: the labels are on its partition 1
    Case("zvol, mounted", None, ("/mnt/zvol",)),
    Case("dm-linear, mounted", 7, ("lablin", "/mnt/lin")),
)


@dataclass(frozen=True)
class Stacks:
    """The built stacks: kernel names and the disk images' checksums before any run."""

    devs: dict[int, str]
    zvol: str
    images: list[Path]
    digests: dict[Path, str]


def _digests(images: list[Path]) -> dict[Path, str]:
    found = {}
    for image in images:
        digest = hashlib.sha256()
        with image.open("rb") as handle:
            while chunk := handle.read(1 << 22):
                digest.update(chunk)
        found[image] = digest.hexdigest()
    return found


@pytest.fixture(scope="module")
def stacks(lab: Guest) -> Stacks:
    lab.refill()
    built = lab.sh(SETUP, timeout=900)
    devs = {int(b): d for b, d in re.findall(r"^bay (\d+) (\S+)$", built.out, re.M)}
    zvol = re.search(r"^zvol (\S+)$", built.out, re.M)
    assert zvol, built
    images = [lab.slots[bay].image for bay in range(1, 8)]
    return Stacks(devs, zvol[1], images, _digests(images))


@pytest.mark.parametrize("case", CASES, ids=[c.what for c in CASES])
def test_bench_refused(lab: Guest, stacks: Stacks, case: Case) -> None:
    target = stacks.zvol if case.bay is None else stacks.devs[case.bay]
    confirm = target if case.bay is None else lab.slots[case.bay].serial
    result = lab.sh(
        f"nastui bench run randrw {target} --confirm {confirm} --runtime 2 --size 16M "
        "--quiet --no-save",
        check=False,
    )
    assert result.rc == EXIT_REFUSED, result
    assert "refused" in result.out + result.err, result
    assert any(n in result.out + result.err for n in case.names), (case.names, result)


def test_no_image_changed(lab: Guest, stacks: Stacks) -> None:
    """After every refused run: the disk images as they were (read on the host)."""
    lab.sh("sync")
    assert _digests(stacks.images) == stacks.digests, "a disk image changed under a refused run"
