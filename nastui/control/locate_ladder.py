"""The locate ladder: light the LED of the bay holding a drive, by the first method that works.

1. SES through the kernel: write 1 or 0 to the slot's `locate` file in /sys/class/enclosure
   (found by the drive collector through the slot's `device` link), then read it back.
2. `ledctl --listed-only locate=/dev/sdX` / `locate_off=` (ledmon: SES, SGPIO/IBPI and NVMe
   VMD LEDs; only the LED named: see `ledctl_argv`). Not tried for a drive on a SATA port
   whose controller says it has no enclosure management (`em_message_type` 0): ledctl
   answers success there and nothing lights (seen in the lab).
3. `sg_ses --dev-slot-num=N --set=ident /dev/sgM` (`--clear=ident`), or `--sas-addr=` for a
   SAS drive whose slot number the kernel does not show.
4. An activity blink (`nastui.control.blink`): reads on that drive alone, never writes, for a
   bounded time; refused for a drive in standby unless asked for by name, since it wakes it.
Every result says which method did it ("ses-sysfs", "ledctl", "sg_ses", "activity-blink"), or,
when none could, one line per method saying what is missing. What was lit is recorded in the
state directory (`nastui.core.statefiles`), with the enclosure slot it sat in, so it can be
shown and switched off later, through the drive, or once the drive is out through the recorded
slot alone (`nastui.control.locate_empty`); putting a bay's LED out through the drive in it
forgets every record of that bay.

Subprocesses run through the runner, which the session hands in (`run`): control does not
import collectors.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from pathlib import Path

from nastui import safeio
from nastui.control.blink import Blinker, BlinkPlan
from nastui.control.locate_empty import EmptyBay, nothing_recorded
from nastui.control.locate_rungs import (
    LEDCTL,
    SES,
    SG_SES,
    Attempt,
    RunFn,
    ledctl_argv,
    run_tool,
    sg_ses_argv,
    write_locate,
)
from nastui.control.locate_state import LedBook
from nastui.core.statefiles import BLINK, LedRecord
from nastui.model import Drive, HostSnapshot, LocateResult

METHODS = (SES, LEDCTL, SG_SES, BLINK)
BLINK_SECONDS = 120.0


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

    def _newest_first(self) -> list[LedRecord]:
        return sorted(self._book.records(), key=lambda r: -r.since)

    def lit_in(self, bay: int) -> list[LedRecord]:
        """The records of LEDs nastui lit in `bay`, newest first."""
        return [r for r in self._newest_first() if r.bay == bay]

    def bay_lit_for(self, target: str) -> int | None:
        """The bay of the newest LED nastui lit for the drive named `target` (its serial, or
        the kernel name it had then: `sdc`, `/dev/sdc`), whether or not the drive is still
        there: a drive pulled with its LED lit is named by what the operator knew it as."""
        name = target.removeprefix("/dev/")
        for record in self._newest_first():
            if record.bay is not None and name in (record.drive, record.dev):
                return record.bay
        return None

    async def locate(self, bay: int, on: bool) -> LocateResult:
        """Switch the LED of `bay` (the `Locator` protocol); an empty bay's LED is put out by
        its record (`put_out_empty`)."""
        snapshot = self._latest()
        slot = snapshot.slot(bay) if snapshot is not None else None
        drive = snapshot.drive(slot.drive) if snapshot and slot and slot.drive else None
        if drive is None and snapshot is not None and not on:
            return await self.put_out_empty(bay)
        if drive is None:
            why = "not polled yet" if snapshot is None else "no drive in it"
            return LocateResult(bay, on, False, "none", f"bay {bay}: {why}: nothing to locate")
        return await self.locate_drive(drive, bay, on)

    async def put_out_empty(self, bay: int) -> LocateResult:
        """Put out the LEDs nastui lit in `bay`, which holds no drive now, where its records
        say they were lit (`nastui.control.locate_empty`); each one put out is forgotten."""
        records = self.lit_in(bay)
        if not records:
            return LocateResult(bay, False, False, "none", nothing_recorded(bay))
        empty = EmptyBay(self._root, self._run, self._stop_blink)
        attempts = []
        for record in records:
            attempt = await empty.put_out(record)
            if attempt.ok:
                self._book.forget(record.drive)
            attempts.append(attempt)
        failed = [a.detail for a in attempts if not a.ok]
        if failed:
            why = "; ".join(failed)
            return LocateResult(bay, False, False, "none", f"bay {bay} (empty): {why}")
        said = "; ".join(a.detail for a in attempts)
        return LocateResult(
            bay, False, True, records[0].method, f"bay {bay} (empty): locate off ({said})"
        )

    def _stop_blink(self, drive_key: str) -> None:
        if self._blinker is not None and self._blinker.active == drive_key:
            self._blinker.stop()

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
            for record in self.lit_in(bay) if bay is not None and method != BLINK else ():
                self._book.forget(record.drive)  # the bay's LED is out, whoever lit it
            return
        now = self._clock()
        blink = method == BLINK
        slot = drive.slot if drive.slot is not None and drive.slot.source == "ses" else None
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
                slot_path=slot.locate_path if slot else None,
                enclosure=slot.enclosure if slot else None,
                sg_device=slot.sg_device if slot else None,
                slot_number=slot.slot if slot and slot.sg_device else None,
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
        if (why := write_locate(path, on)) is not None:
            return Attempt(False, why)
        return Attempt(
            True, f"SES slot {slot.name or slot.slot} of enclosure {slot.enclosure}: {path}"
        )

    async def _ledctl(self, drive: Drive, on: bool) -> Attempt:
        if (why := sata_port_without_leds(self._root, drive.dev)) is not None:
            return Attempt(False, why)
        device = str(self._root / "dev" / drive.dev)
        return await run_tool(self._run, ledctl_argv(device, on), "ledmon")

    async def _sg_ses(self, drive: Drive, on: bool) -> Attempt:
        slot = drive.slot
        if slot is not None and slot.sg_device is not None:
            argv = sg_ses_argv(slot.sg_device, on, slot=slot.slot, sas_address=None)
        else:
            devices = enclosure_sg_devices(self._root)
            if len(devices) != 1 or drive.sas_address is None:
                return Attempt(False, "no enclosure device known to hold this drive")
            argv = sg_ses_argv(devices[0], on, slot=None, sas_address=drive.sas_address)
        return await run_tool(self._run, argv, "sg3-utils")

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
