"""Real smartctl reports (tests/fixtures/smartctl, copied from the corpus) through the parsers the
live path uses: pySMART for text, the JSON parser for `smartctl -j`, then the verdict rules.

The expected verdicts below were reviewed by hand against each report's own tables (the
attribute raw values, the assessment line, the NVMe log, the SCSI counters, the self-test log).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from nastui.cli.cmd_smart import explained
from nastui.collectors.smart.collector import parse_capture
from nastui.collectors.smart.pysmart_parse import parse_text
from nastui.model import DriveClass, Health, PowerState, Thresholds, Transport
from nastui.model.errors import ParseError
from tests.smartbox import SMART

NOW = 1_700_000_000.0
LIMITS = Thresholds()
LINUXHW = "linuxhw_enterprise"

# (fixture, health, the reason texts in verdict order)
REVIEWED = [
    (f"{LINUXHW}/HDD__HGST__HUS726040ALE614__73832C26B317.txt", Health.OK, []),
    (
        f"{LINUXHW}/HDD__HGST__HUS726060ALE614__92E40E58393E.txt",
        Health.CRITICAL,
        [
            "temperature 67 °C (critical 55 °C)",
            "Reallocated_Sector_Ct 14",
            "Reallocated_Event_Count 14",
            "Current_Pending_Sector 16",
            "Offline_Uncorrectable 6",
        ],
    ),
    (
        f"{LINUXHW}/HDD__HP__MB1000GCEHH__FAFE8BB4B58C.txt",
        Health.CRITICAL,
        [
            "SMART overall-health self-assessment: FAILED",
            "Reallocated_Sector_Ct normalized 1 at or below threshold 36",
            "Reported_Uncorrect 243",
            "Reallocated_Event_Count normalized 1 at or below threshold 36",
        ],
    ),
    (
        # 187's raw 25797459968 is packed (low word 0), 190 failed "in the past" but is not a
        # prefailure attribute: only the reallocations count.
        f"{LINUXHW}/HDD__Hitachi__HTS725050A9A364__CC00DCFF5FD0.txt",
        Health.WARNING,
        ["Reallocated_Sector_Ct 1", "Reallocated_Event_Count 1"],
    ),
    (
        f"{LINUXHW}/HDD__HPE__MB8000GFECR__265297FF8485.txt",
        Health.CRITICAL,
        [
            "Reallocated_Sector_Ct 792",
            "Reallocated_Event_Count 792",
            "last self-test (Extended offline): Completed: read failure at LBA 293776, "
            "7255 power-on hours ago",
        ],
    ),
    (
        f"{LINUXHW}/HDD__Seagate__ST10000NM0016-1TT101__13C4F5DBE3A4.txt",
        Health.CRITICAL,
        ["Reallocated_Sector_Ct 57970", "Current_Pending_Sector 486", "Offline_Uncorrectable 486"],
    ),
    (f"{LINUXHW}/HDD__Seagate__ST4000NM0033-9ZM170__003B66E7C12A.txt", Health.OK, []),
    (f"{LINUXHW}/HDD__HGST__HUH721212ALN604__8EACED31F81E.txt", Health.OK, []),
    (f"{LINUXHW}/HDD__Toshiba__DT01ACA300__69191CE9A552.txt", Health.OK, []),
    (f"{LINUXHW}/SSD__Samsung__SSD_850_EVO_1TB__3352AD249663.txt", Health.OK, []),
    (
        f"{LINUXHW}/NVMe__WDC__CL_SN720_SDAQNTW-512G-2000__558E598CE38A.txt",
        Health.CRITICAL,
        [
            "SMART overall-health self-assessment: FAILED",
            "NVMe critical warning 0x04: reliability degraded by media or internal errors",
            "384 media and data integrity errors",
        ],
    ),
    (
        f"{LINUXHW}/NVMe__XPG__SPECTRIX_S40G__57541D4E7080.txt",
        Health.WARNING,
        ["15 media and data integrity errors"],
    ),
    ("telegraf_smart/hgstSASInfoData.txt", Health.OK, []),
    (
        "proxmox_pve_storage/hdd_smart__sdb_smart.txt",
        Health.CRITICAL,
        [
            "Airflow_Temperature_Cel normalized 45 at or below threshold 45",
            "temperature 55 °C (critical 55 °C)",
        ],
    ),
    ("smartctl_exporter/sat-HGST_Ultrastar_7K6000-HGST_HUS726060ALE614-sdf.json", Health.OK, []),
    (
        "smartctl_exporter/SEAGATE_ST373453LC_26.json",
        Health.CRITICAL,
        [
            "grown defect list: 260 entries",
            "1 uncorrected read errors",
            "535 uncorrected write errors",
        ],
    ),
    ("smartctl_exporter/sat-Seagate_Exos_7E8-ST1000NM000A-2J3100-sdq.json", Health.OK, []),
    ("scrutiny/smart-nvme-failed.json", Health.WARNING, ["7 media and data integrity errors"]),
    ("scrutiny/smart-scsi.json", Health.WARNING, ["grown defect list: 56 entries"]),
]


def verdict_of(name: str) -> tuple[Health, list[str]]:
    reading = parse_capture((SMART / name).read_text(errors="replace"), name)
    drive = explained(reading, LIMITS, NOW)
    return drive.verdict.health, [r.text for r in drive.verdict.reasons]


@pytest.mark.parametrize(("name", "health", "reasons"), REVIEWED, ids=[r[0] for r in REVIEWED])
def test_reviewed_verdicts(name: str, health: Health, reasons: list[str]) -> None:
    assert verdict_of(name) == (health, reasons)


def test_identity_from_a_text_report() -> None:
    reading = parse_text(
        (SMART / f"{LINUXHW}/HDD__HGST__HUS726060ALE614__92E40E58393E.txt").read_text(), "x"
    )
    ident = reading.identity
    assert ident.model == "HGST HUS726060ALE614"
    assert ident.serial is None  # redacted as "--" by linuxhw
    assert ident.firmware == "APGNW517"
    assert ident.capacity_bytes == 6_001_175_126_016
    assert ident.rpm == 7200 and ident.rotational is True
    assert reading.version == "7.1"
    assert reading.power_on_hours == 47333
    attrs = {a.id: a for a in reading.attributes}
    assert attrs[194].raw == 67 and attrs[194].raw_string == "67 (Min/Max 22/73)"
    assert attrs[5].prefailure and not attrs[197].prefailure


def test_sas_counters_and_nvme_log_from_text() -> None:
    text = (SMART / "pysmart/singletests/sas_hdd_0_issue_51/_-d_scsi_--all__dev_sdc").read_text()
    sas = parse_text(text, "sas")
    assert sas.scsi is not None and sas.scsi.grown_defects == 0
    assert (sas.scsi.uncorrected_read_errors, sas.scsi.uncorrected_write_errors) == (0, 0)
    assert sas.scsi.non_medium_errors == 0
    assert sas.identity.transport is Transport.SAS and sas.temperature_c == 32.0
    assert sas.identity.model == "HUH721212AL4204" and sas.identity.vendor == "HGST"
    nvme = parse_text(
        (SMART / f"{LINUXHW}/NVMe__WDC__CL_SN720_SDAQNTW-512G-2000__558E598CE38A.txt").read_text(),
        "nvme",
    )
    assert nvme.nvme is not None
    assert (nvme.nvme.critical_warning, nvme.nvme.media_errors) == (4, 384)
    assert nvme.nvme.available_spare == 100 and nvme.nvme.unsafe_shutdowns == 5
    assert nvme.identity.drive_class is DriveClass.NVME


def test_standby_report_reads_only_the_power_state() -> None:
    reading = parse_capture((SMART / "telegraf_smart/mockStandbyData.txt").read_text(), "s")
    assert reading.power is PowerState.STANDBY
    assert not reading.has_health
    drive = explained(reading, LIMITS, NOW)
    assert drive.verdict.summary == "in standby, SMART not read yet"


def test_the_same_drive_as_text_and_json_gives_the_same_verdict() -> None:
    # One HGST HUS726060ALE614 each way; both healthy reports must agree on every finding
    # the text and JSON share: no reasons, SATA, 7200 rpm.
    text = verdict_of(f"{LINUXHW}/HDD__HGST__HUS726040ALE614__73832C26B317.txt")
    json_ = verdict_of("smartctl_exporter/sat-HGST_Ultrastar_7K6000-HGST_HUS726060ALE614-sdf.json")
    assert text == json_ == (Health.OK, [])


def test_json_open_failure_says_why() -> None:
    reading = parse_capture((SMART / "scrutiny/smart-fail.json").read_text(), "fail.json")
    assert reading.exit_status == 2
    drive = explained(reading, LIMITS, NOW)
    assert drive.verdict.health is Health.UNKNOWN
    assert "Open failed" in drive.verdict.summary


@pytest.mark.parametrize(
    ("name", "wanted"),
    [
        ("scrutiny/smartctl_scan_simple.json", "smartctl --scan"),
    ],
)
def test_what_is_not_a_report_is_a_named_parse_error(name: str, wanted: str) -> None:
    with pytest.raises(ParseError) as caught:
        parse_capture((SMART / name).read_text(errors="replace"), name)
    assert wanted in str(caught.value)
    assert str(caught.value).startswith(name)


def every_fixture() -> list[Path]:
    return sorted(
        p
        for p in SMART.rglob("*")
        if p.is_file() and p.suffix not in (".md", ".tsv") and "local" not in p.parts
    )


@pytest.mark.parametrize("path", every_fixture(), ids=lambda p: str(p.relative_to(SMART)))
def test_every_fixture_parses_or_raises_a_named_parse_error(path: Path) -> None:
    name = str(path.relative_to(SMART))
    try:
        reading = parse_capture(path.read_text(errors="replace"), name)
    except ParseError as exc:
        assert str(exc).startswith(name)
        return
    explained(reading, LIMITS, NOW)  # the rules never crash on what the parsers return


@pytest.mark.parametrize("lang", ["en_US.UTF-8", None])
def test_importing_pysmart_leaves_the_process_environment_alone(lang: str | None) -> None:
    code = (
        "import logging, os\n"
        + (f"os.environ['LANG'] = {lang!r}\n" if lang else "os.environ.pop('LANG', None)\n")
        + "before = logging.getLoggerClass()\n"
        "from nastui.collectors.smart.pysmart_parse import pysmart_device\n"
        "import sys; assert 'pySMART' not in sys.modules  # lazily, only when parsing\n"
        "pysmart_device()\n"
        "assert 'pySMART' in sys.modules and logging.getLoggerClass() is before\n"
        "print(os.environ.get('LANG'))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == str(lang)
