"""Reports of older smartctl builds (tests/fixtures/smartctl/old, from the held-out set's second
round): the attribute table without UPDATED (5.0-5.33), with flag letters (5.37), and digits
grouped by apostrophes. Before, the first read the wrong columns (temperature and power-on hours
wrong or missing), a FAILING_NOW in it or the letters lost the whole table, and the capacity was
lost."""

from __future__ import annotations

from nastui.cli.cmd_smart import explained
from nastui.collectors.smart.collector import parse_capture
from nastui.collectors.smart.reading import SmartReading
from nastui.collectors.smart.text import classic_attribute_lines, unread_attribute_rows
from nastui.model import Drive, Thresholds
from tests.smartbox import SMART

OLD = SMART / "old"
NOW = 2_000_000_000.0


def read(name: str) -> tuple[SmartReading, Drive]:
    reading = parse_capture((OLD / name).read_text(), name)
    return reading, explained(reading, Thresholds(), NOW)


def test_table_without_updated_column() -> None:
    reading, drive = read("gsc_maxtor6_smartctl5.0_no_updated_column.txt")
    assert drive.power_on_hours == 27  # "27 h + 13 m"
    assert reading.temperature_c == 29.0
    assert len(reading.attributes) == 30
    assert drive.verdict.health.name == "OK"


def test_table_without_updated_column_and_a_failing_attribute() -> None:
    reading, drive = read("gsc_maxtor7_no_updated_column_failing_now.txt")
    assert not reading.attributes_missing
    seek = next(a for a in reading.attributes if a.id == 7)
    assert (seek.value, seek.threshold, seek.failing) == (1, 23, True)
    assert (drive.power_on_hours, reading.temperature_c) == (14851, 24.0)
    assert drive.verdict.health.name == "CRITICAL"


def test_flag_letters_in_the_classic_table() -> None:
    reading, drive = read("gsc_wd800jd_smartctl5.37_flag_letters.txt")
    assert reading.notes == ()  # pySMART reads it: no "could not read it" fallback
    realloc = next(a for a in reading.attributes if a.id == 5)
    assert (realloc.value, realloc.threshold, realloc.raw) == (129, 140, 562)
    assert (drive.power_on_hours, reading.temperature_c) == (1211, 18.0)
    assert reading.identity.capacity_bytes == 80032038912


def test_apostrophe_digit_groups() -> None:
    reading, _ = read("gsc_samsung_sp80a4h_apostrophe_groups.txt")
    assert reading.identity.capacity_bytes == 80060424192


def test_old_rows_rewritten_and_odd_rows_named() -> None:
    lines = [
        "ID# ATTRIBUTE_NAME          FLAG     VALUE WORST THRESH TYPE     WHEN_FAILED RAW_VALUE",
        "  9 Power_On_Hours          0x0032   253   253   000    Old_age      -       27 h + 13 m",
        "  7 Seek_Error_Rate         0x000b   001   001   023    Pre-fail FAILING_NOW 13",
        "240 Head flying hours       0x0001   100   100   001    Pre-fail     -       0",
        "",
        "after the table",
    ]
    out = classic_attribute_lines(lines)
    assert out[1].split() == [
        "9", "Power_On_Hours", "0x0032", "253", "253", "000",
        "Old_age", "Always", "-", "27", "h", "+", "13", "m",
    ]  # fmt: skip
    assert out[2].split()[6:9] == ["Pre-fail", "Always", "FAILING_NOW"]
    assert out[3:] == ["", "after the table"]  # the odd row is left out, and named:
    assert unread_attribute_rows(lines) == [lines[3]]


def test_scsi_report_without_sections() -> None:
    """smartctl before 5.39 printed a SCSI drive without sections (it was "not a smartctl
    report", and the drive was lost)."""
    reading, drive = read("gsc_sea10k7_smartctl5.1_scsi_no_sections.txt")
    ident = reading.identity
    assert (ident.vendor, ident.model, ident.serial) == (
        "SEAGATE",
        "ST373207LC",
        "3KT5AGCJ000077052QFF",
    )
    assert (reading.smart_passed, reading.temperature_c) == (True, 24.0)
    assert drive.verdict.health.name == "OK"
    failing = (OLD / "gsc_sea10k7_smartctl5.1_scsi_no_sections.txt").read_text()
    failing = failing.replace(
        "SMART Sense: Ok!", "SMART Sense: Failure prediction threshold exceeded"
    )
    assert parse_capture(failing, "x").smart_passed is False
