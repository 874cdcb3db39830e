"""The lab harness's pure parts, without booting anything: the initramfs archive, the QEMU
command line, and the configurations the guest runs nastui with (valid for nastui's loader)."""

from __future__ import annotations

import stat
import sys
from pathlib import Path

import pytest

from nastui.config import load_config
from tests.lab import initramfs, kernel
from tests.lab.conftest import bay_path, lab_config
from tests.lab.qemu import Machine, default_bays, qemu_argv
from tests.lab.test_swap import swap_config


def _members(archive: bytes) -> list[tuple[str, int, bytes]]:
    """(name, mode, data) of each member of a newc archive, read the way the kernel does."""
    found: list[tuple[str, int, bytes]] = []
    offset = 0
    while True:
        head = archive[offset : offset + 110]
        assert head[:6] == b"070701", head
        fields = [int(head[6 + 8 * i : 14 + 8 * i], 16) for i in range(13)]
        mode, size, namesize = fields[1], fields[6], fields[11]
        name_at = offset + 110
        name = archive[name_at : name_at + namesize - 1].decode()
        data_at = name_at + namesize + (-(110 + namesize) % 4)
        data = archive[data_at : data_at + size]
        offset = data_at + size + (-size % 4)
        if name == "TRAILER!!!":
            return found
        found.append((name, mode, data))


def test_newc_archive_reads_back() -> None:
    entries = initramfs.entries(b"#!/bin/sh\n", b"BUSYBOX", [("9p.ko", b"\x7fELF...")])
    members = {name: (mode, data) for name, mode, data in _members(initramfs.cpio_newc(entries))}
    assert members["init"] == (stat.S_IFREG | 0o755, b"#!/bin/sh\n")
    assert members["bin/busybox"][1] == b"BUSYBOX"
    assert members["modules/9p.ko"][1] == b"\x7fELF..."
    assert members["modules.order"][1] == b"9p.ko\n"
    assert stat.S_ISCHR(members["dev/console"][0])
    assert stat.S_ISDIR(members["proc"][0])


def test_twelve_bays_on_fixed_slots(tmp_path: Path) -> None:
    bays = default_bays()
    assert [b.bus for b in bays] == ["ata"] * 6 + ["scsi"] * 6
    assert len({b.serial for b in bays}) == 12
    machine = Machine(
        tmp_path / "vmlinuz",
        tmp_path / "initrd",
        tmp_path / "share",
        tmp_path,
        [(b, tmp_path / f"{b.number}.img") for b in bays],
    )
    argv = qemu_argv(machine)
    assert argv[:3] == ["qemu-system-x86_64", "-accel", "tcg"]
    devices = [argv[i + 1] for i, a in enumerate(argv) if a == "-device"]
    assert "ahci,id=ahci0,bus=pci.0,addr=0x10" in devices
    assert any(
        d.startswith("ide-hd,drive=disk1,bus=ahci0.0,id=bay1,serial=LABATA0001") for d in devices
    )
    assert any("scsi-hd,drive=disk12" in d and "scsi-id=5" in d for d in devices)
    assert bay_path(1) == "pci-0000:00:10.0-ata-1"
    assert bay_path(12) == "pci-0000:00:11.0-scsi-0:0:5:0"


def test_the_guest_configurations_load(tmp_path: Path) -> None:
    for name, text in (("lab", lab_config()), ("swap", swap_config("LABSCSI0009"))):
        path = tmp_path / f"{name}.toml"
        path.write_text(text)
        config = load_config(path)
        assert len(config.chassis.bindings) == 12, name


# Seen: a checkout under /tmp booted a guest whose every command failed with "python: No such
# file or directory" (the guest mounts an empty /tmp over the host's).
def test_a_virtualenv_under_tmp_is_named_before_the_guest_boots(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys, "prefix", "/tmp/checkout/.venv")
    said = [line for line in kernel.missing() if "mounts empty" in line]
    assert said == [
        "the virtualenv /tmp/checkout/.venv is under /tmp, which the guest mounts empty: "
        "run the lab from a checkout elsewhere"
    ]


def test_a_virtualenv_elsewhere_is_not_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "prefix", "/check/work/main/.venv")
    assert not [line for line in kernel.missing() if "mounts empty" in line]
    monkeypatch.setattr(sys, "prefix", "/tmpfoo/.venv")  # a neighbour's name is not /tmp
    assert not [line for line in kernel.missing() if "mounts empty" in line]
