"""Identity and verdict fixes on real captured reports (tests/fixtures/smartctl, see its
PROVENANCE.md): model by its exact label, temperature by smartctl's order, SAS power-on time,
NVMe behind SCSI, banner-less and cut reports, pySMART failures kept, SSD retired blocks,
per-class/model/bay temperature limits, recent self-test read failures and UNC errors."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from nastui.cli.cmd_smart import explained
from nastui.cli.configcheck import describe
from nastui.collectors.smart.collector import parse_capture
from nastui.collectors.smart.errorlog import errors_from_lines
from nastui.collectors.smart.fallback import labels_only
from nastui.collectors.smart.text import normalized_lines
from nastui.config import ConfigError
from nastui.config.loader import parse_config
from nastui.core.assess import assess
from nastui.core.health import drive_verdict
from nastui.model import (
    UNASSESSED,
    AtaError,
    BaySlot,
    Drive,
    Health,
    HostSnapshot,
    Reason,
    SelfTest,
    Temperature,
    TempOverride,
    TempSource,
    Thresholds,
    Transport,
)
from tests.smartbox import SMART

NOW = 1_700_000_000.0
LIMITS = Thresholds()
LHW = "linuxhw_enterprise"
HGST = f"{LHW}/HDD__HGST__HUS726060ALE614__92E40E58393E.txt"
HEALTHY_HDD = f"{LHW}/HDD__HGST__HUS726040ALE614__73832C26B317.txt"
SSD_RETIRED = f"{LHW}/SSD__Samsung__MZ7LM480HMHQ-00005__3A4BFF172C7D.txt"
SELFTEST_FAILED = f"{LHW}/HDD__Hitachi__HDS721050CLA362__21C7D4DCA76F.txt"
UNC_RECENT = f"{LHW}/HDD__Toshiba__MG06ACA10TE__EA2ED37C7C6C.txt"
UNC_JSON = (
    "smartctl_exporter/sat-Toshiba_MG05ACA..._Enterprise_Capacity_HDD-TOSHIBA_MG05ACA800E-sdw.json"
)
MARVELL = f"{LHW}/SSD__MARVELL__SD88__SD88SA024SA0_SUN24G__A09D7A54D571.txt"


def read(name: str) -> str:
    return (SMART / name).read_text(errors="replace")


def drive_of(name: str, limits: Thresholds = LIMITS) -> Drive:
    return explained(parse_capture(read(name), name), limits, NOW)


def reason(drive: Drive, key: str) -> Reason:
    return next(r for r in drive.verdict.reasons if r.key == key)


def test_add_product_id_is_not_the_model() -> None:
    name = f"{LHW}/SSD__Samsung__MZ7KM960HMJP0D3__42EEAE1BBBC1.txt"
    assert "Add. Product Id:  DELL(tm)" in read(name)
    assert parse_capture(read(name), name).identity.model == "MZ7KM960HMJP0D3"


def test_attribute_194_comes_before_190() -> None:
    name = f"{LHW}/SSD__Intel__SSDSC2__SSDSC2BB480G4__90779AE08987.txt"
    assert parse_capture(read(name), name).temperature_c == 29.0  # 190 (airflow) says 18


def test_sct_current_temperature_when_neither_attribute_exists() -> None:
    lines = [x for x in read(HGST).splitlines() if not x.startswith(("194 ", "190 "))]
    assert parse_capture("\n".join(lines), "x").temperature_c == 67.0


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
    assert pasted.attributes == whole.attributes


def test_report_cut_before_the_attribute_table_is_unknown_not_ok() -> None:
    text = read(HGST)
    drive = explained(parse_capture(text[: text.index("SMART Attributes Data")], "x"), LIMITS, NOW)
    assert drive.smart_passed is True
    assert drive.verdict.health is Health.UNKNOWN
    assert "attribute table" in drive.verdict.summary


def test_flags_with_a_plus_are_read() -> None:
    reading = parse_capture(read(MARVELL), MARVELL)
    assert reading.notes == ()
    assert reading.identity.model == "SD88SA024SA0 SUN24G"
    assert len(reading.attributes) == 8


def test_what_pysmart_cannot_read_keeps_the_drive_and_names_why() -> None:
    lines = normalized_lines(read(HGST))
    reading = labels_only(lines, "sat", "x", "pySMART could not read it (ValueError: bad)")
    assert reading.identity.model == "HGST HUS726060ALE614"
    assert reading.smart_passed is True and reading.temperature_c == 67.0
    assert "pySMART could not read it" in reading.notes[0]
    drive = explained(reading, LIMITS, NOW)
    assert drive.verdict.health is Health.CRITICAL  # 67 °C; and unknown attributes noted
    assert any(r.key == "smart-incomplete" for r in drive.verdict.reasons)


def test_ssd_with_a_few_retired_blocks_is_ok_growth_or_low_normalized_warns() -> None:
    drive = drive_of(SSD_RETIRED)
    retired = drive.attribute(5)
    assert retired is not None and (retired.value, retired.raw) == (99, 4)
    assert drive.verdict.health is Health.OK
    grown = drive_verdict(drive, LIMITS, NOW, baseline={5: 2})
    assert grown.health is Health.WARNING and "+2 since first seen" in grown.summary
    strict = Thresholds(ssd_retired_normalized_warning=100)
    assert drive_verdict(drive, strict, NOW).health is Health.WARNING


def test_hdd_limits_by_class_then_model_then_bay() -> None:
    drive = drive_of(HEALTHY_HDD)
    warm = dataclasses.replace(drive, temperature=Temperature(47, NOW, TempSource.SMART))
    assert drive_verdict(warm, LIMITS, NOW).health is Health.OK  # 45-47 °C on a 60 °C drive
    overrides = (TempOverride(45, 50, model="HGST HUS7260*"), TempOverride(48, 52, bay=3))
    strict = Thresholds(temp_overrides=overrides)
    assert drive_verdict(warm, strict, NOW).health is Health.WARNING
    assert drive_verdict(warm, strict, NOW, bay=3).health is Health.OK


def test_recent_self_test_read_failure_is_critical_an_old_one_warns() -> None:
    drive = drive_of(SELFTEST_FAILED)
    found = reason(drive, "selftest")
    assert found.health is Health.CRITICAL
    assert "read failure at LBA 197765129, 267 power-on hours ago" in found.text
    old = drive_of(SELFTEST_FAILED, Thresholds(selftest_recent_hours=100))
    assert reason(old, "selftest").health is Health.WARNING


def test_recent_unc_errors_warn_with_lba_and_hour() -> None:
    drive = drive_of(UNC_RECENT)
    found = reason(drive, "errlog:unc")
    assert found.health is Health.WARNING
    assert "LBA 5077378048 at power-on hour 9336" in found.text


def test_old_unc_errors_from_json_are_read_but_do_not_warn() -> None:
    drive = drive_of(UNC_JSON)
    assert drive.ata_errors[0] == AtaError(36208, "UNC at LBA = 0x0071bde0 = 7454176", 7454176)
    assert drive.verdict.health is Health.OK  # 1,395 power-on hours ago
    wider = drive_of(UNC_JSON, Thresholds(unc_recent_hours=2000))
    assert reason(wider, "errlog:unc").health is Health.WARNING


def test_error_log_entry_without_its_description_is_left_out() -> None:
    lines = read(UNC_RECENT).splitlines()
    first = next(i for i, x in enumerate(lines) if x.startswith("Error ") and "lifetime" in x)
    cut = lines[: first + 1]
    assert errors_from_lines(cut) == ()


def test_assess_applies_a_bay_override_to_the_drive_in_that_bay() -> None:
    drive = dataclasses.replace(
        drive_of(HEALTHY_HDD),
        temperature=Temperature(47, NOW, TempSource.SMART),
        verdict=UNASSESSED,
    )
    limits = Thresholds(temp_overrides=(TempOverride(45, 50, bay=7),))
    snapshot = HostSnapshot(host="h", taken_at=NOW, drives=(drive,))
    in_bay = dataclasses.replace(snapshot, slots=(BaySlot(7, drive.key),))
    assert assess(snapshot, limits, NOW).drives[0].verdict.health is Health.OK
    assert assess(in_bay, limits, NOW).drives[0].verdict.health is Health.WARNING


def test_unc_hours_past_the_16_bit_wrap_are_unwrapped() -> None:
    drive = drive_of(f"{LHW}/HDD__WDC__WD2000__WD2000FYYZ-01UL1B1__09CB20DF9370.txt")
    assert drive.power_on_hours == 66951
    assert drive.ata_errors[0].lifetime_hours == 1248  # as logged: 66784 mod 65536
    found = reason(drive, "errlog:unc")
    assert found.text == "uncorrectable read error (UNC) at LBA 2192877 at power-on hour 66784"


def test_unc_stamped_after_the_power_on_hours_counts_as_recent() -> None:
    drive = drive_of(f"{LHW}/HDD__Hitachi__HUS7240__HUS724040ALE641__28284982390C.txt")
    assert drive.ata_errors[0].lifetime_hours > (drive.power_on_hours or 0)
    assert reason(drive, "errlog:unc").health is Health.WARNING


def test_config_reads_temperature_overrides_and_the_new_limits() -> None:
    config = parse_config(
        "[thresholds]\nunc_recent_hours = 100\nselftest_recent_hours = 48\n"
        "ssd_retired_normalized_warning = 95\n"
        '[[thresholds.temperature]]\nmodel = "WDC WD40EFRX*"\nwarning = 55\ncritical = 60\n'
        "[[thresholds.temperature]]\nbay = 24\nwarning = 52\ncritical = 57\n",
        Path("t.toml"),
    )
    limits = config.thresholds
    assert (limits.unc_recent_hours, limits.selftest_recent_hours) == (100, 48)
    assert limits.ssd_retired_normalized_warning == 95
    assert limits.temp_overrides == (
        TempOverride(55, 60, model="WDC WD40EFRX*"),
        TempOverride(52, 57, bay=24),
    )
    assert "2 temperature override(s) by model or bay" in describe(config)[1]


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ("warning = 55\ncritical = 60\n", "thresholds.temperature[1].model (a glob) or"),
        ("bay = 2\nwarning = 60\ncritical = 55\n", "warning (60) must be below"),
        ("bay = 2\nwarning = 60\n", "thresholds.temperature[1].critical is required"),
    ],
)
def test_a_wrong_temperature_override_is_one_named_line(text: str, wanted: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config("[[thresholds.temperature]]\n" + text, Path("c.toml"))
    assert str(caught.value).startswith("c.toml:") and wanted in str(caught.value)


def test_an_attribute_row_not_understood_is_left_out_and_named() -> None:
    text = read(HGST)
    row = next(x for x in text.splitlines() if x.startswith("  1 Raw_Read_Error_Rate"))
    odd = row.replace("PO-R--", "PO?R--")
    reading = parse_capture(text.replace(row, odd), "x")
    whole = parse_capture(text, "x")
    assert [a.id for a in reading.attributes] == [a.id for a in whole.attributes if a.id != 1]
    assert reading.notes == (f"attribute row not understood, left out: {odd.strip()!r}",)
    assert reading.identity == whole.identity


def test_json_nvme_behind_scsi_translation_is_nvme() -> None:
    text = read("netdata/type-scsi/device-sda.json")
    data = json.loads(text)
    assert parse_capture(text, "x").identity.transport is Transport.SAS
    key = "scsi_vendor" if "scsi_vendor" in data else "vendor"
    data[key] = "NVMe"
    assert parse_capture(json.dumps(data), "x").identity.transport is Transport.NVME


def test_only_ata_and_scsi_log_hours_wrap_at_16_bits() -> None:
    failed = SelfTest("Extended offline", "Completed: read failure", False, 4400, 90, 1234)
    ata = dataclasses.replace(drive_of(HEALTHY_HDD), power_on_hours=70000, self_tests=(failed,))
    assert reason(explained_again(ata), "selftest").health is Health.CRITICAL  # 64 h ago
    nvme = dataclasses.replace(
        drive_of(f"{LHW}/NVMe__Samsung__MZVLB512HAJQ-00000__F5C7196D1AD6.txt"),
        power_on_hours=70000,
        self_tests=(failed,),
    )
    assert reason(explained_again(nvme), "selftest").health is Health.WARNING  # 65,600 h ago


def explained_again(drive: Drive) -> Drive:
    return dataclasses.replace(drive, verdict=drive_verdict(drive, LIMITS, NOW))
