"""Drive health verdicts with reasons (pure).

`drive_verdict` reads one drive's SMART data, temperature and self-test log against the
configured limits and says OK, WARNING, CRITICAL or UNKNOWN, with every finding spelled out:
"Current_Pending_Sector 8 (+3 since first seen)". `baseline` holds the raw values first seen for
this drive, so growth is reported, and growth alone can warn where the absolute count is
meaningless (UDMA CRC errors: a cable, not the disk; command timeouts; an SSD's retired blocks,
which are also judged by their normalized value, not by raw > 0). The operator's
acknowledgements (`Drive.acks`, see `nastui.core.ack`) turn a known value into the new baseline.

Raw values are compared as counts, and some vendors pack more than a count into them: Seagate's
attributes 1, 7 and 195 carry an operation count in the low 32 bits and the error count in the
16 above, and a count too large to be real is read from its low word (`unpacked`), so a limit
never fires on an operation count or a vendor's packing.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from nastui.core.ack import apply_acks
from nastui.model import (
    Acknowledgement,
    AtaError,
    Drive,
    DriveClass,
    DriveIdentity,
    Health,
    NvmeHealth,
    Reason,
    ScsiHealth,
    SmartAttribute,
    Thresholds,
    Verdict,
)

CRC_ERRORS = 199
COMMAND_TIMEOUT = 188
GROWTH_ONLY = {CRC_ERRORS: ": check the cable or backplane, not the disk", COMMAND_TIMEOUT: ""}
SEAGATE_PACKED = frozenset({1, 7, 195})
COUNTS = frozenset({5, 10, 187, 188, 196, 197, 198, 199})
RETIRED_BLOCKS = frozenset({5, 196})  # on an SSD: retired flash blocks, reallocation events
# A report whose attribute table is missing (cut short): what it shows is not the whole story.
INCOMPLETE = "no SMART attribute table in the report (cut short?): health not known"
SELF_TEST_WRAP = 1 << 16  # ATA and SCSI logs keep power-on hours in 16 bits (NVMe in 64)
# The finding of a drive without SMART data: none could be read, or its first read is under way
# (`Drive.smart_pending`: UNKNOWN to a monitoring plugin, which cannot wait for it; "being
# read" to the interface, which can). One key for both, so the alert stays one alert when a
# read under way ends without data.
NO_SMART = "no-smart"

# NVMe critical_warning bits (NVM Express base spec, SMART / Health log byte 0).
_NVME_WARNING_BITS = (
    (0x01, "available spare below threshold"),
    (0x02, "temperature outside limits"),
    (0x04, "reliability degraded by media or internal errors"),
    (0x08, "media is read-only"),
    (0x10, "volatile memory backup failed"),
    (0x20, "persistent memory region read-only"),
)


def is_seagate(identity: DriveIdentity) -> bool:
    """Seagate drives, by vendor or by their "ST..." model numbers."""
    vendor = (identity.vendor or "").lower()
    model = identity.model or ""
    return vendor == "seagate" or model.startswith(("ST", "Seagate", "SEAGATE"))


def effective_raw(attr: SmartAttribute, identity: DriveIdentity) -> int | None:
    """The count an attribute's raw value stands for (see `unpacked`)."""
    return unpacked(attr.id, attr.raw, attr.raw_string, identity)


def unpacked(attr_id: int, raw: int | None, raw_string: str, identity: DriveIdentity) -> int | None:
    """A raw value as a count: Seagate's 1/7/195 keep errors in the upper 16 of 48 bits, unless
    smartctl already split them ("0/163250328", raw24/raw32: its first number is the count).
    A sector or error count of 2**32 or more cannot be real (a 20 TB disk has fewer sectors):
    such a raw value is packed, and its low 16 bits hold the count (HGST/Hitachi 187)."""
    if raw is None:
        return None
    if attr_id in SEAGATE_PACKED and "/" not in raw_string:
        return raw >> 32 if is_seagate(identity) else raw
    if attr_id in COUNTS and raw >= 1 << 32:
        return raw & 0xFFFF
    return raw


def _delta(
    drive: Drive, attr: SmartAttribute, baseline: Mapping[int, int], ack: Acknowledgement | None
) -> str:
    value = effective_raw(attr, drive.identity)
    if value is None:
        return ""
    if ack is not None and ack.value is not None and value > ack.value:
        return f" ({value - ack.value:+d} since acknowledged at {ack.value})"
    first = unpacked(attr.id, baseline.get(attr.id), attr.raw_string, drive.identity)
    if first is None or value == first:
        return ""
    return f" ({value - first:+d} since first seen)"


def _limit_reason(
    attr: SmartAttribute, value: int, limits: Thresholds, delta: str
) -> Reason | None:
    limit = limits.attribute(attr.id)
    if limit is None:
        return None
    key = f"attr:{attr.id}"
    text = f"{attr.name} {value}{delta}"
    if limit.critical is not None and value >= limit.critical:
        return Reason(Health.CRITICAL, text, key, value)
    if limit.warning is not None and value >= limit.warning:
        return Reason(Health.WARNING, text, key, value)
    return None


def _ssd_retired_reason(
    drive: Drive, attr: SmartAttribute, limits: Thresholds, delta: str
) -> Reason | None:
    """An SSD's retired blocks: spares are made for them, so a handful is normal; the drive's
    normalized value (how much spare is left) and growth are what matter."""
    value = effective_raw(attr, drive.identity)
    key = f"attr:{attr.id}"
    text = f"{attr.name} {value} retired blocks, normalized {attr.value}{delta}"
    if attr.value is not None and attr.value < limits.ssd_retired_normalized_warning:
        floor = limits.ssd_retired_normalized_warning
        return Reason(Health.WARNING, f"{text} (below {floor})", key, value)
    if delta:
        return Reason(Health.WARNING, text, key, value)
    return None


def _judged_as_ssd(drive: Drive, attr: SmartAttribute) -> bool:
    return (
        attr.id in RETIRED_BLOCKS
        and drive.identity.drive_class is DriveClass.SSD
        and attr.value is not None
    )


def _attribute_reason(
    drive: Drive,
    attr: SmartAttribute,
    limits: Thresholds,
    baseline: Mapping[int, int],
    acks: Mapping[str, Acknowledgement],
) -> Reason | None:
    key = f"attr:{attr.id}"
    if attr.failing:
        text = f"{attr.name} normalized {attr.value} at or below threshold {attr.threshold}"
        return Reason(Health.CRITICAL, text, key)
    if _judged_as_ssd(drive, attr):
        return _ssd_retired_reason(
            drive, attr, limits, _delta(drive, attr, baseline, acks.get(key))
        )
    value = effective_raw(attr, drive.identity)
    if value is not None:
        delta = _delta(drive, attr, baseline, acks.get(key))
        found = _limit_reason(attr, value, limits, delta)
        if found is not None:
            return found
        if attr.id in GROWTH_ONLY and delta:
            text = f"{attr.name} {value}{delta}{GROWTH_ONLY[attr.id]}"
            return Reason(Health.WARNING, text, key, value)
    if attr.when_failed == "In_the_past" and attr.prefailure:
        text = f"{attr.name} failed in the past (worst {attr.worst}, threshold {attr.threshold})"
        return Reason(Health.WARNING, text, f"{key}:past")
    return None


def _attribute_reasons(
    drive: Drive, limits: Thresholds, baseline: Mapping[int, int]
) -> Iterator[Reason]:
    acks = {ack.key: ack for ack in drive.acks}
    for attr in drive.attributes:
        reason = _attribute_reason(drive, attr, limits, baseline, acks)
        if reason is not None:
            yield reason


# The attribute findings last worked out for each drive, with what they were worked out from.
# SMART is read every few minutes and the verdict asked for every few seconds: the findings
# are worked out again only when a read (or a limit, an acknowledgement, a baseline) changed.
_ATTRIBUTE_MEMO: dict[str, tuple[tuple[object, ...], tuple[Reason, ...]]] = {}
_MEMO_LIMIT = 4096


def attribute_findings(
    drive: Drive, limits: Thresholds, baseline: Mapping[int, int]
) -> tuple[Reason, ...]:
    """The findings of `drive`'s attribute table against `limits` and `baseline`."""
    inputs = (drive.attributes, drive.identity, drive.acks, limits, dict(baseline))
    last = _ATTRIBUTE_MEMO.get(drive.key)
    if last is not None and last[0] == inputs:
        return last[1]
    found = tuple(_attribute_reasons(drive, limits, baseline))
    if len(_ATTRIBUTE_MEMO) >= _MEMO_LIMIT:
        _ATTRIBUTE_MEMO.clear()
    _ATTRIBUTE_MEMO[drive.key] = (inputs, found)
    return found


def _nvme_reasons(nvme: NvmeHealth, limits: Thresholds) -> Iterator[Reason]:
    if nvme.critical_warning:
        bits = [text for bit, text in _NVME_WARNING_BITS if nvme.critical_warning & bit]
        yield Reason(
            Health.CRITICAL,
            f"NVMe critical warning 0x{nvme.critical_warning:02x}: " + ", ".join(bits or ["?"]),
            "nvme:critical_warning",
            nvme.critical_warning,
        )
    spare, floor = nvme.available_spare, nvme.available_spare_threshold
    if spare is not None and floor is not None and spare < floor:
        yield Reason(
            Health.CRITICAL,
            f"available spare {spare}% below threshold {floor}%",
            "nvme:spare",
        )
    used = nvme.percentage_used
    if used is not None and used >= limits.nvme_percent_used_warning:
        yield Reason(Health.WARNING, f"{used}% of rated endurance used", "nvme:used", used)
    if nvme.media_errors:
        yield Reason(
            Health.WARNING,
            f"{nvme.media_errors} media and data integrity errors",
            "nvme:media",
            nvme.media_errors,
        )


def _scsi_reasons(scsi: ScsiHealth) -> Iterator[Reason]:
    if scsi.grown_defects:
        health = Health.CRITICAL if scsi.grown_defects >= 100 else Health.WARNING
        yield Reason(
            health,
            f"grown defect list: {scsi.grown_defects} entries",
            "scsi:defects",
            scsi.grown_defects,
        )
    for count, what, key in (
        (scsi.uncorrected_read_errors, "uncorrected read errors", "scsi:read"),
        (scsi.uncorrected_write_errors, "uncorrected write errors", "scsi:write"),
        (scsi.uncorrected_verify_errors, "uncorrected verify errors", "scsi:verify"),
    ):
        if count:
            yield Reason(Health.WARNING, f"{count} {what}", key, count)


def _temperature_reasons(
    drive: Drive, limits: Thresholds, now: float, bay: int | None
) -> Iterator[Reason]:
    temp = drive.temperature
    if temp is None:
        return
    lim = limits.temp_limits(drive.identity.drive_class, drive.identity.model, bay)
    reading = f"temperature {temp.celsius:.0f} °C"
    if temp.celsius >= lim.critical:
        yield Reason(Health.CRITICAL, f"{reading} (critical {lim.critical:.0f} °C)", "temp")
    elif temp.celsius >= lim.warning:
        yield Reason(Health.WARNING, f"{reading} (warning {lim.warning:.0f} °C)", "temp")
    age = temp.age(now)
    if not drive.power.spun_down and age > limits.stale_after_s:
        yield Reason(Health.UNKNOWN, f"temperature reading is {age / 60:.0f} min old", "temp-age")


def hours_ago(drive: Drive, at_hour: int | None) -> int | None:
    """Power-on hours since `at_hour` (a log's 16-bit hour counter wraps at 65536). A log
    entry stamped later than the drive's power-on hours (some drives keep the two on separate
    clocks: Hitachi, WD) cannot be old: it counts as now."""
    now = drive.power_on_hours
    if now is None or at_hour is None:
        return None
    if _wrapped(drive, at_hour):
        return (now - at_hour) % SELF_TEST_WRAP
    return max(now - at_hour, 0)


def _wrapped(drive: Drive, at_hour: int) -> bool:
    now = drive.power_on_hours
    return drive.nvme is None and now is not None and now >= SELF_TEST_WRAP > at_hour


def unwrapped(drive: Drive, at_hour: int) -> int:
    """A log's 16-bit power-on hour as the drive's full count (1248 -> 66784 on a drive at
    66951 hours)."""
    now = drive.power_on_hours
    if now is not None and _wrapped(drive, at_hour):
        return now - (now - at_hour) % SELF_TEST_WRAP
    return at_hour


def _self_test_reasons(drive: Drive, limits: Thresholds) -> Iterator[Reason]:
    if drive.self_tests and drive.self_tests[0].passed is False:
        test = drive.self_tests[0]
        where = f" at LBA {test.first_error_lba}" if test.first_error_lba is not None else ""
        age = hours_ago(drive, test.lifetime_hours)
        recent = age is not None and age <= limits.selftest_recent_hours
        read_failure = "read" in test.status.lower()
        health = Health.CRITICAL if recent and read_failure else Health.WARNING
        when = f", {age} power-on hours ago" if age is not None else ""
        yield Reason(
            health,
            f"last self-test ({test.kind}): {test.status}{where}{when}",
            "selftest",
            test.lifetime_hours,
        )


def _unc_reasons(drive: Drive, limits: Thresholds) -> Iterator[Reason]:
    """Uncorrectable reads (UNC) in the ATA error log within the recent power-on hours."""
    recent: list[AtaError] = []
    for error in drive.ata_errors:
        age = hours_ago(drive, error.lifetime_hours)
        if error.uncorrectable and age is not None and age <= limits.unc_recent_hours:
            recent.append(error)
    if recent:
        newest = recent[0]
        where = f" at LBA {newest.lba}" if newest.lba is not None else ""
        hour = unwrapped(drive, newest.lifetime_hours)
        more = (
            f" ({len(recent)} in the last {limits.unc_recent_hours} h)" if len(recent) > 1 else ""
        )
        yield Reason(
            Health.WARNING,
            f"uncorrectable read error (UNC){where} at power-on hour {hour}{more}",
            "errlog:unc",
            hour,
        )


def _no_smart_reason(drive: Drive) -> Reason:
    if drive.power.spun_down:
        why = "in standby, SMART not read yet"
    elif drive.smart_pending:
        why = "SMART read under way"
    else:
        why = drive.smart_problem or "no SMART data"
    return Reason(Health.UNKNOWN, why, NO_SMART)


def reading_smart(drive: Drive) -> bool:
    """The drive's first SMART read is under way: its no-SMART finding says so (a drive in
    standby says that instead: it is not read)."""
    return drive.smart_pending and not drive.power.spun_down


def awaiting_smart(drive: Drive) -> bool:
    """The drive's verdict is UNKNOWN only because its first SMART read is under way: every
    finding that is not OK is that one (a temperature warning, a stale reading, are not)."""
    verdict = drive.verdict
    if not reading_smart(drive) or verdict.health is not Health.UNKNOWN:
        return False
    open_reasons = [r for r in verdict.reasons if r.health is not Health.OK and not r.acknowledged]
    return bool(open_reasons) and all(r.key == NO_SMART for r in open_reasons)


def drive_verdict(
    drive: Drive,
    limits: Thresholds,
    now: float,
    baseline: Mapping[int, int] | None = None,
    bay: int | None = None,
) -> Verdict:
    """The health verdict for one drive.

    Args:
        drive: the drive as collected (with the operator's acknowledgements in `acks`).
        limits: configured thresholds.
        now: the current Unix time (for reading ages).
        baseline: attribute id -> raw value first seen for this drive.
        bay: the bay the drive sits in, for per-bay temperature limits.
    """
    reasons: list[Reason] = []
    if drive.smart_passed is False:
        reasons.append(
            Reason(Health.CRITICAL, "SMART overall-health self-assessment: FAILED", "smart")
        )
    reasons += attribute_findings(drive, limits, baseline or {})
    if drive.nvme is not None:
        reasons += _nvme_reasons(drive.nvme, limits)
    if drive.scsi is not None:
        reasons += _scsi_reasons(drive.scsi)
    reasons += _temperature_reasons(drive, limits, now, bay)
    reasons += _self_test_reasons(drive, limits)
    reasons += _unc_reasons(drive, limits)
    if not drive.has_smart:
        reasons.append(_no_smart_reason(drive))
    elif drive.smart_problem == INCOMPLETE:
        reasons.append(Reason(Health.UNKNOWN, INCOMPLETE, "smart-incomplete"))
    elif drive.smart_problem and not drive.power.spun_down:
        text = f"{drive.smart_problem} (the SMART data shown is from the last read that worked)"
        reasons.append(Reason(Health.UNKNOWN, text, "smart-stale"))
    return Verdict.of(apply_acks(reasons, drive.acks))


def first_seen(drive: Drive, known: Mapping[int, int] | None = None) -> dict[int, int]:
    """`known` extended with the raw values of attributes seen for the first time."""
    result = dict(known or {})
    for attr in drive.attributes:
        if attr.raw is not None and attr.id not in result:
            result[attr.id] = attr.raw
    return result
