"""Drive verdicts: every rule, with its reason text."""

from __future__ import annotations

import dataclasses

from nastui.core.health import drive_verdict, first_seen
from nastui.model import (
    Drive,
    DriveIdentity,
    Health,
    NvmeHealth,
    PowerState,
    ScsiHealth,
    SelfTest,
    SmartAttribute,
    Temperature,
    TempSource,
    Thresholds,
    Transport,
    Verdict,
    worst,
)

NOW = 1_000_000.0
LIMITS = Thresholds()
HDD = DriveIdentity(
    model="HGST HUS724040ALA640", serial="PK1", rotational=True, transport=Transport.SATA
)


def attr(
    attr_id: int, name: str, raw: int, *, value: int = 100, threshold: int = 0
) -> SmartAttribute:
    return SmartAttribute(attr_id, name, value, value, threshold, raw, str(raw))


def hdd(*attrs: SmartAttribute, temp: float | None = 35, **kw: object) -> Drive:
    temperature = Temperature(temp, NOW - 10, TempSource.SMART) if temp is not None else None
    base = Drive("sda", HDD, smart_passed=True, attributes=attrs, temperature=temperature)
    return dataclasses.replace(base, **kw)  # type: ignore[arg-type]


def texts(verdict: Verdict) -> list[str]:
    return [r.text for r in verdict.reasons]


def test_healthy_drive_is_ok_with_no_reasons() -> None:
    verdict = drive_verdict(hdd(attr(5, "Reallocated_Sector_Ct", 0)), LIMITS, NOW)
    assert verdict == Verdict(Health.OK, ())


def test_failed_overall_assessment_is_critical() -> None:
    verdict = drive_verdict(hdd(smart_passed=False), LIMITS, NOW)
    assert verdict.health is Health.CRITICAL
    assert "FAILED" in verdict.summary


def test_pending_sectors_warn_with_growth_since_first_seen() -> None:
    drive = hdd(attr(197, "Current_Pending_Sector", 8))
    verdict = drive_verdict(drive, LIMITS, NOW, baseline={197: 5})
    assert verdict.health is Health.WARNING
    assert texts(verdict) == ["Current_Pending_Sector 8 (+3 since first seen)"]


def test_many_reallocated_sectors_are_critical() -> None:
    verdict = drive_verdict(hdd(attr(5, "Reallocated_Sector_Ct", 120)), LIMITS, NOW)
    assert verdict.health is Health.CRITICAL


def test_normalized_value_at_threshold_is_critical() -> None:
    failing = attr(1, "Raw_Read_Error_Rate", 0, value=16, threshold=16)
    verdict = drive_verdict(hdd(failing), LIMITS, NOW)
    assert verdict.health is Health.CRITICAL
    assert texts(verdict) == ["Raw_Read_Error_Rate normalized 16 at or below threshold 16"]


def test_packed_seagate_raw_values_do_not_alarm() -> None:
    # Seagate packs error counts and operation counts into one 48-bit raw value: huge raws
    # on attributes 1, 7 and 195 are normal and must not warn.
    drive = hdd(
        attr(1, "Raw_Read_Error_Rate", 163_250_328, value=82, threshold=44),
        attr(7, "Seek_Error_Rate", 8_592_128_421, value=88, threshold=45),
        attr(195, "Hardware_ECC_Recovered", 163_250_328, value=82, threshold=0),
    )
    assert drive_verdict(drive, LIMITS, NOW).health is Health.OK


def test_crc_errors_only_warn_when_they_grow_and_blame_the_cable() -> None:
    drive = hdd(attr(199, "UDMA_CRC_Error_Count", 12))
    assert drive_verdict(drive, LIMITS, NOW, baseline={199: 12}).health is Health.OK
    grown = drive_verdict(drive, LIMITS, NOW, baseline={199: 8})
    assert grown.health is Health.WARNING
    assert "cable" in grown.summary and "+4" in grown.summary


def test_temperature_limits_per_class() -> None:
    assert drive_verdict(hdd(temp=49), LIMITS, NOW).health is Health.OK
    assert drive_verdict(hdd(temp=50), LIMITS, NOW).health is Health.WARNING
    hot = drive_verdict(hdd(temp=56), LIMITS, NOW)
    assert hot.health is Health.CRITICAL
    assert texts(hot) == ["temperature 56 °C (critical 55 °C)"]
    ssd = dataclasses.replace(hdd(temp=56), identity=dataclasses.replace(HDD, rotational=False))
    assert drive_verdict(ssd, LIMITS, NOW).health is Health.OK


def test_stale_temperature_of_an_active_drive_is_unknown() -> None:
    drive = hdd(temperature=Temperature(35, NOW - 3600, TempSource.DRIVETEMP))
    verdict = drive_verdict(drive, LIMITS, NOW)
    assert verdict.health is Health.UNKNOWN
    assert "60 min old" in verdict.summary


def test_standby_drive_keeps_its_old_reading_without_complaint() -> None:
    drive = hdd(power=PowerState.STANDBY, temperature=Temperature(35, NOW - 3600, TempSource.SMART))
    assert drive_verdict(drive, LIMITS, NOW).health is Health.OK


def test_no_smart_data_is_unknown_and_says_why() -> None:
    bare = Drive("sdb", HDD)
    assert drive_verdict(bare, LIMITS, NOW).summary == "no SMART data"
    asleep = dataclasses.replace(bare, power=PowerState.STANDBY)
    assert drive_verdict(asleep, LIMITS, NOW).summary == "in standby, SMART not read yet"


def test_failed_self_test_warns_with_lba() -> None:
    test = SelfTest("Extended offline", "Completed: read failure", False, 31000, 90, 123456)
    verdict = drive_verdict(hdd(self_tests=(test,)), LIMITS, NOW)
    assert verdict.health is Health.WARNING
    assert "at LBA 123456" in verdict.summary


def nvme(health: NvmeHealth) -> Drive:
    ident = DriveIdentity(model="Samsung SSD 970 EVO Plus 250GB", transport=Transport.NVME)
    return Drive("nvme0n1", ident, smart_passed=True, nvme=health)


def test_nvme_critical_warning_bits_are_named() -> None:
    verdict = drive_verdict(nvme(NvmeHealth(critical_warning=0x05)), LIMITS, NOW)
    assert verdict.health is Health.CRITICAL
    assert "available spare below threshold" in verdict.summary
    assert "reliability degraded" in verdict.summary


def test_nvme_wear_spare_and_media_errors() -> None:
    worn = drive_verdict(nvme(NvmeHealth(percentage_used=95)), LIMITS, NOW)
    assert worn.health is Health.WARNING
    spare = drive_verdict(
        nvme(NvmeHealth(available_spare=5, available_spare_threshold=10)), LIMITS, NOW
    )
    assert spare.health is Health.CRITICAL
    media = drive_verdict(nvme(NvmeHealth(media_errors=3)), LIMITS, NOW)
    assert media.health is Health.WARNING
    assert drive_verdict(nvme(NvmeHealth(critical_warning=0)), LIMITS, NOW).health is Health.OK


def test_sas_counters() -> None:
    ident = DriveIdentity(model="ST4000NM0023", transport=Transport.SAS, rotational=True)
    sas = Drive("sdc", ident, smart_passed=True, scsi=ScsiHealth(grown_defects=3))
    assert drive_verdict(sas, LIMITS, NOW).health is Health.WARNING
    many = dataclasses.replace(sas, scsi=ScsiHealth(grown_defects=500, uncorrected_read_errors=2))
    verdict = drive_verdict(many, LIMITS, NOW)
    assert verdict.health is Health.CRITICAL
    assert texts(verdict)[0] == "grown defect list: 500 entries"
    assert "2 uncorrected read errors" in texts(verdict)


def test_worst_reason_comes_first() -> None:
    drive = hdd(attr(197, "Current_Pending_Sector", 2), temp=55)
    verdict = drive_verdict(drive, LIMITS, NOW)
    assert [r.health for r in verdict.reasons] == [Health.CRITICAL, Health.WARNING]


def test_first_seen_keeps_the_first_value() -> None:
    drive = hdd(attr(197, "Current_Pending_Sector", 8), attr(5, "Reallocated_Sector_Ct", 0))
    assert first_seen(drive, {197: 2}) == {197: 2, 5: 0}


def test_worst_ranks_critical_over_unknown() -> None:
    assert worst([Health.OK, Health.UNKNOWN, Health.WARNING]) is Health.WARNING
    assert worst([Health.OK, Health.UNKNOWN]) is Health.UNKNOWN
    assert worst([]) is Health.OK
    assert Health.CRITICAL.short == "CRIT"
