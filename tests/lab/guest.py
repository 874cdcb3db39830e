"""A booted lab guest, driven from the host: run scripts in it, pull and insert its disks.

The guest's root is the host's (read-only 9p under a tmpfs overlay), so it runs this checkout's
nastui with the host's virtualenv; the read-write 9p share (`/lab` in the guest) is the run's
results directory on the host, which stays behind after the run: `req/N` is each script the host
sent, `res/N.out`, `.err` and `.rc` what it gave, `timings.tsv` how long each took, `console.log`
the guest's kernel console and `boot.log` its boot steps.

A request is a bash script that the guest's agent (guest/boot.sh) runs in the background, after
`/lab/guest/env.sh` (PATH, PYTHONPATH, a `nastui` function calling `python -m nastui`).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.lab import initramfs
from tests.lab.kernel import Kernel
from tests.lab.qemu import Bay, Machine, Qmp, default_bays, disk_device, qemu_argv

REPO = Path(__file__).resolve().parents[2]
GUEST_DIR = Path(__file__).resolve().parent / "guest"
DIST_PACKAGES = Path("/usr/lib/python3/dist-packages")
# Debian's python3-pyzfs and what it imports, made visible to the venv's interpreter in the
# guest only (the box a user runs nastui on has them when python3-pyzfs is installed).
PYZFS_MODULES = ("libzfs_core", "cffi", "pycparser", "ply")
# OpenZFS 2.1's modules in the order they depend on each other (2.2+ has spl and zfs only)
ZFS21_MODULES = ("spl", "znvpair", "zcommon", "icp", "zavl", "zlua", "zzstd", "zunicode", "zfs")


class GuestError(AssertionError):
    """The guest did not boot, did not answer, or a script failed that had to succeed."""


@dataclass(frozen=True)
class Result:
    """What one script gave in the guest."""

    n: int
    script: str
    rc: int
    out: str
    err: str
    seconds: float

    def json(self) -> Any:
        """stdout as JSON (nastui's --json), or GuestError naming the script."""
        try:
            return json.loads(self.out)
        except ValueError as exc:
            raise GuestError(f"request {self.n} printed no JSON ({exc}):\n{self}") from None

    def __str__(self) -> str:
        return (
            f"[{self.n}] exit {self.rc} in {self.seconds:.1f} s: {self.script.strip()}\n"
            f"--- stdout\n{self.out}--- stderr\n{self.err}"
        )


def lab_dir() -> Path:
    """Where the lab keeps its initramfs, runs and results ($NASTUI_LAB_DIR)."""
    return Path(os.environ.get("NASTUI_LAB_DIR", "/var/tmp/nastui-lab"))


def prune_runs(keep: int = 5) -> None:
    """Drop the disk images and source copies of all but the `keep` newest runs (their
    results, the share directory, stay)."""
    runs = sorted((lab_dir() / "runs").glob("*-*"))
    for run in runs[:-keep] if keep else runs:
        for bulky in ("images", "src", "pyzfs"):
            shutil.rmtree(run / bulky, ignore_errors=True)


def _copy_source(target: Path) -> Path:
    """This checkout's nastui, byte-compiled on the host (compiling under emulation is slow)."""
    shutil.copytree(
        REPO / "nastui", target / "nastui", ignore=shutil.ignore_patterns("__pycache__")
    )
    shutil.copy2(REPO / "config.example.toml", target / "config.example.toml")
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", "-j", "0", str(target / "nastui")], check=True
    )
    return target


def _pyzfs_dir(target: Path) -> Path:
    target.mkdir(parents=True, exist_ok=True)
    for name in PYZFS_MODULES:
        if (DIST_PACKAGES / name).exists():
            (target / name).symlink_to(DIST_PACKAGES / name)
    for backend in DIST_PACKAGES.glob("_cffi_backend.*.so"):
        (target / backend.name).symlink_to(backend)
    return target


@dataclass(frozen=True)
class Moment:
    """The kernel's state read just before and just after one nastui command."""

    before: dict[str, str]
    after: dict[str, str]
    nastui: Result


@dataclass
class _Slot:
    """What sits in a bay now: the QEMU device id, serial and image (None: pulled)."""

    qdev_id: str | None
    serial: str
    image: Path


class Guest:
    """One lab VM: boot it, send it scripts, act on its bays through QMP, stop it."""

    def __init__(
        self,
        name: str,
        kernel: Kernel,
        *,
        bays: Sequence[Bay] | None = None,
        zfs_root: Path | None = None,
        pyzfs: bool = True,
        config: str | None = None,
    ) -> None:
        self.name = name
        self.kernel = kernel
        self.bays = {b.number: b for b in (bays or default_bays())}
        stamp = time.strftime("%Y%m%d-%H%M%S")
        self.run_dir = lab_dir() / "runs" / f"{stamp}-{name}"
        self.share = self.run_dir / "share"
        self.images = self.run_dir / "images"
        self._zfs_root = zfs_root
        self._pyzfs = pyzfs
        self._config = config
        self._process: subprocess.Popen[bytes] | None = None
        self.qmp: Qmp | None = None
        self._next = 1
        self._inserted = 0
        self._moments = 0
        self.slots: dict[int, _Slot] = {}
        self.boot_seconds: float | None = None

    # ---------------------------------------------------------------- set-up and boot

    def _prepare(self) -> Machine:
        for sub in ("guest", "req", "res"):
            (self.share / sub).mkdir(parents=True, exist_ok=True)
        self.images.mkdir(parents=True, exist_ok=True)
        for script in ("boot.sh", "lib.sh"):
            shutil.copy2(GUEST_DIR / script, self.share / "guest" / script)
        src = _copy_source(self.run_dir / "src")
        path = [str(src)]
        if self._pyzfs:
            path.append(str(_pyzfs_dir(self.run_dir / "pyzfs")))
        env = [
            "export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            "export HOME=/root LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=dumb TZ=UTC",
            f"export PYTHONPATH={':'.join(path)}",
            "export NASTUI_STATE_DIR=/var/lib/nastui",
            f'nastui() {{ {sys.executable} -m nastui "$@"; }}',
            "export -f nastui",  # also in `bash -c` (the serial console's session)
            ". /lab/guest/lib.sh",
        ]
        if self._config is not None:
            (self.share / "config.toml").write_text(self._config)
            env.append("export NASTUI_CONFIG=/lab/config.toml")
        (self.share / "guest" / "env.sh").write_text("\n".join(env) + "\n")
        if self._zfs_root is not None:
            modules = " ".join(ZFS21_MODULES)
            (self.share / "guest" / "zfs.env").write_text(
                f"ZFS_ROOT={self._zfs_root}\nZFS_MODULES='{modules}'\n"
            )
        placed = []
        for bay in self.bays.values():
            image = self.images / f"bay{bay.number}.img"
            with image.open("wb") as handle:
                handle.truncate(bay.size)
            self.slots[bay.number] = _Slot(bay.qdev_id, bay.serial, image)
            placed.append((bay, image))
        initrd = initramfs.build(self.kernel.modules, lab_dir() / "initramfs")
        return Machine(self.kernel.vmlinuz, initrd, self.share, self.run_dir, placed)

    def boot(self, *, timeout: float = 600.0) -> None:
        """Start QEMU and wait until the guest's agent is ready (udev settled, ZFS loaded)."""
        machine = self._prepare()
        argv = ["nice", "-n", "5", *qemu_argv(machine)]
        (self.run_dir / "qemu.argv").write_text(" ".join(argv) + "\n")
        started = time.monotonic()
        with (self.run_dir / "qemu.log").open("wb") as log:
            self._process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        self.qmp = Qmp(machine.qmp_socket)
        while not (self.share / "ready").exists():
            self._check_alive("while booting")
            if time.monotonic() - started > timeout:
                raise GuestError(f"guest not ready after {timeout:.0f} s{self._console_tail()}")
            time.sleep(0.5)
        self.boot_seconds = time.monotonic() - started
        self._time("boot", self.boot_seconds)

    def _console_tail(self) -> str:
        try:
            text = (self.share / "console.log").read_text(errors="replace")
        except OSError:
            return ""
        return "\n--- guest console (last lines)\n" + "\n".join(text.splitlines()[-30:])

    def _check_alive(self, doing: str) -> None:
        if self._process is not None and self._process.poll() is not None:
            log = (self.run_dir / "qemu.log").read_text(errors="replace")[-2000:]
            raise GuestError(
                f"QEMU exited ({self._process.returncode}) {doing}: {log}{self._console_tail()}"
            )

    def _time(self, what: str, seconds: float) -> None:
        with (self.share / "timings.tsv").open("a") as handle:
            handle.write(f"{seconds:.1f}\t{what}\n")

    # ---------------------------------------------------------------- scripts

    def spawn(self, script: str) -> int:
        """Send a script; it runs in the background in the guest. Its request number."""
        n = self._next
        self._next += 1
        part = self.share / "req" / f"{n}.part"
        part.write_text(f". /lab/guest/env.sh\n{script}\n")
        part.rename(self.share / "req" / str(n))
        (self.share / "req" / f"{n}.sent").write_text(f"{time.monotonic()}\n")
        return n

    def wait(self, n: int, *, timeout: float = 300.0) -> Result:
        """The result of request `n`, waiting for it up to `timeout` seconds."""
        rc_file = self.share / "res" / f"{n}.rc"
        sent = float((self.share / "req" / f"{n}.sent").read_text())
        while not rc_file.exists():
            self._check_alive(f"during request {n}")
            if time.monotonic() - sent > timeout:
                script = (self.share / "req" / str(n)).read_text()
                raise GuestError(f"request {n} not done after {timeout:.0f} s: {script}")
            time.sleep(0.2)
        seconds = time.monotonic() - sent
        script = (self.share / "req" / str(n)).read_text().split("\n", 1)[1]
        result = Result(
            n,
            script,
            int(rc_file.read_text().strip() or -1),
            (self.share / "res" / f"{n}.out").read_text(errors="replace"),
            (self.share / "res" / f"{n}.err").read_text(errors="replace"),
            seconds,
        )
        self._time(f"[{n}] {script.strip().splitlines()[0][:100]}", seconds)
        return result

    def moment(self, truth: Mapping[str, str], nastui: str, *, timeout: float = 300.0) -> Moment:
        """One moment of the box: each `truth` command (the kernel's own tools) run, then
        `nastui ARGS`, then each `truth` command again, in one script."""
        self._moments += 1
        where = f"/lab/moments/{self._moments}"
        reads = {
            when: "\n".join(f"{cmd} >{where}/{when}.{name} 2>&1" for name, cmd in truth.items())
            for when in ("before", "after")
        }
        script = (
            f"mkdir -p {where}\n{reads['before']}\n"
            f"nastui {nastui} >{where}/nastui.out 2>{where}/nastui.err\n"
            f"echo $? >{where}/nastui.rc\n"
            f"{reads['after']}\n"
        )
        self.sh(script, timeout=timeout)
        local = self.share / "moments" / str(self._moments)
        read = {w: {n: (local / f"{w}.{n}").read_text() for n in truth} for w in reads}
        return Moment(
            read["before"],
            read["after"],
            Result(
                self._moments,
                f"nastui {nastui}",
                int((local / "nastui.rc").read_text()),
                (local / "nastui.out").read_text(),
                (local / "nastui.err").read_text(),
                0.0,
            ),
        )

    def sh(self, script: str, *, timeout: float = 300.0, check: bool = True) -> Result:
        """Run a script and wait; with `check`, a non-zero exit is a GuestError."""
        result = self.wait(self.spawn(script), timeout=timeout)
        if check and result.rc != 0:
            raise GuestError(f"guest script failed:\n{result}")
        return result

    # ---------------------------------------------------------------- bays

    def _qmp(self) -> Qmp:
        if self.qmp is None:
            raise GuestError("the guest is not running")
        return self.qmp

    def pull(self, bay: int, *, timeout: float = 120.0) -> None:
        """Pull the disk out of a hot-swap bay (QMP device_del; waits for QEMU to let go)."""
        slot = self.slots[bay]
        if self.bays[bay].bus != "scsi" or slot.qdev_id is None:
            raise GuestError(f"bay {bay} cannot be pulled (not hot-swap, or empty)")
        self._qmp().command("device_del", id=slot.qdev_id)
        self._qmp().wait_event("DEVICE_DELETED", timeout=timeout, device=slot.qdev_id)
        slot.qdev_id = None

    def insert(self, bay: int, serial: str | None = None, image: Path | None = None) -> Path:
        """Insert a disk into an empty hot-swap bay: the one pulled (same serial and image),
        or a new blank one with `serial`. The image's path."""
        slot = self.slots[bay]
        if self.bays[bay].bus != "scsi" or slot.qdev_id is not None:
            raise GuestError(f"bay {bay} cannot take a disk (not hot-swap, or occupied)")
        self._inserted += 1
        if serial is not None and image is None:
            image = self.images / f"new{self._inserted}-{serial}.img"
            with image.open("wb") as handle:
                handle.truncate(self.bays[bay].size)
        slot.image = image or slot.image
        slot.serial = serial or slot.serial
        node = f"node{self._inserted}"
        qdev = f"bay{bay}-{self._inserted}"
        self._qmp().command(
            "blockdev-add",
            **{"node-name": node, "driver": "raw"},
            file={"driver": "file", "filename": str(slot.image)},
        )
        self._qmp().command("device_add", **disk_device(self.bays[bay], node, slot.serial, qdev))
        slot.qdev_id = qdev
        return slot.image

    def refill(self) -> None:
        """Put back the disk of every hot-swap bay left empty (by a scenario that failed
        half-way), and lift every throttle: the next scenario starts with all twelve bays."""
        for number, slot in self.slots.items():
            if self.bays[number].bus == "scsi" and slot.qdev_id is None:
                self.insert(number)
        for number in self.slots:
            self.throttle(number)

    def throttle(self, bay: int, *, read: int = 0, write: int = 0) -> None:
        """Limit a bay's disk to `read` and `write` bytes per second (0: no limit), like a
        slow drive: reads alone for a scrub (the pool's own writes stay quick), writes for
        a rebuild onto it."""
        qdev = self.slots[bay].qdev_id
        limits = dict.fromkeys(("bps", "iops", "iops_rd", "iops_wr"), 0)
        self._qmp().command("block_set_io_throttle", id=qdev, bps_rd=read, bps_wr=write, **limits)

    # ---------------------------------------------------------------- stop

    def shutdown(self, *, timeout: float = 90.0) -> None:
        """Ask the agent to stop (the guest powers off), else quit QEMU; never leaves it running."""
        if self._process is None:
            return
        (self.share / "stop").write_text("stop\n")
        try:
            self._process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            try:
                self._qmp().command("quit")
                self._process.wait(timeout=10)
            except Exception:
                self._process.kill()
                self._process.wait()
        if self.qmp is not None:
            self.qmp.close()
        self._process = None
