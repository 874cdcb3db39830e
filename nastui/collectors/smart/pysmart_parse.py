"""SMART through pySMART, on nastui's terms.

pySMART parses smartctl's text well, but on its own it runs smartctl itself (outside the runner),
never passes `-n standby` (so it wakes sleeping disks), lets options accumulate on a shared global,
guesses the interface with extra commands, and discards the exit status. So nastui hands each
`pySMART.Device` a `ReplaySmartctl`: pySMART asks it for a command line, and it answers from
outputs nastui has already run through the runner (live, with `-n standby` and the interface
given) or read from a saved file (`nastui smart explain`). A command pySMART asks for that has no
answer yet is noted, so the live path can run it (again through the runner) and parse once more.

pySMART is imported here only, lazily: importing it sets `LANG=C` for the whole process (and
swaps the logging module's logger class), both put back at once.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from nastui.collectors.smart import labels
from nastui.collectors.smart import text as smart_text
from nastui.collectors.smart.errorlog import errors_from_lines
from nastui.collectors.smart.fallback import labels_only, with_unread
from nastui.collectors.smart.pasted import restored
from nastui.collectors.smart.reading import (
    SmartReading,
    celsius,
    clean,
    first_int,
    present,
    self_test_passed,
)
from nastui.model import (
    DriveIdentity,
    NvmeHealth,
    ScsiHealth,
    SelfTest,
    SmartAttribute,
)
from nastui.model.errors import ParseError

STANDBY_GUARD = ("-n", "standby")
# smartctl's -d type -> the interface pySMART is told, chosen so it never runs a detection
# command of its own ("scsi" would make it probe sataphy/sasphy; "sas" reads as SCSI).
PYSMART_INTERFACE = {"sat": "sat", "scsi": "sas", "nvme": "nvme"}
Request = tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Answer:
    """smartctl's output for one command line: its lines (as `normalized_lines` gives them),
    exit status, and the attribute rows nastui could not read (left out of `lines`)."""

    lines: tuple[str, ...]
    status: int
    unread: tuple[str, ...] = ()


@cache
def pysmart_device() -> Callable[..., Any]:
    """pySMART's `Device` class, imported once with the process environment left as it was."""
    saved_lang = os.environ.get("LANG")
    saved_logger = logging.getLoggerClass()
    try:
        from pySMART import Device
    finally:
        if saved_lang is None:
            os.environ.pop("LANG", None)
        else:
            os.environ["LANG"] = saved_lang
        logging.setLoggerClass(saved_logger)
    return Device  # type: ignore[no-any-return]


class ReplaySmartctl:
    """pySMART's `Smartctl` seam, answering from outputs nastui ran (or read) itself.

    Every command line it is asked for carries `-n standby` first, whether pySMART meant to
    pass its options or not, and nothing can add options to it.
    """

    def __init__(self, answers: Mapping[Request, Answer]) -> None:
        self.options = list(STANDBY_GUARD)  # what pySMART reads as its options: fixed
        self.sudo = None
        self.smartctl_path = "smartctl"
        self._answers = answers
        self.asked: list[Request] = []
        self.unanswered: list[Request] = []

    def generic_call(
        self, params: Sequence[str], pass_options: bool = False
    ) -> tuple[list[str], int]:
        """pySMART's one way to run smartctl: answered, or noted as unanswered."""
        request = tuple(str(p) for p in params)
        self.asked.append(request)
        answer = self._answers.get(request)
        if answer is None:
            if request not in self.unanswered:
                self.unanswered.append(request)
            return [], 1
        return list(answer.lines), answer.status

    def try_generic_call(
        self, params: Sequence[str], pass_options: bool = False
    ) -> tuple[list[str], int]:
        """Same as `generic_call` (which never raises here)."""
        return self.generic_call(params, pass_options)

    def _query(self, flag: str, disk: str, interface: str | None) -> list[str]:
        params = ["-d", interface, flag, disk] if interface else [flag, disk]
        return self.generic_call(params, pass_options=True)[0]

    def all(self, disk: str, interface: str | None = None) -> list[str]:
        """`smartctl -d IFACE --all DISK`."""
        return self._query("--all", disk, interface)

    def info(self, disk: str, interface: str | None = None) -> list[str]:
        """`smartctl -d IFACE --info DISK`."""
        return self._query("--info", disk, interface)

    def health(self, disk: str, interface: str | None = None) -> list[str]:
        """`smartctl -d IFACE --health DISK`."""
        return self._query("--health", disk, interface)

    def add_options(self, new_options: list[str]) -> None:
        """Refused: pySMART's options accumulate on a shared object, so nastui never adds any."""
        raise TypeError(f"nastui gives pySMART no extra options (asked for {new_options})")


def first_request(dev: str, interface: str) -> Request:
    """The command line pySMART asks for first (`Device.update`): `-d TYPE --all /dev/DEV`."""
    return ("-d", interface, "--all", f"/dev/{dev}")


def command_line(request: Request, dev: str, device_path: str) -> tuple[str, ...]:
    """The argv that answers `request` for real: smartctl, the standby guard, the request with
    pySMART's "/dev/DEV" replaced by the device's real path (it differs under `--root`)."""
    args = [device_path if arg == f"/dev/{dev}" else arg for arg in request]
    return ("smartctl", *STANDBY_GUARD, *args)


def _self_tests(device: Any) -> tuple[SelfTest, ...]:
    tests = []
    for entry in device.tests or ():
        status = str(entry.status or "").strip()
        remain = first_int(getattr(entry, "remain", None))
        tests.append(
            SelfTest(
                kind=str(entry.type or "").strip(),
                status=status,
                passed=self_test_passed(status),
                lifetime_hours=first_int(entry.hours),
                remaining_percent=remain,
                first_error_lba=first_int(entry.LBA) if str(entry.LBA or "-").strip("- ") else None,
            )
        )
    return tuple(tests)


def _attribute(attr: Any) -> SmartAttribute:
    when = str(attr.when_failed or "-")
    return SmartAttribute(
        id=int(attr.num),
        name=str(attr.name),
        value=first_int(attr.value_str),
        worst=first_int(attr._worst),
        threshold=first_int(attr._thresh),
        raw=first_int(attr.raw),
        raw_string=str(attr.raw).strip(),
        prefailure=str(attr.type).lower().startswith("pre"),
        when_failed=None if when == "-" else when,
    )


def _nvme(ia: Any) -> NvmeHealth | None:
    return present(
        NvmeHealth(
            critical_warning=ia.criticalWarning,
            percentage_used=ia.percentageUsed,
            available_spare=ia.availableSpare,
            available_spare_threshold=ia.availableSpareThreshold,
            media_errors=ia.integrityErrors,
            unsafe_shutdowns=ia.unsafeShutdowns,
            power_on_hours=ia.powerOnHours,
            data_units_written=ia.dataUnitsWritten,
            error_log_entries=ia.errorEntries,
        )
    )


def _scsi(ia: Any) -> ScsiHealth | None:
    diag = ia.diagnostics
    return present(
        ScsiHealth(
            grown_defects=diag.Reallocated_Sector_Ct,
            uncorrected_read_errors=diag.Uncorrected_Reads,
            uncorrected_write_errors=diag.Uncorrected_Writes,
            uncorrected_verify_errors=diag.Uncorrected_Verifies,
            non_medium_errors=diag.Non_Medium_Errors,
            power_on_hours=diag.Power_On_Hours,
        )
    )


def _health_parts(
    device: Any,
) -> tuple[tuple[SmartAttribute, ...], NvmeHealth | None, ScsiHealth | None, int | None]:
    ia = device.if_attributes
    kind = type(ia).__name__
    if kind == "AtaAttributes":
        attrs = tuple(_attribute(a) for a in ia.legacyAttributes if a is not None)
        hours = next((a.raw for a in attrs if a.id == 9), None)
        return attrs, None, None, hours
    if kind == "NvmeAttributes":
        nvme = _nvme(ia)
        return (), nvme, None, nvme.power_on_hours if nvme else None
    if kind == "SCSIAttributes":
        scsi = _scsi(ia)
        return (), None, scsi, scsi.power_on_hours if scsi else None
    return (), None, None, None


def _identity(device: Any, lines: Sequence[str], interface: str) -> DriveIdentity:
    rpm = device.rotation_rate or None
    rotational = False if device.is_ssd else (True if rpm else None)
    return DriveIdentity(
        model=labels.model(lines) or clean(device.model),
        serial=labels.serial(lines) or clean(device.serial),
        wwn=smart_text.wwn(lines),
        firmware=clean(device.firmware),
        capacity_bytes=device._capacity or None,
        transport=labels.transport(lines, interface),
        rotational=rotational,
        rpm=rpm,
        vendor=clean(device._vendor),
    )


def _notes(device: Any, lines: Sequence[str]) -> tuple[str, ...]:
    notes = []
    if smart_text.standby_check_ignored(lines):
        notes.append("smartctl cannot check this drive's power mode: asking it may wake it")
    if device.smart_capable and not device.smart_enabled:
        notes.append("SMART is disabled on the drive (enable it: smartctl -s on DEVICE)")
    unknown = smart_text.overall_unknown(lines)
    if unknown is not None:
        notes.append(
            f"the drive's overall assessment is {unknown!r}: smartctl could not get it (a USB "
            "bridge that does not pass it through?); judged by the attributes alone"
        )
    return tuple(notes)


def reading_from_device(
    device: Any, lines: Sequence[str], interface: str, source: str
) -> SmartReading:
    """A parsed pySMART `Device` (and the text it read) as a `SmartReading`."""
    attrs, nvme, scsi, hours = _health_parts(device)
    if scsi is not None and scsi.non_medium_errors is None:
        scsi = dataclasses.replace(scsi, non_medium_errors=smart_text.non_medium_errors(lines))
    if hours is None and interface == "scsi":
        hours = labels.scsi_power_on_hours(lines)
    temperature = labels.temperature(lines, attrs) or celsius(device.temperature)
    return SmartReading(
        source=source,
        identity=_identity(device, lines, interface),
        power=smart_text.power_state(lines),
        temperature_c=temperature,
        smart_passed=smart_text.overall_assessment(lines),
        attributes=attrs,
        nvme=nvme,
        scsi=scsi,
        self_tests=_self_tests(device),
        power_on_hours=hours,
        version=smart_text.version(lines),
        notes=_notes(device, lines),
        standby_check_unsupported=smart_text.standby_check_ignored(lines),
        ata_errors=errors_from_lines(lines),
        attributes_missing=interface == "sat"
        and not attrs
        and smart_text.overall_assessment(lines) is not None,
    )


def parse_answers(
    dev: str, interface: str, answers: Mapping[Request, Answer], source: str
) -> tuple[SmartReading, list[Request]]:
    """Let pySMART parse `answers` for /dev/`dev`; returns the reading and what it still asked for.

    Raises:
        ParseError: pySMART could not make sense of the output.
    """
    first = answers.get(first_request(dev, interface))
    lines = first.lines if first is not None else ()
    unread = first.unread if first is not None else ()
    replay = ReplaySmartctl(answers)
    device_class = pysmart_device()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            device = device_class(dev, interface=PYSMART_INTERFACE[interface], smartctl=replay)
        # pySMART is third-party code reading arbitrary text: whatever it raises, the answer
        # for nastui is "this output could not be parsed", named.
        reading = reading_from_device(device, lines, interface, source)
    except Exception as exc:
        why = f"pySMART could not read it ({type(exc).__name__}: {exc})"
        if not lines:
            raise ParseError(source, why) from exc
        return with_unread(labels_only(lines, interface, source, why), unread), []
    return with_unread(reading, unread), replay.unanswered


def parse_text(text: str, source: str, dev: str = "sda") -> SmartReading:
    """A saved `smartctl -a`/`-x` text report, parsed the way the live path parses a drive.

    A report as pasted into mail or a forum is put back into smartctl's layout first
    (`nastui.collectors.smart.pasted`: wrapped rows joined, quote marks and fragments), each
    repair named in the reading's notes.

    Raises:
        ParseError: it is not a smartctl report, or pySMART could not read it.
    """
    text, repairs = restored(text)
    lines = smart_text.normalized_lines(text)
    interface = smart_text.interface_of(lines, source)
    if not labels.has_banner(lines):
        # pySMART skips the first four lines (smartctl's banner) whatever they hold
        lines = ["smartctl banner missing from this report", "", "", "", *lines]
    standby = smart_text.power_state(lines)
    if standby.spun_down:
        return SmartReading(source=source, power=standby, version=smart_text.version(lines))
    unread = tuple(smart_text.unread_attribute_rows(text.splitlines()))
    answers = {first_request(dev, interface): Answer(tuple(lines), 0, unread)}
    reading, _ = parse_answers(dev, interface, answers, source)
    return dataclasses.replace(reading, notes=(*repairs, *reading.notes)) if repairs else reading
