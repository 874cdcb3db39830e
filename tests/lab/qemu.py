"""The lab's machine: its bays, the QEMU command line that builds it, and a QMP client.

Twelve bays by default, numbered as on a 12-bay 2U box (3 rows of 4): bays 1-6 are SATA disks
on an AHCI controller (real ATA SMART, self-tests and power modes as QEMU emulates them; no
hot-plug), bays 7-12 virtio-scsi disks at SCSI targets 0-5 that QMP pulls and inserts like
drives in hot-swap bays. Each bay has its own serial (and model on ATA), and fixed PCI slots
keep `/dev/disk/by-path` the same from boot to boot.
"""

from __future__ import annotations

import json
import select
import socket
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

AHCI_SLOT = 0x10
SCSI_SLOT = 0x11
MIB = 1 << 20


@dataclass(frozen=True)
class Bay:
    """One drive bay of the lab machine and the disk that starts in it."""

    number: int
    bus: Literal["ata", "scsi"]
    port: int  # AHCI port, or SCSI target
    serial: str
    model: str = "NASTUI LAB HDD"
    size: int = 1024 * MIB

    @property
    def qdev_id(self) -> str:
        """The device's QEMU id (what QMP pulls and throttles)."""
        return f"bay{self.number}"

    @property
    def drive_id(self) -> str:
        return f"disk{self.number}"


def default_bays() -> tuple[Bay, ...]:
    """6 AHCI bays (1-6) and 6 hot-pluggable virtio-scsi bays (7-12)."""
    ata = tuple(
        Bay(n, "ata", n - 1, f"LABATA{n:04d}", "NASTUI LAB HDD", 1024 * MIB) for n in range(1, 7)
    )
    scsi = tuple(Bay(n, "scsi", n - 7, f"LABSCSI{n:04d}", "", 512 * MIB) for n in range(7, 13))
    return ata + scsi


def disk_device(bay: Bay, drive_id: str, serial: str, qdev_id: str) -> dict[str, Any]:
    """The `-device` / `device_add` properties for a disk in `bay`."""
    if bay.bus == "ata":
        return {
            "driver": "ide-hd",
            "drive": drive_id,
            "bus": f"ahci0.{bay.port}",
            "id": qdev_id,
            "serial": serial,
            "model": bay.model,
            "rotation_rate": 7200,
        }
    return {
        "driver": "scsi-hd",
        "drive": drive_id,
        "bus": "scsi0.0",
        "channel": 0,
        "scsi-id": bay.port,
        "lun": 0,
        "id": qdev_id,
        "serial": serial,
    }


def _opts(props: Mapping[str, Any]) -> str:
    driver = props["driver"]
    rest = ",".join(f"{k}={v}" for k, v in props.items() if k != "driver")
    return f"{driver},{rest}"


@dataclass(frozen=True)
class Machine:
    """Everything the QEMU command line needs."""

    kernel: Path
    initrd: Path
    share: Path
    run_dir: Path
    bays: Sequence[tuple[Bay, Path]]
    memory_mib: int = 2048
    cpus: int = 2
    append: str = "console=ttyS0,115200 quiet panic=-1"
    extra: Sequence[str] = field(default_factory=tuple)

    @property
    def qmp_socket(self) -> Path:
        return self.run_dir / "qmp.sock"

    @property
    def serial2_socket(self) -> Path:
        """The guest's second serial port (ttyS1), for the serial-console scenario."""
        return self.run_dir / "ttyS1.sock"

    @property
    def console_log(self) -> Path:
        return self.share / "console.log"


def qemu_argv(machine: Machine) -> list[str]:
    """The command line: TCG (nested KVM does not run guests here), no network, 9p shares."""
    argv = [
        "qemu-system-x86_64",
        "-accel", "tcg",
        "-m", str(machine.memory_mib),
        "-smp", str(machine.cpus),
        "-nodefaults", "-display", "none", "-no-reboot",
        "-kernel", str(machine.kernel),
        "-initrd", str(machine.initrd),
        "-append", machine.append,
        "-serial", f"file:{machine.console_log}",
        "-serial", f"unix:{machine.serial2_socket},server=on,wait=off",
        "-qmp", f"unix:{machine.qmp_socket},server=on,wait=off",
        "-virtfs",
        "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap",
        "-virtfs", f"local,path={machine.share},mount_tag=lab,security_model=none,multidevs=remap",
        "-device", f"ahci,id=ahci0,bus=pci.0,addr={AHCI_SLOT:#x}",
        "-device", f"virtio-scsi-pci,id=scsi0,bus=pci.0,addr={SCSI_SLOT:#x}",
    ]  # fmt: skip
    for bay, image in machine.bays:
        argv += ["-drive", f"file={image},if=none,format=raw,id={bay.drive_id}"]
        argv += ["-device", _opts(disk_device(bay, bay.drive_id, bay.serial, bay.qdev_id))]
    return [*argv, *machine.extra]


class QmpError(RuntimeError):
    """QEMU answered a QMP command with an error, or not at all."""


class Qmp:
    """A QMP client on QEMU's unix socket: one command at a time, events kept as they come."""

    def __init__(self, path: Path, *, timeout: float = 60.0) -> None:
        self._timeout = timeout
        self._buffer = b""
        deadline = time.monotonic() + timeout
        while True:
            self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                self._sock.connect(str(path))
                break
            except OSError:
                self._sock.close()
                if time.monotonic() > deadline:
                    raise QmpError(f"no QMP socket at {path} after {timeout:.0f} s") from None
                time.sleep(0.2)
        self.events: list[dict[str, Any]] = []
        self._read(timeout)  # the greeting
        self.command("qmp_capabilities")

    def _read(self, timeout: float) -> dict[str, Any] | None:
        """The next message, or None when none came within `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            ready, _, _ = select.select([self._sock], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                return None
            chunk = self._sock.recv(65536)
            if not chunk:
                raise QmpError("QEMU closed the QMP socket")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        message: dict[str, Any] = json.loads(line)
        return message

    def command(self, name: str, **arguments: Any) -> Any:
        """Run one command; its "return" value, or QmpError with QEMU's message."""
        request: dict[str, Any] = {"execute": name}
        if arguments:
            request["arguments"] = arguments
        self._sock.sendall(json.dumps(request).encode() + b"\n")
        while True:
            message = self._read(self._timeout)
            if message is None:
                raise QmpError(f"{name}: no answer within {self._timeout:.0f} s")
            if "event" in message:
                self.events.append(message)
            elif "error" in message:
                raise QmpError(f"{name}: {message['error'].get('desc', message['error'])}")
            elif "return" in message:
                return message["return"]

    def wait_event(self, name: str, *, timeout: float = 60.0, **data: Any) -> dict[str, Any]:
        """The first event `name` whose data holds `data` (already seen or still to come)."""
        deadline = time.monotonic() + timeout
        while True:
            for event in self.events:
                if event["event"] == name and all(
                    event.get("data", {}).get(k) == v for k, v in data.items()
                ):
                    self.events.remove(event)
                    return event
            left = deadline - time.monotonic()
            if left <= 0:
                raise QmpError(f"no {name} event {data} within {timeout:.0f} s")
            message = self._read(left)
            if message is not None:
                self.events.append(message)

    def close(self) -> None:
        self._sock.close()
