"""The locate ladder: light the LED of the bay holding a drive, by the first method that works.

1. SES through the kernel: write 1 or 0 to the slot's `locate` file in /sys/class/enclosure
   (found by the drive collector through the slot's `device` link), then read it back.
2. `ledctl locate=/dev/sdX` / `locate_off=` (ledmon: SES, SGPIO/IBPI and NVMe VMD LEDs). Not
   tried for a drive on a SATA port whose controller says it has no enclosure management
   (`em_message_type` 0): ledctl answers success there and nothing lights (seen in the lab).
3. `sg_ses --dev-slot-num=N --set=ident /dev/sgM` (`--clear=ident`), or `--sas-addr=` for a
   SAS drive whose slot number the kernel does not show.
4. An activity blink (`nastui.control.blink`): reads on that drive alone, never writes, for a
   bounded time; refused for a drive in standby unless asked for by name, since it wakes it.
Every result says which method did it ("ses-sysfs", "ledctl", "sg_ses", "activity-blink"), or,
when none could, one line per method saying what is missing. What was lit is recorded in the
state directory (`nastui.core.statefiles`) so it can be shown, and switched off, later.

Subprocesses run through the runner, which the session hands in (`run`): control does not
import collectors.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from nastui import safeio
from nastui.control.blink import Blinker, BlinkPlan
from nastui.control.locate_state import LedBook
from nastui.core.statefiles import BLINK, LedRecord
from nastui.model import Drive, HostSnapshot, LocateResult

SES, LEDCTL, SG_SES = "ses-sysfs", "ledctl", "sg_ses"
METHODS = (SES, LEDCTL, SG_SES, BLINK)
BLINK_SECONDS = 120.0
TIMEOUT = 20.0


class CommandOutcome(Protocol):
    """What the runner returns (`nastui.collectors.runner.CommandResult`), as used here."""

    @property
    def returncode(self) -> int | None:
        """Exit status."""
        ...

    @property
    def stdout(self) -> str:
        """Standard output."""
        ...

    @property
    def stderr(self) -> str:
        """Standard error."""
        ...

    @property
    def ok(self) -> bool:
        """Exited 0 in time."""
        ...

    @property
    def not_found(self) -> bool:
        """The program is not installed."""
        ...


RunFn = Callable[..., Awaitable[CommandOutcome]]


@dataclass(frozen=True, slots=True)
class Attempt:
    """One rung tried: whether it worked, and what it did or what is missing."""

    ok: bool
    detail: str


def ledctl_argv(device: str, on: bool) -> tuple[str, ...]:
    """`ledctl locate=/dev/sdX` or `ledctl locate_off=/dev/sdX`."""
    return ("ledctl", f"{'locate' if on else 'locate_off'}={device}")


def sg_ses_argv(
    sg_device: str, on: bool, *, slot: int | None, sas_address: str | None
) -> tuple[str, ...]:
    """`sg_ses --dev-slot-num=N --set=ident /dev/sgM` (or `--sas-addr=`, `--clear=ident`)."""
    where = f"--dev-slot-num={slot}" if slot is not None else f"--sas-addr={sas_address}"
    return ("sg_ses", where, f"--{'set' if on else 'clear'}=ident", sg_device)


def _last_line(result: CommandOutcome) -> str:
    for stream in (result.stderr, result.stdout):
        lines = [line.strip() for line in stream.splitlines() if line.strip()]
        if lines:
            return lines[0][:160]
    return f"exit status {result.returncode}"


def enclosure_sg_devices(root: Path) -> list[str]:
    """SCSI generic devices of enclosures (peripheral type 13) under `root`."""
    base = root / "sys/class/scsi_generic"
    try:
        names = safeio.names(base)
    except OSError:
        return []
    found = []
    for name in names:
        try:
            kind = safeio.read_text_bounded(base / name / "device/type", safeio.ATTR_LIMIT).strip()
        except OSError:
            continue
        if kind == "13":
            found.append(str(root / "dev" / name))
    return found


_ATA_PORT = re.compile(r"^ata\d+$")
_SCSI_HOST = re.compile(r"^host\d+$")


def sata_port_without_leds(root: Path, dev: str) -> str | None:
    """Why ledctl cannot light `dev`'s LED, if `dev` is on a libata (SATA) port whose controller
    offers no enclosure-management messages (its SCSI host's `em_message_type` is 0: no LED,
    SAF-TE, SES-2 or SGPIO); None when it is not such a port or sysfs does not say."""
    try:
        parts = safeio.resolve(root / "sys/block" / dev / "device").parts
    except OSError:
        return None
    if not any(_ATA_PORT.match(part) for part in parts):
        return None
    host = next((part for part in reversed(parts) if _SCSI_HOST.match(part)), None)
    if host is None:
        return None
    path = root / "sys/class/scsi_host" / host / "em_message_type"
    try:
        kinds = safeio.read_text_bounded(path, safeio.ATTR_LIMIT).strip()
    except OSError:
        return None
    if kinds != "0":
        return None
    return (
        f"{dev} is on a SATA port whose controller ({host}) has no enclosure management "
        "(em_message_type 0): no LED for ledctl to drive"
    )


class LadderLocator:
    """The real machine's `nastui.control.locate.Locator`."""

    def __init__(
        self,
        root: Path,
        *,
        run: RunFn,
        latest: Callable[[], HostSnapshot | None],
        state_dir: Path,
        blinker: Blinker | None = None,
        blink_seconds: float = BLINK_SECONDS,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._root = root
        self._run = run
        self._latest = latest
        self._book = LedBook(state_dir)
        self._blinker = blinker
        self.blink_seconds = blink_seconds
        self._clock = clock

    @property
    def blinker(self) -> Blinker:
        """The activity blinker (made on first use; the CLI waits on it)."""
        if self._blinker is None:
            self._blinker = Blinker()
        return self._blinker

    def forget(self, drive_key: str) -> None:
        """Drop the record of a lit LED (an activity blink that ended)."""
        self._book.forget(drive_key)

    async def locate(self, bay: int, on: bool) -> LocateResult:
        """Switch the LED of `bay` (the `Locator` protocol)."""
        snapshot = self._latest()
        slot = snapshot.slot(bay) if snapshot is not None else None
        drive = snapshot.drive(slot.drive) if snapshot and slot and slot.drive else None
        if drive is None:
            why = "not polled yet" if snapshot is None else "no drive in it"
            return LocateResult(bay, on, False, "none", f"bay {bay}: {why}: nothing to locate")
        return await self.locate_drive(drive, bay, on)

    async def locate_drive(
        self, drive: Drive, bay: int | None, on: bool, method: str | None = None
    ) -> LocateResult:
        """Switch the locate LED of `drive`'s bay, by `method` or by the ladder."""
        where = f"bay {bay} {drive.dev}" if bay is not None else drive.dev
        record = self._book.record_for(drive.key)
        if method is not None:
            order: tuple[str, ...] = (method,)
        elif not on and record is not None:
            order = (record.method, *(m for m in METHODS if m != record.method))
        else:
            order = METHODS
        notes = []
        for name in order:
            attempt = await self._try(name, drive, on, forced=method == name)
            if attempt.ok:
                self._remember(drive, bay, on, name, attempt.detail)
                state = "on" if on else "off"
                return LocateResult(
                    -1 if bay is None else bay,
                    on,
                    True,
                    name,
                    f"{where}: locate {state} ({attempt.detail})",
                )
            notes.append(f"{name}: {attempt.detail}")
        verb = "light" if on else "switch off"
        return LocateResult(
            -1 if bay is None else bay,
            on,
            False,
            "none",
            f"{where}: could not {verb} a locate LED: " + "; ".join(notes),
        )

    def _remember(self, drive: Drive, bay: int | None, on: bool, method: str, target: str) -> None:
        if not on:
            self._book.forget(drive.key)
            return
        now = self._clock()
        blink = method == BLINK
        self._book.keep(
            LedRecord(
                bay,
                drive.key,
                drive.dev,
                method,
                now,
                pid=os.getpid() if blink else None,
                until=now + self.blink_seconds if blink else None,
                target=target,
            )
        )

    async def _try(self, method: str, drive: Drive, on: bool, *, forced: bool) -> Attempt:
        if method == SES:
            return self._ses(drive, on)
        if method == LEDCTL:
            return await self._ledctl(drive, on)
        if method == SG_SES:
            return await self._sg_ses(drive, on)
        if method == BLINK:
            return self._blink(drive, on, forced=forced)
        return Attempt(False, f"unknown method (choose from {', '.join(METHODS)})")

    def _ses(self, drive: Drive, on: bool) -> Attempt:
        slot = drive.slot
        if slot is None or slot.locate_path is None:
            return Attempt(False, f"no SES enclosure slot holds {drive.dev} (/sys/class/enclosure)")
        path = Path(slot.locate_path)
        try:
            safeio.write_existing(path, b"1\n" if on else b"0\n")
            readback = safeio.read_text_bounded(path, safeio.ATTR_LIMIT).strip()
        except PermissionError:
            return Attempt(False, f"writing {path}: permission denied (run as root)")
        except OSError as exc:
            return Attempt(False, f"writing {path}: {exc.strerror or exc}")
        if readback != ("1" if on else "0"):
            return Attempt(
                False, f"{path} reads {readback!r} after writing: the enclosure ignored it"
            )
        return Attempt(
            True, f"SES slot {slot.name or slot.slot} of enclosure {slot.enclosure}: {path}"
        )

    async def _ledctl(self, drive: Drive, on: bool) -> Attempt:
        if (why := sata_port_without_leds(self._root, drive.dev)) is not None:
            return Attempt(False, why)
        device = str(self._root / "dev" / drive.dev)
        result = await self._run(ledctl_argv(device, on), timeout=TIMEOUT)
        if result.not_found:
            return Attempt(False, "not installed (apt-get install ledmon)")
        if not result.ok:
            return Attempt(False, _last_line(result))
        return Attempt(True, f"ledctl {'locate' if on else 'locate_off'}={device}")

    async def _sg_ses(self, drive: Drive, on: bool) -> Attempt:
        slot = drive.slot
        if slot is not None and slot.sg_device is not None:
            argv = sg_ses_argv(slot.sg_device, on, slot=slot.slot, sas_address=None)
        else:
            devices = enclosure_sg_devices(self._root)
            if len(devices) != 1 or drive.sas_address is None:
                return Attempt(False, "no enclosure device known to hold this drive")
            argv = sg_ses_argv(devices[0], on, slot=None, sas_address=drive.sas_address)
        result = await self._run(argv, timeout=TIMEOUT)
        if result.not_found:
            return Attempt(False, "not installed (apt-get install sg3-utils)")
        if not result.ok:
            return Attempt(False, _last_line(result))
        return Attempt(True, " ".join(argv))

    def _blink(self, drive: Drive, on: bool, *, forced: bool) -> Attempt:
        if not on:
            if self.blinker.active == drive.key:
                self.blinker.stop()
                return Attempt(True, "activity blink stopped")
            record = self._book.record_for(drive.key)
            if record is not None and record.method == BLINK and record.pid != os.getpid():
                return Attempt(False, f"blinking from nastui process {record.pid}: stop it there")
            return Attempt(False, "not blinking")
        if drive.power.spun_down and not forced:
            return Attempt(
                False,
                f"{drive.dev} is in standby and reading would wake it (ask for --method {BLINK})",
            )
        path = self._root / "dev" / drive.dev
        self.blinker.start(BlinkPlan(path, self.blink_seconds), drive.key)
        return Attempt(
            True,
            f"reading {path} (read-only) for {self.blink_seconds:.0f} s: watch for the flicker",
        )
