"""The drive side of the local backend: every drive with what can be read about it, plus where
the hardware says each one sits (enclosure slots) and the state of the bay LEDs.

One poll: identity from sysfs; temperatures from hwmon (drivetemp, nvme; re-read every
`temp_every` seconds); I/O rates from the kernel's counters; SES enclosure slots and, every
`smart_every` seconds, controller tables (storcli, sas2ircu/sas3ircu) where installed; SMART,
power states and smartctl temperatures from `SmartCollector`; the operator's acknowledgements
and the LEDs nastui lit, from the state directory.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from nastui.collectors import runner
from nastui.collectors.confine import is_other_box
from nastui.collectors.enclosure import SesSlot, ses_slots, single_enclosure, slots_by_dev
from nastui.collectors.enclosure_controllers import controller_slots
from nastui.collectors.enclosure_leds import LedReader, led_states
from nastui.collectors.hwmon import drive_temperatures
from nastui.collectors.iostat import IoSampler, io_totals, read_diskstats
from nastui.collectors.smart.acks import AckReader
from nastui.collectors.smart.collector import RunFn, SmartCollector
from nastui.collectors.sysfs import BlockDevice, discover, read_text
from nastui.core.clock import due
from nastui.core.statefiles import state_dir as default_state_dir
from nastui.model import CollectorError, Drive, EnclosureSlot, LedState, MappedBy, Temperature


@dataclass(frozen=True)
class DriveReport:
    """What the drive collectors found in one poll.

    Attributes:
        drives: every drive, in device-name order.
        errors: what could not be read, one line each.
        enclosure_slots: `Drive.key` -> "ENCLOSURE:SLOT", for `enclosure` bay bindings.
        located: `Drive.key` -> (bay, how), found automatically (SES, controller tables).
        leds: bay number -> LED state, where the hardware tells.
        wakeups: standby wake-ups caused by nastui's own queries since start (must stay 0).
    """

    drives: tuple[Drive, ...]
    errors: tuple[CollectorError, ...] = ()
    enclosure_slots: Mapping[str, str] = field(default_factory=dict)
    located: Mapping[str, tuple[int, MappedBy]] = field(default_factory=dict)
    leds: Mapping[int, LedState] = field(default_factory=dict)
    wakeups: int = 0


@dataclass(frozen=True, slots=True)
class Schedule:
    """Seconds between reads (the `[poll]` defaults) and the longest any command may run."""

    temperature_s: float = 30.0
    smart_s: float = 300.0
    command_timeout_s: float = 20.0


def _located(slots: Mapping[str, EnclosureSlot]) -> dict[str, tuple[int, MappedBy]]:
    """Drive key -> (bay, how) when one enclosure holds every located drive: its slot numbers
    are taken as bay numbers (as a backplane labels them); with several, bind bays by
    `enclosure = "ID:SLOT"` in the configuration."""
    if not slots or not single_enclosure(slots):
        return {}
    return {
        key: (s.slot, MappedBy.ENCLOSURE if s.source == "ses" else MappedBy.CONTROLLER)
        for key, s in slots.items()
    }


class DriveCollector:
    """Reads drives under `root`; keeps what must persist between polls."""

    def __init__(
        self,
        root: Path = Path("/"),
        *,
        schedule: Schedule | None = None,
        run: RunFn = runner.run,
        state_dir: Path | None = None,
        smart: SmartCollector | None = None,
    ) -> None:
        self._root = root
        self._schedule = schedule or Schedule()
        self._run = run
        self._io = IoSampler()
        directory = state_dir or default_state_dir(os.environ, os.geteuid())
        self._acks = AckReader(directory)
        self._leds = LedReader(directory)
        self.smart = smart or SmartCollector(
            root,
            run=run,
            smart_every=self._schedule.smart_s,
            temp_every=self._schedule.temperature_s,
            timeout=self._schedule.command_timeout_s,
        )
        self._temps: dict[str, Temperature] = {}
        self._temps_at: float | None = None
        self._temps_for: list[str] = []
        self._controllers: dict[str, EnclosureSlot] = {}
        self._controllers_at: float | None = None

    def _temperatures(self, names: list[str], now: float) -> dict[str, Temperature]:
        if due(self._temps_at, now, self._schedule.temperature_s) or names != self._temps_for:
            self._temps = drive_temperatures(self._root, names, now)
            self._temps_at, self._temps_for = now, names
        return self._temps

    async def _controller_slots(self, now: float) -> dict[str, EnclosureSlot]:
        at = self._controllers_at
        if due(at, now, self._schedule.smart_s):
            self._controllers_at = now
            timeout = self._schedule.command_timeout_s
            self._controllers = await controller_slots(self._run, timeout)
        return self._controllers

    def _drive(
        self, device: BlockDevice, temps: Mapping[str, Temperature], ses: Mapping[str, SesSlot]
    ) -> Drive:
        sas = read_text(self._root / "sys/block" / device.dev / "device/sas_address")
        found = ses.get(device.dev)
        return Drive(
            dev=device.dev,
            identity=device.identity,
            by_id=device.by_id,
            by_path=device.by_path,
            temperature=temps.get(device.dev),
            slot=found.slot if found is not None else None,
            sas_address=sas or None,
            by_vdev=device.by_vdev,
            partitions=device.partitions,
            holders=device.holders,
        )

    def _with_state(
        self, drives: list[Drive], controllers: Mapping[str, EnclosureSlot]
    ) -> list[Drive]:
        acks = self._acks.read()
        out = []
        for drive in drives:
            slot = drive.slot or controllers.get(drive.identity.serial or "")
            out.append(dataclasses.replace(drive, slot=slot, acks=acks.get(drive.key, ())))
        return out

    async def collect(self, now: float) -> DriveReport:
        """One poll of every drive."""
        errors: list[CollectorError] = []
        devices = list(discover(self._root))
        if not devices:
            errors.append(
                CollectorError("drives", f"no drives found under {self._root / 'sys/block'}")
            )
        names = [d.dev for d in devices]
        temps = self._temperatures(names, now)
        stats = read_diskstats(self._root)  # once per poll: rates, and the wake-up counter
        counters = None if stats is None else stats.counters
        io = self._io.sample(counters, names, now)
        if io is None and devices:
            errors.append(
                CollectorError("io", f"no I/O counters: {self._root / 'proc/diskstats'} unreadable")
            )
        if stats is not None and stats.skipped:
            errors.append(_skipped(self._root, stats.skipped))
        sas = ses_slots(self._root)
        ses = slots_by_dev(self._root, sas, names)
        # A RAID controller's tool asks this machine's controller: never for another box's tree.
        ours = devices and not is_other_box(self._root)
        controllers = await self._controller_slots(now) if ours else {}
        found = [self._drive(d, temps, ses) for d in devices]
        found = self._with_state(found, controllers)
        found = [dataclasses.replace(d, io=(io or {}).get(d.dev)) for d in found]
        drives, smart_errors = await self.smart.poll(found, now, io_totals(counters))
        errors += smart_errors
        if self._acks.error is not None:
            errors.append(self._acks.error)
        return self._report(drives, tuple(errors), ses, now)

    def _report(
        self,
        drives: tuple[Drive, ...],
        errors: tuple[CollectorError, ...],
        ses: Mapping[str, SesSlot],
        now: float,
    ) -> DriveReport:
        slots = {d.key: d.slot for d in drives if d.slot is not None}
        located = _located(slots)
        by_dev = {d.dev: d.key for d in drives}
        readback = {
            located[by_dev[dev]][0]: s.led for dev, s in ses.items() if by_dev.get(dev) in located
        }
        bays = {key: bay for key, (bay, _) in located.items()}
        leds = led_states(self._leds.lit(now), readback, bays)
        return DriveReport(
            drives,
            errors,
            enclosure_slots={key: s.ref for key, s in slots.items()},
            located=located,
            leds=leds,
            wakeups=self.smart.wakes.total,
        )


def _skipped(root: Path, lines: tuple[str, ...]) -> CollectorError:
    """One line about /proc/diskstats lines that were not understood (their drives get no rates)."""
    first = lines[0] if len(lines[0]) <= 80 else lines[0][:77] + "..."
    return CollectorError(
        "io",
        f"{root / 'proc/diskstats'}: {len(lines)} line(s) not understood, left out "
        f"(first: {first!r}): their I/O rates are not shown; please report the line",
    )
