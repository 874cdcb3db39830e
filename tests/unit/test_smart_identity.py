"""Identity and verdict fixes on real captured reports (tests/fixtures/smartctl, see its
PROVENANCE.md): model by its exact label, temperature by smartctl's order, SAS power-on time,
NVMe behind SCSI, banner-less and cut reports, SSD retired blocks, per-class/model/bay
temperature limits, recent self-test read failures and UNC errors."""

from __future__ import annotations

import dataclasses

from nastui.cli.cmd_smart import explained
from nastui.collectors.smart.collector import parse_capture
from nastui.collectors.smart.errorlog import errors_from_lines
from nastui.model import AtaError, Health, SelfTest, TempOverride, Thresholds, Transport
from tests.smartbox import SMART

NOW = 1_700_000_000.0
LIMITS = Thresholds()
LHW = "linuxhw_enterprise"
HGST = f"{LHW}/HDD__HGST__HUS726060ALE614__92E40E58393E.txt"


def read(name: str) -> str:
    return (SMART / name).read_text(errors="replace")


def test_add_product_id_is_not_the_model() -> None:
    reading = parse_capture(read(f"{LHW}/SSD__Samsung__MZ7KM960HMJP0D3__42EEAE1BBBC1.txt"), "x")
    assert reading.identity.model == "MZ7KM960HMJP0D3"  # its Device Model line, not DELL(tm)


def test_attribute_194_before_190() -> None:
    reading = parse_capture(read(f"{LHW}/SSD__Intel__SSDSC2__SSDSC2BB480G4__90779AE08987.txt"), "x")
    assert reading.temperature_c == 29.0  # 194; 190 (airflow) says 18


def test_sct_current_temperature_when_no_attribute() -> None:
    text = read(HGST)
    cut = "\n".join(line for line in text.splitlines() if not line.startswith(("194 ", "190 ")))
    assert parse_capture(cut, "x").temperature_c == 67.0  # SCT status Current Temperature


def test_seagate_sas_hours_powered_up() -> None:
    reading = parse_capture(read("proxmox_pve_storage/sas__sda_smart.txt"), "x")
    assert reading.power_on_hours == 7127
    assert reading.temperature_c == 20.0


def test_nvme_behind_scsi_translation_is_nvme() -> None:
    reading = parse_capture(read(f"{LHW}/NVMe__NVMe__Dell_Ent_CM__F4594368173A.txt"), "x")
    assert reading.identity.transport is Transport.NVME
    assert reading.identity.model == "Dell Ent NVMe CM"


def test_report_without_its_banner_keeps_model_and_serial() -> None:
    whole = parse_capture(read(HGST), "x")
    pasted = parse_capture("\n".join(read(HGST).splitlines()[3:]), "x")
    assert pasted.identity.model == whole.identity.model == "HGST HUS726060ALE614"
    assert pasted.identity.serial == whole.identity.serial
    assert len(pasted.attributes) == len(whole.attributes)


def test_report_cut_before_the_attribute_table_is_unknown() -> None:
    text = read(HGST)
    cut = text[: text.index("SMART Attributes Data Structure")]
    drive = explained(parse_capture(cut, "x"), LIMITS, NOW)
    assert drive.verdict.health is Health.UNKNOWN
    assert "attribute table" in drive.verdict.summary


def test_ssd_with_a_few_retired_blocks_is_ok_but_growth_warns() -> None:
    drive = explained(
        parse_capture(read(f"{LHW}/SSD__Crucial__CT256MX100SSD1__828566A2BD45.txt"), "x"),
        LIMITS,
        NOW,
    )
    attr = dataclasses.replace(
        drive.attributes[0], id=5, name="Reallocated_Sector_Ct", value=100, raw=12, raw_string="12"
    )
    ssd = dataclasses.replace(
        drive, attributes=(attr,), temperature=None, self_tests=(), ata_errors=()
    )
    from nastui.core.health import drive_verdict

    assert drive_verdict(ssd, LIMITS, NOW).health is Health.OK
    grown = drive_verdict(ssd, LIMITS, NOW, baseline={5: 8})
    assert grown.health is Health.WARNING and "+4" in grown.summary
    worn = dataclasses.replace(ssd, attributes=(dataclasses.replace(attr, value=80),))
    assert drive_verdict(worn, LIMITS, NOW).health is Health.WARNING


def test_hdd_at_47_is_ok_and_overrides_by_model_and_bay() -> None:
    from nastui.core.health import drive_verdict
    from nastui.model import Temperature, TempSource

    drive = explained(
        parse_capture(read(f"{LHW}/HDD__HGST__HUS726040ALE614__73832C26B317.txt"), "x"), LIMITS, NOW
    )
    warm = dataclasses.replace(drive, temperature=Temperature(47, NOW, TempSource.SMART))
    assert drive_verdict(warm, LIMITS, NOW).health is Health.OK
    strict = Thresholds(
        temp_overrides=(TempOverride(45, 50, model="HGST HUS7260*"), TempOverride(48, 52, bay=3))
    )
    assert drive_verdict(warm, strict, NOW).health is Health.WARNING
    assert drive_verdict(warm, strict, NOW, bay=3).health is Health.OK


def test_recent_self_test_read_failure_is_critical_old_one_warns() -> None:
    from nastui.core.health import drive_verdict

    drive = explained(
        parse_capture(read(f"{LHW}/HDD__HGST__HUS726040ALE614__73832C26B317.txt"), "x"), LIMITS, NOW
    )
    hours = drive.power_on_hours or 0
    failed = SelfTest("Extended offline", "Completed: read failure", False, hours - 10, 90, 1234)
    recent = dataclasses.replace(drive, self_tests=(failed,))
    assert drive_verdict(recent, LIMITS, NOW).health is Health.CRITICAL
    old = dataclasses.replace(
        drive, self_tests=(dataclasses.replace(failed, lifetime_hours=hours - 5000),)
    )
    assert drive_verdict(old, LIMITS, NOW).health is Health.WARNING


def test_unc_errors_from_a_real_error_log() -> None:
    text = read(f"{LHW}/HDD__Seagate__ST10000NM0016-1TT101__13C4F5DBE3A4.txt")
    errors = errors_from_lines(text.splitlines())
    reading = parse_capture(text, "x")
    assert reading.ata_errors == errors
    unc = [e for e in errors if e.uncorrectable]
    if unc:
        from nastui.core.health import drive_verdict

        drive = explained(reading, LIMITS, NOW)
        near = dataclasses.replace(drive, power_on_hours=unc[0].lifetime_hours + 5)
        found = [r for r in drive_verdict(near, LIMITS, NOW).reasons if r.key == "errlog:unc"]
        assert found and f"power-on hour {unc[0].lifetime_hours}" in found[0].text


def test_unc_entry_parsed_with_lba_and_hour() -> None:
    lines = [
        "Error 1 [0] occurred at disk power-on lifetime: 11933 hours (497 days + 5 hours)",
        "  40 -- 51 00 00 00 00 6c 5e 7e 98 00 00  Error: UNC at LBA = 0x6c5e7e98 = 1818132120",
    ]
    assert errors_from_lines(lines) == (
        AtaError(11933, "UNC at LBA = 0x6c5e7e98 = 1818132120", 1818132120),
    )
