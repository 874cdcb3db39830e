"""The text parsers nastui adds to pySMART, the pieces shared by every SMART path, and the argv
builders (asserted as tuples)."""

from __future__ import annotations

import pytest

from nastui.collectors.smart.collector import probe_argv, smart_type
from nastui.collectors.smart.pysmart_parse import (
    Answer,
    ReplaySmartctl,
    command_line,
    first_request,
)
from nastui.collectors.smart.reading import exit_findings, first_int, self_test_passed
from nastui.collectors.smart.text import (
    classic_attribute_lines,
    interface_of,
    non_medium_errors,
    normalized_lines,
    overall_assessment,
    power_state,
    power_word,
    standby_check_ignored,
    wwn,
)
from nastui.model import PowerState, Transport
from nastui.model.errors import ParseError


def test_full_read_argv_carries_the_standby_guard_and_the_interface() -> None:
    request = first_request("sda", "sat")
    assert request == ("-d", "sat", "--all", "/dev/sda")
    assert command_line(request, "sda", "/dev/sda") == (
        "smartctl", "-n", "standby", "-d", "sat", "--all", "/dev/sda",
    )  # fmt: skip
    # under --root the device path is the tree's, pySMART's "/dev/sda" is only a name
    assert command_line(request, "sda", "/srv/box/dev/sda")[-1] == "/srv/box/dev/sda"


def test_probe_argv() -> None:
    assert probe_argv("scsi", "/dev/sdb") == (
        "smartctl", "-n", "standby", "-j", "-d", "scsi", "-A", "/dev/sdb",
    )  # fmt: skip


@pytest.mark.parametrize(
    ("transport", "kind"),
    [
        (Transport.SATA, "sat"),
        (Transport.SAS, "scsi"),
        (Transport.NVME, "nvme"),
        (Transport.USB, "sat"),
        (Transport.UNKNOWN, "sat"),
        (Transport.VIRTUAL, None),
    ],
)
def test_smart_type_per_transport(transport: Transport, kind: str | None) -> None:
    assert smart_type(transport) == kind


def test_replay_refuses_to_accumulate_options_and_notes_what_it_cannot_answer() -> None:
    replay = ReplaySmartctl({("-d", "sat", "--all", "/dev/sda"): _answer("x")})
    assert replay.options == ["-n", "standby"]
    with pytest.raises(TypeError):
        replay.add_options(["-T", "permissive"])
    assert replay.all("/dev/sda", "sat") == ["x"]
    assert replay.generic_call(["-d", "scsi", "-l", "background", "/dev/sda"]) == ([], 1)
    assert replay.unanswered == [("-d", "scsi", "-l", "background", "/dev/sda")]


def _answer(line: str) -> Answer:
    return Answer((line,), 0)


@pytest.mark.parametrize(
    ("line", "state"),
    [
        ("Power mode is:    ACTIVE or IDLE", PowerState.ACTIVE),
        ("Power mode was:   IDLE_B", PowerState.IDLE),
        ("Power mode is:       ACTIVE", PowerState.ACTIVE),
        ("Device is in STANDBY mode, exit(2)", PowerState.STANDBY),
        ("Device is in STANDBY_Y mode, exit(2)", PowerState.STANDBY),
        ("Device is in SLEEP mode, exit(2)", PowerState.SLEEP),
        ("Device is in STANDBY (OS) mode, exit(2)", PowerState.STANDBY),
        ("Device is in STANDBY BY TIMER mode, exit(2)", PowerState.STANDBY),
        ("Local Time is:    Wed Mar 10 2021", PowerState.UNKNOWN),
    ],
)
def test_power_state(line: str, state: PowerState) -> None:
    assert power_state(["smartctl 7.3", line]) is state


def test_power_words() -> None:
    assert power_word("IDLE BY TIMER") is PowerState.IDLE
    assert power_word("LOW POWER") is PowerState.STANDBY
    assert power_word("what") is PowerState.UNKNOWN


def test_overall_assessment_is_the_drives_own_line() -> None:
    assert overall_assessment(["SMART overall-health self-assessment test result: PASSED"])
    assert not overall_assessment(["SMART overall-health self-assessment test result: FAILED!"])
    assert overall_assessment(["SMART Health Status: OK"])
    assert overall_assessment(["SMART Health Status: FIRMWARE IMPENDING FAILURE"]) is False
    assert overall_assessment(["nothing here"]) is None


def test_wwn_ata_scsi_and_redacted() -> None:
    assert wwn(["LU WWN Device Id: 5 000cca 22bc1a6e3"]) == "0x5000cca22bc1a6e3"
    assert wwn(["Logical Unit id:      0x5000cca27076bfe8"]) == "0x5000cca27076bfe8"
    assert wwn(["LU WWN Device Id: 5 000cca ..."]) is None


def test_standby_check_ignored_and_non_medium() -> None:
    assert standby_check_ignored(["CHECK POWER MODE not implemented, ignoring -n option"])
    assert not standby_check_ignored(["Power mode is: ACTIVE"])
    assert non_medium_errors(["Non-medium error count:    10237"]) == 10237


BRIEF = """\
ID# ATTRIBUTE_NAME          FLAGS    VALUE WORST THRESH FAIL RAW_VALUE
  5 Reallocated_Sector_Ct   PO--CK   100   100   005    -    14
190 Airflow_Temperature_Cel -O---K   068   044   045    Past 32 (Min/Max 30/35)
197 Current_Pending_Sector  -O---K   100   100   000    NOW  16
                            ||||||_ K auto-keep
                            |______ P prefailure warning

next section"""


def test_brief_table_becomes_the_classic_layout_pysmart_reads() -> None:
    lines = classic_attribute_lines(BRIEF.splitlines())
    assert lines[0].startswith("ID# ATTRIBUTE_NAME          FLAG     VALUE WORST THRESH TYPE")
    assert lines[1].split() == [
        "5", "Reallocated_Sector_Ct", "0x0033", "100", "100", "005",
        "Pre-fail", "Always", "-", "14",
    ]  # fmt: skip
    assert lines[2].split()[6:9] == ["Old_age", "Always", "In_the_past"]
    assert lines[2].endswith("32 (Min/Max 30/35)")
    assert lines[3].split()[8] == "FAILING_NOW"
    assert "|" not in "".join(lines)  # the legend is dropped
    assert lines[-1] == "next section"


def test_normalized_lines() -> None:
    lines = normalized_lines(
        "Data Units Read:   21\u202f600\u202f976 [11.0 TB]\n"
        "SMART Extended Self-test Log Version: 1 (1 sectors)"
    )
    assert lines[0] == "Data Units Read:   21,600,976 [11.0 TB]"
    assert lines[1] == "SMART Self-test log structure revision number 1"
    assert lines[-1] == ""


def test_interface_of_a_capture() -> None:
    assert (
        interface_of(["=== START OF INFORMATION SECTION ===", "Transport protocol: SAS"], "x")
        == "scsi"
    )
    assert (
        interface_of(
            ["=== START OF SMART DATA SECTION ===", "SMART/Health Information (NVMe Log 0x02)"], "x"
        )
        == "nvme"
    )
    assert interface_of(["=== START OF INFORMATION SECTION ===", "Device Model: X"], "x") == "sat"
    with pytest.raises(ParseError, match=r"^notes\.txt: not a smartctl report"):
        interface_of(["hello"], "notes.txt")


def test_small_helpers() -> None:
    assert first_int("36 (Min/Max 22/45)") == 36
    assert first_int("12,345") == 12345
    assert first_int("0/163250328") == 0
    assert first_int("-") is None and first_int(True) is None
    assert self_test_passed("Completed without error") is True
    assert self_test_passed("Completed: read failure") is False
    assert self_test_passed("Fatal or unknown error") is False
    assert self_test_passed("Aborted by host") is None
    assert exit_findings(0x48) == [
        "SMART status: DISK FAILING",
        "the device error log contains errors",
    ]
    assert exit_findings(None) == []
