"""Drive health verdicts with reasons (pure).

`drive_verdict` reads one drive's SMART data, temperature and self-test log against the
configured limits and says OK, WARNING, CRITICAL or UNKNOWN, with every finding spelled out:
"Current_Pending_Sector 8 (+3 since first seen)". `baseline` holds the raw values first seen for
this drive, so growth is reported, and growth alone can warn where the absolute count is
meaningless (UDMA CRC errors: a cable, not the disk).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from nastui.model import (
    Drive,
    Health,
    NvmeHealth,
    Reason,
    ScsiHealth,
    SmartAttribute,
    Thresholds,
    Verdict,
)

CRC_ERRORS = 199

# NVMe critical_warning bits (NVM Express base spec, SMART / Health log byte 0).
_NVME_WARNING_BITS = (
    (0x01, "available spare below threshold"),
    (0x02, "temperature outside limits"),
    (0x04, "reliability degraded by media or internal errors"),
    (0x08, "media is read-only"),
    (0x10, "volatile memory backup failed"),
    (0x20, "persistent memory region read-only"),
)


def _delta(attr: SmartAttribute, baseline: Mapping[int, int]) -> str:
    first = baseline.get(attr.id)
    if first is None or attr.raw is None or attr.raw == first:
        return ""
    return f" ({attr.raw - first:+d} since first seen)"


def _attribute_reasons(
    drive: Drive, limits: Thresholds, baseline: Mapping[int, int]
) -> Iterator[Reason]:
    for attr in drive.attributes:
        key = f"attr:{attr.id}"
        if attr.failing:
            yield Reason(
                Health.CRITICAL,
                f"{attr.name} normalized {attr.value} at or below threshold {attr.threshold}",
                key,
            )
            continue
        limit = limits.attribute(attr.id)
        if limit is not None and attr.raw is not None:
            text = f"{attr.name} {attr.raw}{_delta(attr, baseline)}"
            if limit.critical is not None and attr.raw >= limit.critical:
                yield Reason(Health.CRITICAL, text, key)
                continue
            if limit.warning is not None and attr.raw >= limit.warning:
                yield Reason(Health.WARNING, text, key)
                continue
        if attr.id == CRC_ERRORS and _delta(attr, baseline):
            yield Reason(
                Health.WARNING,
                f"{attr.name} {attr.raw}{_delta(attr, baseline)}: "
                "check the cable or backplane, not the disk",
                key,
            )


def _nvme_reasons(nvme: NvmeHealth, limits: Thresholds) -> Iterator[Reason]:
    if nvme.critical_warning:
        bits = [text for bit, text in _NVME_WARNING_BITS if nvme.critical_warning & bit]
        yield Reason(
            Health.CRITICAL,
            f"NVMe critical warning 0x{nvme.critical_warning:02x}: " + ", ".join(bits or ["?"]),
            "nvme:critical_warning",
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
        yield Reason(Health.WARNING, f"{used}% of rated endurance used", "nvme:used")
    if nvme.media_errors:
        yield Reason(
            Health.WARNING, f"{nvme.media_errors} media and data integrity errors", "nvme:media"
        )


def _scsi_reasons(scsi: ScsiHealth) -> Iterator[Reason]:
    if scsi.grown_defects:
        health = Health.CRITICAL if scsi.grown_defects >= 100 else Health.WARNING
        yield Reason(health, f"grown defect list: {scsi.grown_defects} entries", "scsi:defects")
    for count, what, key in (
        (scsi.uncorrected_read_errors, "uncorrected read errors", "scsi:read"),
        (scsi.uncorrected_write_errors, "uncorrected write errors", "scsi:write"),
        (scsi.uncorrected_verify_errors, "uncorrected verify errors", "scsi:verify"),
    ):
        if count:
            yield Reason(Health.WARNING, f"{count} {what}", key)


def _temperature_reasons(drive: Drive, limits: Thresholds, now: float) -> Iterator[Reason]:
    temp = drive.temperature
    if temp is None:
        return
    lim = limits.temps[drive.identity.drive_class]
    reading = f"temperature {temp.celsius:.0f} °C"
    if temp.celsius >= lim.critical:
        yield Reason(Health.CRITICAL, f"{reading} (critical {lim.critical:.0f} °C)", "temp")
    elif temp.celsius >= lim.warning:
        yield Reason(Health.WARNING, f"{reading} (warning {lim.warning:.0f} °C)", "temp")
    age = temp.age(now)
    if not drive.power.spun_down and age > limits.stale_after_s:
        yield Reason(Health.UNKNOWN, f"temperature reading is {age / 60:.0f} min old", "temp-age")


def _self_test_reasons(drive: Drive) -> Iterator[Reason]:
    if drive.self_tests and drive.self_tests[0].passed is False:
        test = drive.self_tests[0]
        where = f" at LBA {test.first_error_lba}" if test.first_error_lba is not None else ""
        yield Reason(
            Health.WARNING, f"last self-test ({test.kind}): {test.status}{where}", "selftest"
        )


def _has_smart(drive: Drive) -> bool:
    return (
        drive.smart_passed is not None
        or bool(drive.attributes)
        or drive.nvme is not None
        or drive.scsi is not None
    )


def drive_verdict(
    drive: Drive, limits: Thresholds, now: float, baseline: Mapping[int, int] | None = None
) -> Verdict:
    """The health verdict for one drive.

    Args:
        drive: the drive as collected.
        limits: configured thresholds.
        now: the current Unix time (for reading ages).
        baseline: attribute id -> raw value first seen for this drive.
    """
    reasons: list[Reason] = []
    if drive.smart_passed is False:
        reasons.append(
            Reason(Health.CRITICAL, "SMART overall-health self-assessment: FAILED", "smart")
        )
    reasons += _attribute_reasons(drive, limits, baseline or {})
    if drive.nvme is not None:
        reasons += _nvme_reasons(drive.nvme, limits)
    if drive.scsi is not None:
        reasons += _scsi_reasons(drive.scsi)
    reasons += _temperature_reasons(drive, limits, now)
    reasons += _self_test_reasons(drive)
    if not _has_smart(drive):
        why = "in standby, SMART not read yet" if drive.power.spun_down else "no SMART data"
        reasons.append(Reason(Health.UNKNOWN, why, "no-smart"))
    return Verdict.of(reasons)


def first_seen(drive: Drive, known: Mapping[int, int] | None = None) -> dict[int, int]:
    """`known` extended with the raw values of attributes seen for the first time."""
    result = dict(known or {})
    for attr in drive.attributes:
        if attr.raw is not None and attr.id not in result:
            result[attr.id] = attr.raw
    return result
