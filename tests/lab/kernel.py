"""The guest's kernel (Debian's linux-image-amd64 installed on the host, never booted there) and
what the lab needs beside it: the OpenZFS module DKMS built for it, QEMU, busybox.

`missing()` lists what is not there, each with the command that provides it, so a test can fail
(or skip outside CI) in one line instead of booting a guest that cannot work.
"""

from __future__ import annotations

import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

BOOT = Path("/boot")
MODULES = Path("/lib/modules")
ZFS21_ROOT = Path("/var/cache/nastui-lab/zfs-2.1.11/root")
PROVISION = "make lab-setup (as root)"


@dataclass(frozen=True)
class Kernel:
    """A Debian kernel the lab boots: its image and its modules directory."""

    release: str

    @property
    def vmlinuz(self) -> Path:
        return BOOT / f"vmlinuz-{self.release}"

    @property
    def modules(self) -> Path:
        return MODULES / self.release

    def zfs_module(self) -> Path | None:
        """The DKMS-built zfs.ko for this kernel, if any."""
        found = sorted((self.modules / "updates").glob("**/zfs.ko*"))
        return found[0] if found else None


def _version_key(release: str) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", release))


def find_kernel() -> Kernel | None:
    """The newest Debian amd64 kernel with both an image and modules, or None."""
    releases = [
        p.name.removeprefix("vmlinuz-")
        for p in BOOT.glob("vmlinuz-*-amd64")
        if (MODULES / p.name.removeprefix("vmlinuz-") / "kernel").is_dir()
    ]
    return Kernel(max(releases, key=_version_key)) if releases else None


# Directories the guest mounts afresh over the host's (tests/lab/guest/boot.sh): the host's
# files there are out of its sight, so the interpreter it borrows must live elsewhere.
GUEST_FRESH = ("/tmp", "/run", "/dev")


def missing(*, zfs21: bool = False) -> list[str]:
    """What the lab lacks on this host, one line each naming the fix; empty when ready."""
    lacks = [
        f"{tool} not installed (Debian package {package}; {PROVISION})"
        for tool, package in (
            ("qemu-system-x86_64", "qemu-system-x86"),
            ("busybox", "busybox-static"),
            ("zpool", "zfsutils-linux"),
            ("mdadm", "mdadm"),
            ("smartctl", "smartmontools"),
        )
        if shutil.which(tool) is None
    ]
    hidden = [d for d in GUEST_FRESH if Path(sys.prefix).is_relative_to(d)]
    if hidden:
        lacks.append(
            f"the virtualenv {sys.prefix} is under {hidden[0]}, which the guest mounts empty: "
            "run the lab from a checkout elsewhere"
        )
    if not Path("/bin/busybox").is_file():
        lacks.append(f"/bin/busybox missing (busybox-static; {PROVISION})")
    kernel = find_kernel()
    if kernel is None:
        lacks.append(f"no Debian kernel for the guest (linux-image-amd64; {PROVISION})")
    elif kernel.zfs_module() is None:
        lacks.append(f"no OpenZFS module built for {kernel.release} (zfs-dkms; {PROVISION})")
    if zfs21 and not (ZFS21_ROOT / "usr" / "sbin" / "zpool").exists():
        lacks.append(f"no OpenZFS 2.1.11 userland in {ZFS21_ROOT} (make lab-setup LAB_ZFS21=1)")
    return lacks
