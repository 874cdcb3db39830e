"""The drive detail view: identity, power, temperature with its age, verdict with reasons, the
SMART attribute table with change since first seen, NVMe/SAS counters and the self-test log."""

from __future__ import annotations

from collections.abc import Mapping

from rich.text import Text

from nastui.core import units
from nastui.core.baystate import BayState, health_word
from nastui.core.glyphs import Glyphs
from nastui.core.health import NO_SMART, awaiting_smart
from nastui.model import Drive, HostSnapshot, LedState
from nastui.ui.render.style import DIM, HEALTH_STYLE, LABEL, degrees, fit


def _field(text: Text, label: str, value: str) -> None:
    text.append(f"{label} ", style=DIM)
    text.append(value + "  ")


def identity_text(drive: Drive, snapshot: HostSnapshot, glyphs: Glyphs) -> Text:
    """Heading and identity block."""
    ident = drive.identity
    bay = snapshot.bay_of(drive.key)
    found = snapshot.pool_of(drive.key)
    text = Text()
    text.append(f"{drive.dev}  {ident.model or 'unknown model'}", style=LABEL)
    where = [f"bay {bay}" if bay is not None else "in no bay"]
    if found:
        where.append(f"{found[0].name}/{found[1]}")
    text.append(f"   ({', '.join(where)})\n")
    _field(text, "serial", ident.serial or "?")
    _field(text, "WWN", ident.wwn or "-")
    _field(text, "firmware", ident.firmware or "?")
    text.append("\n")
    _field(text, "capacity", units.size(ident.capacity_bytes))
    _field(text, "transport", ident.transport.value)
    rotation = f"{ident.rpm} rpm" if ident.rpm else ("SSD" if ident.rotational is False else "?")
    _field(text, "rotation", rotation)
    if drive.power_on_hours is not None:
        _field(text, "power-on", f"{drive.power_on_hours} h")
    if drive.by_path or drive.slot or drive.by_vdev:
        text.append("\n")
    if drive.by_path:
        _field(text, "port", drive.by_path)
    if drive.by_vdev:
        _field(text, "vdev name", drive.by_vdev)
    if drive.slot:
        _field(text, "slot", f"{drive.slot.ref} ({drive.slot.source})")
    if drive.partitions or drive.holders:
        text.append("\n")
        _field(text, "partitions", " ".join(drive.partitions) or "-")
        if drive.holders:
            _field(text, "held by", " ".join(drive.holders))
    return text


def state_text(drive: Drive, snapshot: HostSnapshot, glyphs: Glyphs) -> Text:
    """Power state, LED, temperature with its age (last: the long one, wrapped within itself
    on a narrow screen) and the verdict with every reason."""
    now = snapshot.taken_at
    text = Text()
    _field(text, "power", drive.power.value)
    bay = snapshot.bay_of(drive.key)
    slot = snapshot.slot(bay) if bay is not None else None
    if slot is not None and slot.led is not LedState.UNKNOWN:
        _field(text, "LED", slot.led.value)
    if drive.wakeups is not None:
        _field(text, "wake-ups by nastui", str(drive.wakeups))
    temp = drive.temperature
    if temp is None:
        _field(text, "temperature", "not read")
    else:
        stale = " (stale: drive asleep)" if drive.power.spun_down else ""
        age = units.age(temp.age(now))
        _field(
            text,
            "temperature",
            f"{degrees(temp.celsius, glyphs)}, {age}, {temp.source.value}{stale}",
        )
    text.append("\nhealth ", style=DIM)
    verdict = drive.verdict
    reading = awaiting_smart(drive)
    text.append(health_word(drive), style=DIM if reading else HEALTH_STYLE[verdict.health])
    read_at = drive.smart_read_at
    text.append(f"   SMART read {units.age(now - read_at) if read_at else 'never'}", style=DIM)
    for reason in verdict.reasons:
        if reason.acknowledged:
            text.append("\n  = ", style=DIM)
            text.append(reason.text, style=DIM)
            continue
        mark = "!" if reason.health.rank >= 2 else "?"
        if reading and reason.key == NO_SMART:
            text.append(f"\n  {BayState.READING.mark} ", style=DIM)
        else:
            text.append(f"\n  {mark} ", style=HEALTH_STYLE[reason.health])
        text.append(reason.text)
    return text


def attributes_text(drive: Drive, baseline: Mapping[int, int], width: int, glyphs: Glyphs) -> Text:
    """The ATA attribute table: normalized, worst, threshold, raw and change since first seen."""
    if not drive.attributes:
        return Text("no ATA SMART attributes", style=DIM)
    name_w = max(12, min(28, width - 46))
    text = Text()
    text.append(
        f"{'ID':>3} {'ATTRIBUTE':<{name_w}} {'VALUE':>5} {'WORST':>5} {'THRESH':>6} "
        f"{'RAW':>12} {'CHANGE':>7}",
        style=LABEL,
    )
    for attr in drive.attributes:
        first = baseline.get(attr.id)
        change = (
            ""
            if first is None or attr.raw is None or attr.raw == first
            else f"{attr.raw - first:+d}"
        )
        raw = attr.raw_string or (str(attr.raw) if attr.raw is not None else "-")
        line = (
            f"\n{attr.id:>3} {fit(attr.name, name_w, glyphs):<{name_w}} "
            f"{_num(attr.value):>5} {_num(attr.worst):>5} {_num(attr.threshold):>6} "
            f"{fit(raw, 12, glyphs):>12} {change:>7}"
        )
        style = "bold red" if attr.failing else ("yellow" if change else "")
        text.append(line, style=style)
    return text


def _num(value: int | None) -> str:
    return "-" if value is None else str(value)


def counters_text(drive: Drive) -> Text | None:
    """NVMe health log or SAS counters, when the drive has them."""
    pairs: list[tuple[str, int | None]] = []
    if drive.nvme is not None:
        n = drive.nvme
        pairs = [
            ("critical warning", n.critical_warning),
            ("percentage used", n.percentage_used),
            ("available spare", n.available_spare),
            ("spare threshold", n.available_spare_threshold),
            ("media errors", n.media_errors),
            ("unsafe shutdowns", n.unsafe_shutdowns),
            ("error log entries", n.error_log_entries),
        ]
    elif drive.scsi is not None:
        s = drive.scsi
        pairs = [
            ("grown defects", s.grown_defects),
            ("uncorrected read errors", s.uncorrected_read_errors),
            ("uncorrected write errors", s.uncorrected_write_errors),
            ("uncorrected verify errors", s.uncorrected_verify_errors),
            ("non-medium errors", s.non_medium_errors),
        ]
    if not pairs:
        return None
    text = Text()
    for label, value in pairs:
        _field(text, label, _num(value))
    return text


def self_tests_text(drive: Drive) -> Text:
    """The self-test log, newest first."""
    if not drive.self_tests:
        return Text("no self-tests logged", style=DIM)
    text = Text()
    for i, test in enumerate(drive.self_tests[:10]):
        style = "bold red" if test.passed is False else ""
        hours = f"{test.lifetime_hours} h" if test.lifetime_hours is not None else "? h"
        lba = f"  LBA {test.first_error_lba}" if test.first_error_lba is not None else ""
        text.append(
            ("\n" if i else "") + f"{test.kind:<18} {test.status:<32} {hours:>9}{lba}", style=style
        )
    return text
